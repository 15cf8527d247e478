/// Opens a photo or list URL as a byte stream: `http`/`https` through one shared SoupSession,
/// `file` through GIO. Blocking; call it from worker threads only.
import CGLib
import CSoup
import Foundation
import GLibKit

/// Why a fetch failed, in words a person can act on.
public struct FetchError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public let isCancellation: Bool

    public init(_ description: String, isCancellation: Bool = false) {
        self.description = description
        self.isCancellation = isCancellation
    }

    init(_ error: GLibError) {
        self.init(error.message, isCancellation: error.isCancellation)
    }

    static let cancelled = FetchError("Cancelled", isCancellation: true)
}

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

    /// The underlying session, for features layered on it (caching, logging).

    /// Opens `url` for reading. HTTP statuses other than 2xx are errors.
    public func open(_ url: URL, cancellable: Cancellable) throws(FetchError) -> ObjectRef<GInputStream> {
        switch url.scheme?.lowercased() {
        case "http", "https": return try openHTTP(url, cancellable: cancellable)
        case "file": return try openFile(url, cancellable: cancellable)
        default: throw FetchError("Unsupported address “\(url.absoluteString)”: only http, https and file are supported")
        }
    }

    /// Reads all of `url` (for small documents such as photo lists).
    public func readAll(_ url: URL, cancellable: Cancellable, limit: Int = 16 << 20) throws(FetchError) -> Data {
        let stream = try open(url, cancellable: cancellable)
        var data = Data()
        let buffer = ChunkBuffer()
        while let chunk = try buffer.read(stream, cancellable: cancellable) {
            data.append(contentsOf: chunk)
            if data.count > limit { throw FetchError("“\(url.lastPathComponent)” is larger than \(limit >> 20) MB") }
        }
        g_input_stream_close(stream.pointer, nil, nil)
        return data
    }

    private func openHTTP(_ url: URL, cancellable: Cancellable) throws(FetchError) -> ObjectRef<GInputStream> {
        guard let message = soup_message_new("GET", url.absoluteString) else {
            throw FetchError("Invalid address “\(url.absoluteString)”")
        }
        let msg = ObjectRef(takingOpaque: message)
        let stream = try gioCall { soup_session_send(session.pointer, msg.opaque, cancellable.pointer, $0) }
        guard let stream else { throw FetchError("No response from \(url.host ?? "server")") }
        let owned = ObjectRef(taking: stream)
        let status = soup_message_get_status(msg.opaque)
        guard (200..<300).contains(status.rawValue) else {
            g_input_stream_close(owned.pointer, nil, nil)
            let phrase = soup_message_get_reason_phrase(msg.opaque).map { String(cString: $0) } ?? ""
            throw FetchError("HTTP \(status.rawValue)\(phrase.isEmpty ? "" : " \(phrase)")")
        }
        return owned
    }

    private func openFile(_ url: URL, cancellable: Cancellable) throws(FetchError) -> ObjectRef<GInputStream> {
        let file = ObjectRef(takingOpaque: g_file_new_for_uri(url.absoluteString)!)
        let stream = try gioCall { g_file_read(file.opaque, cancellable.pointer, $0) }
        return ObjectRef(taking: UnsafeMutableRawPointer(stream!).assumingMemoryBound(to: GInputStream.self))
    }
}

/// Calls a GIO-style function, turning its `GError` into a `FetchError`.
func gioCall<R>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> R) throws(FetchError) -> R {
    do { return try withGError(body) } catch { throw FetchError(error) }
}

/// A reusable read buffer for pulling a GInputStream in chunks.
final class ChunkBuffer {
    private let storage: UnsafeMutableRawBufferPointer

    init(size: Int = 64 << 10) {
        storage = .allocate(byteCount: size, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// The next chunk, or nil at the end of the stream.
    func read(_ stream: ObjectRef<GInputStream>, cancellable: Cancellable) throws(FetchError) -> UnsafeRawBufferPointer? {
        let n = try gioCall {
            g_input_stream_read(stream.pointer, storage.baseAddress, gsize(storage.count), cancellable.pointer, $0)
        }
        return n > 0 ? UnsafeRawBufferPointer(rebasing: storage[0..<n]) : nil
    }
}
