import CDecoderSandbox
import Foundation

/// One end of the socket between the app and a decoder helper (`SOCK_SEQPACKET`: messages
/// keep their boundaries, and the end of the stream means the other side is gone).
struct DecoderChannel: Sendable {
    let fd: Int32
    /// Whether a send finds the socket full instead of waiting for room: the app's end, so
    /// that a helper that stops reading cannot hold the app up.
    var sendsWithoutWaiting = false

    /// The most a message may take; requests and replies are a few hundred bytes.
    static let maxMessage = 64 << 10

    enum Received {
        case message(DecoderMessage, fd: Int32?)
        /// The other side closed the socket (or died).
        case closed
    }

    /// A connected pair, both ends close-on-exec.
    static func pair() throws(PhotoFailure) -> (DecoderChannel, DecoderChannel) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw PhotoFailure(
                .decoderCrashed, detail: "No socket for a decoder helper: \(String(cString: strerror(errno)))")
        }
        return (DecoderChannel(fd: ends[0], sendsWithoutWaiting: true), DecoderChannel(fd: ends[1]))
    }

    /// Sends `message`, with `attached` when given; the errno when it could not be sent
    /// (EAGAIN when the other side has stopped reading and `sendsWithoutWaiting`).
    func send(_ message: DecoderMessage, attached: Int32? = nil) -> Int32? {
        guard let data = try? JSONEncoder().encode(message) else { return EINVAL }
        let status = data.withUnsafeBytes {
            cp_channel_send(fd, $0.baseAddress, $0.count, attached ?? -1, sendsWithoutWaiting ? 1 : 0)
        }
        return status == 0 ? nil : status
    }

    /// Receives the next message (blocking). A message that cannot be read is a broken
    /// channel, reported as closed: the other side is not to be trusted any more.
    func receive() -> Received {
        var buffer = [UInt8](repeating: 0, count: Self.maxMessage)
        var attached: Int32 = -1
        let length = buffer.withUnsafeMutableBytes { cp_channel_receive(fd, $0.baseAddress, $0.count, &attached) }
        // (An empty or cut datagram's descriptor was closed as it came in.)
        guard length > 0 else { return .closed }
        guard let message = try? JSONDecoder().decode(DecoderMessage.self, from: Data(buffer.prefix(length))) else {
            if attached >= 0 { Glibc.close(attached) }
            return .closed
        }
        return .message(message, fd: attached >= 0 ? attached : nil)
    }

    /// Waits up to `milliseconds` for a message (or the end); true when one is there.
    func waitReadable(milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, milliseconds) > 0
    }

    func close() { _ = Glibc.close(fd) }
}
