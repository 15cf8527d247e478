import CGLib
import CSoup
import Foundation
import GLibKit

/// Reads a photo or list URL: `http`/`https` through an `HTTPClient` (the app shares one, with
/// its disk cache), `file` through a file descriptor of its own. Blocking; call it from
/// worker threads only. Every failure is a `PhotoFailure` with its reason code.
///
/// What it enforces (see `PhotoLimits`): for HTTP, how long the server may take to answer
/// (`connectSeconds`) and stay silent (`silenceSeconds`), the redirects and the bytes (see
/// `HTTPClient`); for files, a size over the limit (refused before reading), and local files
/// only on this computer and only regular files — never a device, a FIFO or a socket, whose
/// reads could block for ever or never end.
public final class PhotoFetcher: @unchecked Sendable {
    /// Where HTTP goes.
    public let http: HTTPClient
    /// The limits photos and lists fetched through this fetcher have.
    public let limits: PhotoLimits
    /// The memory budget decodes of photos fetched here draw from.
    public let budget: DecodeMemoryBudget
    /// Rows' downloads running with this fetcher (the job is the download's operation), which
    /// the photo viewer joins for their bytes rather than fetching the photo a second time.
    public let rowDownloads = WorkSharing<PhotoRequest, Operation, Data?>()

    /// - Parameters:
    ///   - maxConnections: parallel connections per host (downloads share a host); twice as
    ///     many in all.
    ///   - limits: bytes, pixels, time and redirects per photo and per list.
    ///   - budget: the memory decodes draw from (the app shares one).
    ///   - http: the HTTP client to use (the app's, with its disk cache); nil makes one of
    ///     this fetcher's own, without a cache, with `maxConnections` and the silence limit.
    public init(
        maxConnections: Int = PendingOperations.defaultDownloadConcurrency, limits: PhotoLimits = .standard,
        budget: DecodeMemoryBudget = .shared, http: HTTPClient? = nil
    ) {
        self.limits = limits
        self.budget = budget
        self.http = http ?? HTTPClient(maxConnections: maxConnections, silenceSeconds: limits.silenceSeconds)
    }

