import CGLib
import Foundation
import GLibKit

/// What the photos of a list may reach: the private-network protection (what browsers call
/// Private Network Access). A list from the web must not make the app send requests to this
/// computer or its network (a router's page, a printer, a development server on loopback).
public enum AddressPolicy: Sendable, Equatable {
    /// Any address: a local list or folder, or a list that is itself on this computer or its
    /// network.
    case any
    /// Public addresses only: photos on this computer or its network fail as `blocked-address`.
    case publicOnly

    /// The policy of a list at `url`, judged by its address as written: a file, or a host that
    /// is on this computer or its network as written (`127.0.0.1`, `localhost`, `nas.local`),
    /// may name anything; any other web address only public ones.
    public static func forList(at url: URL) -> AddressPolicy {
        guard url.isWebAddress else { return .any }
        return AddressScope.ofHost(url.host ?? "") == .local ? .any : .publicOnly
    }

    /// The policy of a list fetched over HTTP, by the servers that answered (`reached`, see
    /// `HTTPResponse.reached`): all on this computer or its network, anything; any public one,
    /// public addresses only; unknown (through a proxy), as `forList(at:)` judges the address.
    static func forList(at url: URL, reached: AddressScope?) -> AddressPolicy {
        switch reached {
        case .local: .any
        case .public: .publicOnly
        case nil: forList(at: url)
        }
    }

    /// Refuses `url` if it may not be requested under this policy as its host is written (the
    /// address it connects to is checked by `HTTPClient`).
    func check(_ url: URL) throws(PhotoFailure) {
        guard self == .publicOnly, AddressScope.ofHost(url.host ?? "") == .local else { return }
        throw Self.blocked(url)
    }

    /// The failure of `url`, which is on this computer or its network (at `peer`, if it was
    /// found by connecting; `redirected` if a redirect led there).
    static func blocked(_ url: URL, peer: String? = nil, redirected: Bool = false) -> PhotoFailure {
        let at = peer.map { " (at \($0))" } ?? ""
        let how = redirected ? ", reached through a redirect" : ""
        return PhotoFailure(
            .blockedAddress,
            detail: "“\(url.absoluteString)”\(at)\(how): a list from the web may not reach addresses on this "
                + "computer or its network")
    }
}

/// Where an address is: on this computer or its private network, or public.
public enum AddressScope: Sendable, Equatable {
    /// Loopback, private (RFC 1918, shared 100.64/10, IPv6 unique-local), link-local, or
    /// unspecified (`0.0.0.0` and `::` reach this computer).
    case local
    case `public`

    /// The scope of a host as written in an address: an IP address (IPv4 dotted, or IPv6 with
    /// or without brackets and zone), or a name that is local by its form (`localhost`,
    /// `*.localhost`, `*.local` for multicast DNS). Nil for any other name: only connecting
    /// tells where it is. Other spellings of IPv4 addresses (`127.1`, `2130706433`) are names
    /// here; GLib's resolver refuses them.
    public static func ofHost(_ host: String) -> AddressScope? {
        var text = Substring(host)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        if let bytes = addressBytes(String(text)) { return of(bytes) }
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") || name.hasSuffix(".local") { return .local }
        return nil
    }

    /// The scope of an IPv4 (4 bytes) or IPv6 (16 bytes) address.
    public static func of(_ bytes: [UInt8]) -> AddressScope {
        if treatedAsPublic.withLock({ $0.contains(bytes) }) { return .public }
        switch bytes.count {
        case 4:
            let (a, b) = (bytes[0], bytes[1])
            let local =
                a == 0 || a == 10 || a == 127 // this network, private, loopback
                || (a == 100 && b & 0xC0 == 64) // shared (carrier-grade NAT, VPNs), 100.64/10
                || (a == 169 && b == 254) // link-local
                || (a == 172 && b & 0xF0 == 16) // private, 172.16/12
                || (a == 192 && b == 168) // private
            return local ? .local : .public
        case 16:
            // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d, which holds :: and
            // ::1 as 0.0.0.0 and 0.0.0.1) addresses are judged by their IPv4 address.
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == bytes[11], bytes[10] == 0 || bytes[10] == 0xFF {
                return of(Array(bytes[12...]))
            }
            let local =
                bytes[0] & 0xFE == 0xFC // unique-local, fc00::/7
                || (bytes[0] == 0xFE && bytes[1] & 0x80 == 0x80) // link-local fe80::/10, site-local fec0::/10
            return local ? .local : .public
        default:
            return .public
        }
    }

    /// The 4 or 16 bytes of an IPv4 (dotted quad) or IPv6 address in text; nil for anything else.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// Addresses taken as public although they are not, so that the protection can be tried on
    /// one computer (a list served from 127.0.0.2 naming photos on 127.0.0.1): the process
    /// configuration's `publicAddresses` (`CLASSIC_PHOTOS_PUBLIC_ADDRESSES`). For debugging only.
    private static let treatedAsPublic = Locked<Set<[UInt8]>>(
        Set(AppConfiguration.current.testSwitches.publicAddresses.compactMap(addressBytes)))

    /// Takes `address` as public from now on in this process (as the environment variable
    /// does, for tests that run in one process).
    static func treatAsPublic(_ address: String) {
        guard let bytes = addressBytes(address) else { return }
        _ = treatedAsPublic.withLock { $0.insert(bytes) }
    }

    /// The scope of the address a connection went to, and that address as text; nil for an
    /// address that is not an IP socket address, or a proxy's (where the photo's server is,
    /// only the proxy knows).
    static func of(socketAddress: UnsafeMutablePointer<GSocketAddress>) -> (scope: AddressScope, text: String)? {
        guard
            let socket = GObjectCast.instance(
                socketAddress, of: g_inet_socket_address_get_type(), as: GInetSocketAddress.self),
            !GObjectCast.isInstance(socketAddress, of: g_proxy_address_get_type())
        else { return nil }
        guard let address = g_inet_socket_address_get_address(socket) else { return nil }
        let size = Int(g_inet_address_get_native_size(address))
        guard size == 4 || size == 16, let start = g_inet_address_to_bytes(address) else { return nil }
        let bytes = Array(UnsafeBufferPointer(start: start, count: size))
        let text = g_inet_address_to_string(address).map { pointer in
            defer { g_free(pointer) }
            return String(cString: pointer)
        }
        return (of(bytes), text ?? "")
    }
}
