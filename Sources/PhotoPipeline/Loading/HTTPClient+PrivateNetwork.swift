import CGLib
import CSoup
import Foundation
import GLibKit

extension HTTPClient {
    /// The private-network protection's watch on the session's connections: the connection of
    /// every request the session sends, the disk cache's revalidations included, is checked by
    /// `connected(_:to:)` before anything is written on it: a new one once connected (before
    /// TLS), any one just before the request is written. Made, run and stopped on the network
    /// thread (the session's signals are emitted on its context); the core holds it until after
    /// the session is gone, and its handlers, dropped by `stop` before that, hold it unowned.
    final class ConnectionWatch {
        /// The transfers in flight, the restricted of which are blocked on a local connection.
        private let transfers: Transfers
        /// Hosts (`host:port`) found on this computer or its network when connected to; a
        /// restricted request to one of them never reuses a connection.
        private var localHosts: Set<String> = []
        /// The session's handlers, and those of each message it has queued.
        private var sessionConnections: [SignalConnection] = []
        private var messageConnections: [OpaquePointer: [SignalConnection]] = [:]

        init(session: UnsafeMutablePointer<SoupSession>, transfers: Transfers) {
            self.transfers = transfers
            sessionConnections = [
                SignalConnection.connect(
                    UnsafeMutableRawPointer(session), "request-queued",
                    pointer: { [unowned self] message in watch(OpaquePointer(message!)) }),
                // Done with the message: its handlers go (the message may live on a while).
                SignalConnection.connect(
                    UnsafeMutableRawPointer(session), "request-unqueued",
                    pointer: { [unowned self] message in messageConnections[OpaquePointer(message!)] = nil }),
            ]
        }

        /// Drops every handler, before the session goes.
        func stop() {
            messageConnections = [:]
            sessionConnections = []
        }

        /// Connects the checks of `message`'s connection, until the session is done with it.
        private func watch(_ message: OpaquePointer) {
            let object = UnsafeMutableRawPointer(message)
            messageConnections[message] = [
                SignalConnection.connect(
                    object, "network-event",
                    intPointer: { [unowned self] event, stream in
                        guard event == Int32(bitPattern: G_SOCKET_CLIENT_CONNECTED.rawValue), let stream,
                            let connection = GObjectCast.instance(
                                stream, of: g_socket_connection_get_type(), as: GSocketConnection.self),
                            let address = g_socket_connection_get_remote_address(connection, nil)
                        else { return }
                        defer { g_object_unref(address) }
                        connected(message, to: address)
                    }),
                SignalConnection.connect(object, "starting") { [unowned self] in
                    guard let address = soup_message_get_remote_address(message) else { return }
                    connected(message, to: address)
                },
            ]
        }

        /// `message`'s connection goes to `address`: if that is on this computer or its network,
        /// the restricted transfers sending `message` (or, for the disk cache's revalidation,
        /// its address) are blocked, which cancels it before anything more is written.
        private func connected(_ message: OpaquePointer, to address: UnsafeMutablePointer<GSocketAddress>) {
            guard let peer = AddressScope.of(socketAddress: address), peer.scope == .local else { return }
            localHosts.insert(Self.hostKey(message))
            let restricted = transfers.jobs.filter { $0.policy == .publicOnly }
            for transfer in restricted where transfer.sends(message) { transfer.block(peer: peer.text) }
        }

        /// Whether a restricted request for `message`'s host must have a connection of its own.
        func needsOwnConnection(_ message: OpaquePointer) -> Bool { localHosts.contains(Self.hostKey(message)) }

        private static func hostKey(_ message: OpaquePointer) -> String {
            let uri = soup_message_get_uri(message)
            return "\(g_uri_get_host(uri).map { String(cString: $0) } ?? ""):\(g_uri_get_port(uri))"
        }
    }
}
