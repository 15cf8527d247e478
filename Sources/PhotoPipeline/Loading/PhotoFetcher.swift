import CGLib
import CSoup
import Foundation
import GLibKit


/// Opens a photo or list URL as a byte stream: `http`/`https` through one shared SoupSession,
/// `file` through GIO. Blocking; call it from worker threads only. Every failure is a
/// `PhotoFailure` with its reason code.
public final class PhotoFetcher: @unchecked Sendable {
    // libsoup 3.2 sessions may send from any thread once configured (done here, in init).
    private let session: ObjectRef<SoupSession>

    /// - Parameters:
    ///   - maxConnections: parallel connections per host (downloads share a host); twice as
    ///     many in all.
    ///   - timeoutSeconds: how long a stalled connection may stay silent.
    public init(maxConnections: Int = PendingOperations.defaultDownloadConcurrency, timeoutSeconds: UInt32 = 30) {
        session = ObjectRef(taking: cp_soup_session_new(
            Int32(maxConnections * 2), Int32(maxConnections), timeoutSeconds, "ClassicPhotos/\(AppInfo.version)"))
    }

    /// Opens `url` for reading. HTTP statuses other than 2xx are errors.
    public func open(_ url: URL, cancellable: Cancellable) throws(PhotoFailure) -> ObjectRef<GInputStream> {
        switch url.scheme?.lowercased() {
        case "http", "https": return try openHTTP(url, cancellable: cancellable)
        case "file": return try openFile(url, cancellable: cancellable)
        default:
            throw PhotoFailure(.unsupported, summary: "Unsupported address",
                               detail: "“\(url.absoluteString)”: only http, https and file addresses can be opened")
        }
    }

    /// Reads all of `url` (for small documents such as photo lists).
    public func readAll(_ url: URL, cancellable: Cancellable, limit: Int = 16 << 20) throws(PhotoFailure) -> Data {
        let stream = try open(url, cancellable: cancellable)
        var data = Data()
        let buffer = ChunkBuffer()
        while let chunk = try buffer.read(stream, cancellable: cancellable) {
            data.append(contentsOf: chunk)
            if data.count > limit {
                throw PhotoFailure(.tooLarge, detail: "“\(url.lastPathComponent)” is larger than \(limit >> 20) MB")
            }
        }
        g_input_stream_close(stream.pointer, nil, nil)
        return data
    }

    private func openHTTP(_ url: URL, cancellable: Cancellable) throws(PhotoFailure) -> ObjectRef<GInputStream> {
        guard let message = soup_message_new("GET", url.absoluteString) else {
            throw PhotoFailure(.invalidAddress, detail: "“\(url.absoluteString)” is not a valid address")
        }
        let msg = ObjectRef(takingOpaque: message)
        let stream = try gioCall(.network) { soup_session_send(session.pointer, msg.opaque, cancellable.pointer, $0) }
        guard let stream else { throw PhotoFailure(.transport, detail: "No response from \(url.host ?? "the server")") }
        let owned = ObjectRef(taking: stream)
        let status = soup_message_get_status(msg.opaque)
        guard (200..<300).contains(status.rawValue) else {
            g_input_stream_close(owned.pointer, nil, nil)
            let phrase = soup_message_get_reason_phrase(msg.opaque).map { String(cString: $0) } ?? ""
            throw PhotoFailure.http(status: Int(status.rawValue), phrase: phrase)
        }
        return owned
    }

    private func openFile(_ url: URL, cancellable: Cancellable) throws(PhotoFailure) -> ObjectRef<GInputStream> {
        let file = ObjectRef(takingOpaque: g_file_new_for_uri(url.absoluteString)!)
        let stream = try gioCall(.file) { g_file_read(file.opaque, cancellable.pointer, $0) }
        return ObjectRef(taking: UnsafeMutableRawPointer(stream!).assumingMemoryBound(to: GInputStream.self))
    }
}

/// Calls a GIO-style function, turning its `GError` into a `PhotoFailure`.
func gioCall<R>(_ origin: PhotoFailure.Origin,
                _ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> R) throws(PhotoFailure) -> R {
    do { return try withGError(body) } catch { throw PhotoFailure(error, origin: origin) }
}

/// A reusable read buffer for pulling a GInputStream in chunks.
final class ChunkBuffer {
    private let storage: UnsafeMutableRawBufferPointer

    init(size: Int = 64 << 10) {
        storage = .allocate(byteCount: size, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// The next chunk, or nil at the end of the stream.
    func read(_ stream: ObjectRef<GInputStream>, cancellable: Cancellable) throws(PhotoFailure) -> UnsafeRawBufferPointer? {
        let n = try gioCall(.stream) {
            g_input_stream_read(stream.pointer, storage.baseAddress, gsize(storage.count), cancellable.pointer, $0)
        }
        return n > 0 ? UnsafeRawBufferPointer(rebasing: storage[0..<n]) : nil
    }
}