    /// Opens `url` for reading; more than `byteLimit` bytes announced (Content-Length, or the
    /// file's size) fails at once. HTTP statuses other than 2xx are errors.
    public func open(
        _ url: URL, cancellable: Cancellable, byteLimit: Int? = nil
    ) throws(PhotoFailure) -> ObjectRef<GInputStream> {
        let limit = byteLimit ?? limits.maxPhotoBytes
        switch url.scheme?.lowercased() {
        case let scheme? where URL.isWebScheme(scheme):
            let data = try fetchHTTP(url, cancellable: cancellable, byteLimit: limit).data
            let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count))! }
            defer { g_bytes_unref(bytes) }
            return ObjectRef(taking: g_memory_input_stream_new_from_bytes(bytes)!)
        case "file": return try Self.openFile(url, cancellable: cancellable, byteLimit: limit)
        default: throw Self.unsupported(url)
        }
    }

    /// Reads all of `url` (for small documents such as photo lists), within `limit` bytes and
    /// the list's deadline (`limits.listSeconds`); over HTTP, reaching only what `policy` allows.
    public func readAll(
        _ url: URL, cancellable: Cancellable, limit: Int? = nil, policy: AddressPolicy = .any
    ) throws(PhotoFailure) -> Data {
        try withListDeadline(cancellable) { child throws(PhotoFailure) in
            try read(url, cancellable: child, limit: limit ?? limits.maxListBytes, policy: policy)
        }
    }

    /// Reads a photo list whole (as `readAll`), with what the photos it names may reach: a web
    /// list is always asked of its server, never taken from the disk cache, so that where it
    /// came from is known (`AddressPolicy.forList(at:reached:)`).
    public func readList(
        _ url: URL, cancellable: Cancellable
    ) throws(PhotoFailure) -> (data: Data, policy: AddressPolicy) {
        guard url.isWebAddress else {
            return (try readAll(url, cancellable: cancellable), AddressPolicy.forList(at: url))
        }
        let response = try withListDeadline(cancellable) { child throws(PhotoFailure) in
            try http.fetch(
                url, cancellable: child, byteLimit: limits.maxListBytes, connectSeconds: limits.connectSeconds,
                maxRedirects: limits.maxRedirects, useCache: false)
        }
        return (response.data, AddressPolicy.forList(at: url, reached: response.reached))
    }

    /// Runs `body` with a child of `cancellable` that the list's deadline cancels, reporting
    /// that as `timeout`.
    private func withListDeadline<T>(
        _ cancellable: Cancellable, _ body: (Cancellable) throws(PhotoFailure) -> T
    ) throws(PhotoFailure) -> T {
        let link = LinkedCancellable(parent: cancellable)
        let deadline = Deadline(seconds: limits.listSeconds, cancelling: link.child)
        defer { deadline.stop(); link.disconnect() }
        do throws(PhotoFailure) {
            return try body(link.child)
        } catch {
            if error.isCancellation, deadline.stop(), !cancellable.isCancelled {
                throw PhotoFailure(
                    .timeout, detail: "The list took longer than \(PhotoLimits.seconds(limits.listSeconds)) to load")
            }
            throw error
        }
    }

    /// Reads all of `url`, failing as `too-large` as soon as more than `limit` bytes are
    /// announced or have arrived. No deadline of its own: the caller's `cancellable` has it.
    public func read(
        _ url: URL, cancellable: Cancellable, limit: Int, policy: AddressPolicy = .any
    ) throws(PhotoFailure) -> Data {
        if url.isWebAddress {
            return try fetchHTTP(url, cancellable: cancellable, byteLimit: limit, policy: policy).data
        }
        let stream = try open(url, cancellable: cancellable, byteLimit: limit)
        var data = Data()
        let buffer = ChunkBuffer()
        while let chunk = try buffer.read(stream, cancellable: cancellable) {
            data.append(contentsOf: chunk)
            if data.count > limit {
                throw PhotoFailure(
                    .tooLarge, detail: "“\(url.lastPathComponent)” is larger than \(PhotoLimits.megabytes(limit))")
            }
        }
        g_input_stream_close(stream.pointer, nil, nil)
        return data
    }

    /// The failure of an address whose scheme is none of http, https and file.
    static func unsupported(_ url: URL) -> PhotoFailure {
        PhotoFailure(
            .unsupportedAddress,
            detail: "“\(url.absoluteString)”: only http, https and file addresses can be opened")
    }

    /// Fetches a photo on the web whole, with what the server said about keeping it; only from
    /// addresses `policy` allows (the photo's `PhotoEntry.addressPolicy`).
    public func fetchHTTP(
        _ url: URL, cancellable: Cancellable, byteLimit: Int, policy: AddressPolicy = .any
    ) throws(PhotoFailure) -> HTTPResponse {
        try http.fetch(
            url, cancellable: cancellable, byteLimit: byteLimit, connectSeconds: limits.connectSeconds,
            maxRedirects: limits.maxRedirects, policy: policy)
    }

    /// The first `bytes` bytes of a photo on the web, or the whole photo where the server
    /// sends it whole (see `HTTPClient.fetchHead`); only from addresses `policy` allows.
    public func fetchHead(
        _ url: URL, bytes: Int, cancellable: Cancellable, byteLimit: Int, policy: AddressPolicy = .any
    ) throws(PhotoFailure) -> HTTPHead {
        try http.fetchHead(
            url, bytes: bytes, cancellable: cancellable, byteLimit: byteLimit, connectSeconds: limits.connectSeconds,
            maxRedirects: limits.maxRedirects, policy: policy)
    }

    /// Opens a local file: on this computer, and a regular file (checked on the path and
    /// again on the open descriptor, so it cannot be swapped in between). The file is opened
    /// without blocking, so a FIFO put in its place cannot hold the thread until a writer comes.
    public static func openFile(
        _ url: URL, cancellable: Cancellable, byteLimit: Int
    ) throws(PhotoFailure) -> ObjectRef<GInputStream> {
        var hostname: UnsafeMutablePointer<CChar>?
        let pathPointer: UnsafeMutablePointer<CChar>?
        do throws(GLibError) {
            pathPointer = try withGError { g_filename_from_uri(url.absoluteString, &hostname, $0) }
        } catch {
            throw PhotoFailure(
                .invalidAddress, detail: "“\(url.absoluteString)” is not a valid file address: \(error.message)")
        }
        defer { g_free(hostname); g_free(pathPointer) }
        if let hostname, String(cString: hostname).lowercased() != "localhost" {
            throw PhotoFailure(
                .blockedScheme,
                detail: "“\(url.absoluteString)” names a file on another computer (\(String(cString: hostname)))")
        }
        guard let pathPointer else {
            throw PhotoFailure(.invalidAddress, detail: "“\(url.absoluteString)” is not a valid file address")
        }
        let path = String(cString: pathPointer)
        var info = stat()
        guard stat(pathPointer, &info) == 0 else { throw Self.fileFailure(errno, path: path) }
        try Self.requireRegular(info, path: path, byteLimit: byteLimit)
        if cancellable.isCancelled { throw PhotoFailure.cancelled }
        let fd = Glibc.open(pathPointer, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.fileFailure(errno, path: path) }
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw Self.fileFailure(code, path: path)
        }
        do throws(PhotoFailure) {
            try Self.requireRegular(info, path: path, byteLimit: byteLimit)
        } catch {
            close(fd)
            throw error
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        let stream = g_unix_input_stream_new(fd, 1)!
        return ObjectRef(taking: GObjectCast.upcast(stream, to: GInputStream.self))
    }

    /// Reads a local file whole (see `openFile` for what is checked).
    public static func readFile(_ url: URL, cancellable: Cancellable, byteLimit: Int) throws(PhotoFailure) -> Data {
        let stream = try openFile(url, cancellable: cancellable, byteLimit: byteLimit)
        defer { g_input_stream_close(stream.pointer, nil, nil) }
        var data = Data()
        let buffer = ChunkBuffer(size: 1 << 20)
        while let chunk = try buffer.read(stream, cancellable: cancellable) {
            data.append(contentsOf: chunk)
            if data.count > byteLimit {
                throw PhotoFailure(
                    .tooLarge, detail: "“\(url.lastPathComponent)” is larger than \(PhotoLimits.megabytes(byteLimit))")
            }
        }
        return data
    }

    private static func requireRegular(_ info: stat, path: String, byteLimit: Int) throws(PhotoFailure) {
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            if Int(info.st_size) > byteLimit {
                throw PhotoFailure(
                    .tooLarge,
                    detail: "“\(path)” has \(PhotoLimits.megabytes(Int(info.st_size))); "
                        + "at most \(PhotoLimits.megabytes(byteLimit)) may be read")
            }
        case S_IFDIR:
            throw PhotoFailure(
                .folder, detail: "“\(path)” is a folder")
        default:
            throw PhotoFailure(
                .notRegularFile,
                detail: "“\(path)” is a device, FIFO or socket, not a regular file")
        }
    }

    private static func fileFailure(_ code: Int32, path: String) -> PhotoFailure {
        let message = String(cString: strerror(code))
        switch code {
        case ENOENT, ENOTDIR: return PhotoFailure(.missing, detail: "“\(path)”: \(message)")
        default: return PhotoFailure(.unreadable, detail: "“\(path)”: \(message)")
        }
    }
}

/// Calls a GIO-style function, turning its `GError` into a `PhotoFailure`.
func gioCall<R>(
    _ origin: PhotoFailure.Origin,
    _ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> R
) throws(PhotoFailure) -> R {
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
    func read(
        _ stream: ObjectRef<GInputStream>, cancellable: Cancellable
    ) throws(PhotoFailure) -> UnsafeRawBufferPointer? {
        let n = try gioCall(.stream) {
            g_input_stream_read(stream.pointer, storage.baseAddress, gsize(storage.count), cancellable.pointer, $0)
        }
        return n > 0 ? UnsafeRawBufferPointer(rebasing: storage[0..<n]) : nil
    }
}
