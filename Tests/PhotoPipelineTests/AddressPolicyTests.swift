import CGLib
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// The private-network protection: which addresses are on this computer or its network, which
/// lists may name them, and the HTTP client refusing them (as written, when connected, after
/// a redirect).
@Suite struct AddressScopeTests {
    @Test("IPv4: loopback, private, shared, link-local and 0/8 are local; the rest public")
    func ipv4() {
        for local in [
            "127.0.0.1", "127.255.255.254", "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255",
            "192.168.0.1", "192.168.255.255", "169.254.1.1", "100.64.0.1", "100.127.255.255", "0.0.0.0",
            "0.1.2.3",
        ] {
            #expect(AddressScope.ofHost(local) == .local, "\(local)")
        }
        for open in [
            "8.8.8.8", "1.1.1.1", "172.15.255.255", "172.32.0.1", "192.169.0.1", "192.167.255.255", "169.253.0.1",
            "100.63.255.255", "100.128.0.1", "11.0.0.1", "128.0.0.1", "126.255.255.255",
        ] {
            #expect(AddressScope.ofHost(open) == .public, "\(open)")
        }
    }

    @Test("IPv6: loopback, unspecified, link-local, site-local and unique-local are local; mapped IPv4 by its address")
    func ipv6() {
        for local in [
            "::1", "::", "[::1]", "fe80::1", "[fe80::1%eth0]", "fe80::1%eth0", "febf::1", "fec0::1", "fc00::1",
            "fd12:3456:789a::1", "::ffff:127.0.0.1", "[::ffff:127.0.0.1]", "::ffff:7f00:1", "::ffff:192.168.1.1",
            "::ffff:10.0.0.1", "::127.0.0.1", "0:0:0:0:0:0:0:1",
        ] {
            #expect(AddressScope.ofHost(local) == .local, "\(local)")
        }
        for open in ["2001:db8::1", "2606:4700:4700::1111", "[2a00:1450::1]", "::ffff:8.8.8.8", "fe00::1", "fbff::1"] {
            #expect(AddressScope.ofHost(open) == .public, "\(open)")
        }
    }

    @Test("Names: localhost, *.localhost and *.local are local as written; others are known only once connected")
    func names() {
        for local in ["localhost", "LOCALHOST", "localhost.", "app.localhost", "printer.local", "NAS.Local."] {
            #expect(AddressScope.ofHost(local) == .local, "\(local)")
        }
        // Other spellings of IPv4 addresses are names here (GLib's resolver refuses them).
        for name in [
            "example.com", "localhost.example.com", "local", "mylocal", "localhost-1", "127.1", "2130706433", "0x7f.1",
            "127.0.0.1.example.com", "",
        ] {
            #expect(AddressScope.ofHost(name) == nil, "\(name)")
        }
    }

    @Test("An address taken as public (CLASSIC_PHOTOS_PUBLIC_ADDRESSES) is public; its neighbours are not")
    func treatedAsPublic() {
        AddressScope.treatAsPublic("127.0.0.2")
        #expect(AddressScope.ofHost("127.0.0.2") == .public)
        #expect(AddressScope.ofHost("127.0.0.3") == .local)
        #expect(AddressScope.ofHost("127.0.0.1") == .local)
    }

    @Test("A list's policy: by the servers that answered, else by its address as written")
    func listPolicy() {
        let web = URL(string: "https://example.org/photos.plist")!
        let loopback = URL(string: "http://127.0.0.1:8080/photos.plist")!
        let file = URL(fileURLWithPath: "/home/me/photos.plist")
        #expect(AddressPolicy.forList(at: web) == .publicOnly)
        #expect(AddressPolicy.forList(at: URL(string: "http://nas.local/photos.plist")!) == .any)
        #expect(AddressPolicy.forList(at: loopback) == .any)
        #expect(AddressPolicy.forList(at: file) == .any)
        // A name that turned out to be on the network (an intranet server) may name its photos.
        #expect(AddressPolicy.forList(at: web, reached: .local) == .any)
        #expect(AddressPolicy.forList(at: loopback, reached: .public) == .publicOnly)
        #expect(AddressPolicy.forList(at: web, reached: nil) == .publicOnly)
        #expect(PhotoEntryBase(web).addressPolicy == .publicOnly)
        #expect(PhotoEntryBase(loopback).addressPolicy == .any)
        #expect(PhotoEntryBase(web, addressPolicy: .any).addressPolicy == .any)
        #expect(PhotoEntry(name: "x", url: URL(string: "http://127.0.0.1/a.jpg")!).addressPolicy == .any)
    }

    @Test("resolvedURL: a list from the web may not name this computer or its network, as written")
    func resolving() throws {
        let web = PhotoEntryBase(URL(string: "https://example.org/lists/photos.plist")!)
        let local = PhotoEntryBase(URL(fileURLWithPath: "/home/me/photos.plist"))
        let loopbackList = PhotoEntryBase(URL(string: "http://127.0.0.1:8080/photos.plist")!)
        func reason(_ link: String, _ base: PhotoEntryBase?) -> PhotoFailure.Reason? {
            do { _ = try PhotoEntry(name: "x", link: link, base: base).resolvedURL(); return nil } catch {
                return error.reason
            }
        }
        for blocked in [
            "http://127.0.0.1:8080/a.jpg", "http://[::1]/a.jpg", "https://localhost/a.jpg", "http://printer.local/a",
            "http://192.168.1.1/admin", "http://[::ffff:10.0.0.1]/a.jpg", "http://0.0.0.0:631/", "HTTP://LocalHost./a",
        ] {
            #expect(reason(blocked, web) == .blockedAddress, "\(blocked)")
            #expect(reason(blocked, local) == nil, "\(blocked)")
            #expect(reason(blocked, loopbackList) == nil, "\(blocked)")
            #expect(reason(blocked, nil) == nil, "\(blocked)")
        }
        #expect(reason("https://example.net/a.jpg", web) == nil)
        #expect(reason("a.jpg", web) == nil)
        let failure = #expect(throws: PhotoFailure.self) {
            try PhotoEntry(name: "x", link: "http://127.0.0.1:8080/a.jpg", base: web).resolvedURL()
        }
        #expect(failure?.summary == "Private address not allowed")
        #expect(
            failure?.detail
                == "“http://127.0.0.1:8080/a.jpg”: a list from the web may not reach addresses on this computer or "
                + "its network")
    }
}

/// The protection against real servers on loopback: 127.0.0.2 is taken as public (as
/// `CLASSIC_PHOTOS_PUBLIC_ADDRESSES=127.0.0.2` would), 127.0.0.1 stays on this computer.
@Suite(.serialized) struct PrivateNetworkTests {
    init() { AddressScope.treatAsPublic("127.0.0.2") }

    /// This computer's own name and the IPv4 address it resolves to, when that address is on
    /// this computer or its network (a server can listen there) and the name does not say so
    /// itself: a name only the address connected to can judge. Nil where it resolves otherwise.
    static let ownName: (name: String, address: String)? = {
        let name = String(cString: g_get_host_name())
        guard AddressScope.ofHost(name) == nil else { return nil }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(found) }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
            var address = $0.pointee.sin_addr
            _ = inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
        }
        let address = text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return AddressScope.ofHost(address) == .local ? (name, address) : nil
    }()

    private func get(_ client: HTTPClient, _ url: URL, policy: AddressPolicy) throws(PhotoFailure) -> Data {
        try client.get(
            url, cancellable: Cancellable(), byteLimit: 10 << 20, connectSeconds: 10, maxRedirects: 3, policy: policy)
    }

    private func redirect(from server: LoopbackServer, to target: URL) -> URL {
        server.url(
            "/redirect-to?url=\(target.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
    }

    @Test("A restricted request to a loopback address as written fails before any request; a public one loads")
    func refusedAsWritten() throws {
        let inside = try LoopbackServer()
        let outside = try LoopbackServer(host: "127.0.0.2")
        let client = HTTPClient()
        defer { client.close() }
        let failure = #expect(throws: PhotoFailure.self) {
            try get(client, inside.url("/photos/coffee.jpg"), policy: .publicOnly)
        }
        #expect(failure?.reason == .blockedAddress)
        #expect(inside.requestCount("/photos/coffee.jpg") == 0)
        #expect(try get(client, outside.url("/photos/coffee.jpg"), policy: .publicOnly).count > 1000)
        #expect(try get(client, inside.url("/photos/coffee.jpg"), policy: .any).count > 1000)
    }

    @Test(
        "A name that leads to this computer: refused when connected, before the request is written, on a new or a used host",
        .enabled(if: PrivateNetworkTests.ownName != nil, "this computer's name does not resolve to a local address"))
    func refusedWhenConnected() throws {
        let own = try #require(Self.ownName)
        let inside = try LoopbackServer(host: own.address)
        let outside = try LoopbackServer(host: "127.0.0.2")
        let client = HTTPClient()
        defer { client.close() }
        let named = URL(string: "http://\(own.name):\(inside.port)/photos/coffee.jpg")!
        let failure = #expect(throws: PhotoFailure.self) { try get(client, named, policy: .publicOnly) }
        #expect(failure?.reason == .blockedAddress)
        #expect(failure?.detail.contains("(at \(own.address))") == true, "\(String(describing: failure))")
        #expect(inside.requestCount("/photos/coffee.jpg") == 0)
        // Unrestricted, the same name loads, and leaves a connection to it open; a restricted
        // request after it does not get through on that connection.
        #expect(try get(client, named, policy: .any).count > 1000)
        #expect(throws: PhotoFailure.self) { try get(client, named, policy: .publicOnly) }
        #expect(inside.requestCount("/photos/coffee.jpg") == 1)
        // Redirected there from a public address.
        let redirected = #expect(throws: PhotoFailure.self) {
            try get(client, redirect(from: outside, to: named), policy: .publicOnly)
        }
        #expect(redirected?.reason == .blockedAddress)
        #expect(inside.requestCount("/photos/coffee.jpg") == 1)
        // A list at that name may name photos on this computer: where it came from decides.
        inside.setList(Data(plist("<dict><key>a</key><string>a.jpg</string></dict>").utf8), for: "list.plist")
        let list = URL(string: "http://\(own.name):\(inside.port)/lists/list.plist")!
        #expect(AddressPolicy.forList(at: list) == .publicOnly)
        #expect(try PhotoFetcher().readList(list, cancellable: Cancellable()).policy == .any)
    }

    @Test("A redirect from a public address to this computer is refused, and the target never asked")
    func redirects() throws {
        let inside = try LoopbackServer()
        let outside = try LoopbackServer(host: "127.0.0.2")
        let client = HTTPClient()
        defer { client.close() }
        let redirect = redirect(from: outside, to: inside.url("/photos/coffee.jpg"))
        let failure = #expect(throws: PhotoFailure.self) { try get(client, redirect, policy: .publicOnly) }
        #expect(failure?.reason == .blockedAddress)
        #expect(failure?.detail.contains("reached through a redirect") == true, "\(String(describing: failure))")
        #expect(inside.requestCount("/photos/coffee.jpg") == 0)
        #expect(try get(client, redirect, policy: .any).count > 1000)
        #expect(inside.requestCount("/photos/coffee.jpg") == 1)
    }

    @Test("A list's policy comes from where it was fetched: public → restricted, loopback → anything")
    func listOrigin() throws {
        let inside = try LoopbackServer()
        let outside = try LoopbackServer(host: "127.0.0.2")
        let body = Data(plist("<dict><key>a</key><string>a.jpg</string></dict>").utf8)
        inside.setList(body, for: "list.plist")
        outside.setList(body, for: "list.plist")
        #expect(
            try PhotoFetcher().readList(outside.url("/lists/list.plist"), cancellable: Cancellable()).policy
                == .publicOnly)
        #expect(try PhotoFetcher().readList(inside.url("/lists/list.plist"), cancellable: Cancellable()).policy == .any)
        // Through a redirect: any public server on the way restricts the list.
        let redirected = redirect(from: outside, to: inside.url("/lists/list.plist"))
        #expect(try PhotoFetcher().readList(redirected, cancellable: Cancellable()).policy == .publicOnly)
        let fromOutside = try readEntries(PropertyListSource(location: outside.url("/lists/list.plist")))
        #expect(fromOutside.map(\.addressPolicy) == [.publicOnly])
        let fromInside = try readEntries(PropertyListSource(location: inside.url("/lists/list.plist")))
        #expect(fromInside.map(\.addressPolicy) == [.any])
    }

    @Test("A list from a public address: its photos on this computer fail as blocked-address; its public ones load")
    @MainActor func pipeline() async throws {
        let inside = try LoopbackServer()
        let outside = try LoopbackServer(host: "127.0.0.2")
        let photo = inside.url("/photos/coffee.jpg")
        let rows = [
            ("1 loopback", photo.absoluteString),
            ("2 redirected", redirect(from: outside, to: photo).absoluteString),
            ("3 outside", outside.url("/photos/coffee.jpg").absoluteString),
            ("4 localhost", "http://localhost:\(inside.port)/photos/coffee.jpg"),
            ("5 relative", "/photos/coffee.jpg"),
        ]
        let body = Data(
            plist("<dict>\(rows.map { "<key>\($0.0)</key><string>\($0.1)</string>" }.joined())</dict>").utf8)
        outside.setList(body, for: "list.plist")
        inside.setList(body, for: "list.plist")
        for (server, expected) in [
            (outside, [PhotoFailure.Reason.blockedAddress, .blockedAddress, nil, .blockedAddress, nil]),
            (inside, [nil, nil, nil, nil, nil]),
        ] {
            let list = try readEntries(PropertyListSource(location: server.url("/lists/list.plist")))
            #expect(list.map(\.name) == rows.map(\.0))
            let processor = PhotoProcessor(fetcher: PhotoFetcher(), prefetchMargin: 0, maxPixelSize: 80)
            processor.setEntries(list)
            processor.visibleRowsChanged(0..<list.count)
            #expect(
                await waitUntil {
                    processor.records.allSatisfy { $0.state == .failed || $0.state == .filtered }
                        && !processor.hasWorkInFlight
                })
            #expect(processor.records.map { $0.failure?.reason } == expected, "\(server.baseURL)")
            if server === outside {
                #expect(inside.requestCount("/photos/coffee.jpg") == 0)
                #expect(processor.records[0].failure?.summary == "Private address not allowed")
            }
        }
    }
}

/// The one check of the schemes fetched over HTTP.
@Suite struct WebAddressTests {
    @Test("http and https, in any case, are web addresses; files, other schemes and paths are not")
    func webAddresses() {
        for text in ["http://example.org/a.jpg", "https://example.org/", "HTTPS://EXAMPLE.ORG/", "Http://x/"] {
            #expect(URL(string: text)!.isWebAddress, "\(text)")
        }
        for text in ["file:///tmp/a.jpg", "ftp://example.org/a.jpg", "httpx://example.org/", "a.jpg", "data:,x"] {
            #expect(!URL(string: text)!.isWebAddress, "\(text)")
        }
        #expect(!URL(fileURLWithPath: "/tmp/a.jpg").isWebAddress)
        #expect(URL.isWebScheme("HTTP") && !URL.isWebScheme("file"))
    }
}
