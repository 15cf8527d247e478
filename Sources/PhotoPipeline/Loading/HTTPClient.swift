import CGLib
import CSoup
import Foundation
import GLibKit

/// All of the app's HTTP, on one thread of its own that owns a `SoupSession` and drives it with
/// libsoup's asynchronous calls, the way libsoup 3 expects a session to be used.
///
/// Why a thread: libsoup 3.2's HTTP disk cache (`SoupCache`) answers only asynchronous
/// requests made on the session's own main context; a blocking `soup_session_send()` from a
/// worker always goes to the network. So workers ask here and wait: `get` blocks the calling
/// thread (a download operation's) until the whole body has arrived, failed or been cancelled.
///
/// What it adds to a plain GET:
/// - **A disk cache** (optional): `SoupCache` in a folder of its own, bounded in size,
///   honouring the server's caching headers; its index is written every few seconds after a
///   change and on `close()`, so a later launch finds it.
/// - **Coalescing**: requests for the same address (and byte limit) made while one is in
///   flight wait for that one instead of starting another; the transfer is aborted only
///   when every request waiting for it has been cancelled.
/// - **Limits**: redirects followed here, each counted and only to `http`/`https`; a
///   Content-Length over the byte limit refused before reading, and the body counted as it
///   arrives; the server's answer bounded in time (`connectSeconds`), and the silence
///   mid-transfer by the session's I/O timeout.
/// - **The private-network protection** (`AddressPolicy.publicOnly`, for photos of a list from
///   the web): an address, or a redirect's, whose host is on this computer or its network as
///   written fails as `blocked-address` before any request. For names, the address connected
///   to is checked, and the transfer cancelled before its request is written: on a new
///   connection as soon as it is made (`network-event`, before TLS), on a reused one when
///   libsoup is about to write the request (`starting`; HTTP/1 writes nothing after a cancel
///   there, HTTP/2 would, so once a host is known to be at such an address, restricted
///   requests to it always get a connection of their own). The disk cache's revalidations of
///   a restricted transfer's address are checked the same way. The address is checked again
///   when the answer's headers arrive, before the body is read. A proxy's address is not
///   checked: only the proxy knows where the server is.
///
/// Its parts: the network thread with its session, disk cache and transfers in flight (`Core`),
/// the watch on the session's connections for the private-network protection
/// (`ConnectionWatch`), one GET with its redirects (`Transfer`), the request for a photo's
/// first bytes and the checks of its answer (`HeadRange`), and what an answer is and how
/// long it keeps (`HTTPResponse`, `freshUntil`).
public final class HTTPClient: Sendable {
    private let core: Core

    /// - Parameters:
    ///   - maxConnections: parallel connections per host; twice as many in all.
    ///   - silenceSeconds: the longest a transfer may go without a byte (libsoup's timeout).
    ///   - cacheDirectory: where the disk cache lives (nil: no cache).
    ///   - cacheBytes: the most the disk cache may hold.
    public init(
        maxConnections: Int = PendingOperations.defaultDownloadConcurrency, silenceSeconds: Double = 20,
        cacheDirectory: URL? = nil, cacheBytes: Int = HTTPClient.defaultCacheBytes
    ) {
        let silence = UInt32(max(1, min(Double(UInt32.max), silenceSeconds.rounded(.up))))
        core = Core(
            maxConnections: maxConnections, silence: silence, cacheDirectory: cacheDirectory, cacheBytes: cacheBytes)
    }

    deinit { core.stop(wait: false) }

    /// 256 MB: a few hundred camera photos, or thousands of web-sized ones.
    public static let defaultCacheBytes = 256 << 20

    /// The app's own cache folder for HTTP (`$XDG_CACHE_HOME/classic-photos/http`).
    public static var standardCacheDirectory: URL {
        URL(fileURLWithPath: String(cString: g_get_user_cache_dir())).appendingPathComponent("classic-photos/http")
    }

    /// Initialises the GObject types of libsoup's sessions and of GIO's sockets, addresses and
    /// files, once per process; a thread that calls this while another is doing it waits. Call
    /// it before making anything of libsoup's on a thread of its own (see `Core.init` for the
    /// deadlock it avoids); the tests' loopback server does.
    public static func prepareTypes() { _ = typesPrepared }
    private static let typesPrepared: Void = cp_soup_prepare_types()

    /// Whether this client keeps a disk cache.
    public var hasCache: Bool { core.cacheDirectory != nil }

    /// Fetches `url` whole. Blocks until the body has arrived; call it from worker threads.
    ///
    /// - Parameters:
    ///   - byteLimit: more bytes than this, announced or received, fail as `too-large`.
    ///   - connectSeconds: the server must answer (status and headers) within this time.
    ///   - maxRedirects: redirects followed before failing as `redirects`.
    ///   - policy: which addresses may be reached (`blocked-address` otherwise).
    public func get(
        _ url: URL, cancellable: Cancellable, byteLimit: Int, connectSeconds: Double,
        maxRedirects: Int, policy: AddressPolicy = .any
    ) throws(PhotoFailure) -> Data {
        try fetch(
            url, cancellable: cancellable, byteLimit: byteLimit, connectSeconds: connectSeconds,
            maxRedirects: maxRedirects, policy: policy
        ).data
    }

    /// Like `get`, with what the response said about keeping it and where it came from.
    /// `useCache: false` asks the server whatever the disk cache holds, and keeps nothing
    /// (for a list, whose policy depends on where it came from: see `HTTPResponse.reached`).
    public func fetch(
        _ url: URL, cancellable: Cancellable, byteLimit: Int, connectSeconds: Double,
        maxRedirects: Int, policy: AddressPolicy = .any, useCache: Bool = true
    ) throws(PhotoFailure) -> HTTPResponse {
        try transfer(
            url, head: nil, cancellable: cancellable, byteLimit: byteLimit, connectSeconds: connectSeconds,
            maxRedirects: maxRedirects, policy: policy, useCache: useCache)
    }

    /// Asks for the first `bytes` bytes of `url` only (`Range: bytes=0-…`), for what a photo's
    /// head holds (the thumbnail in a camera JPEG's EXIF block). A server that ignores the range
    /// answers with the whole body, which is read as `fetch` reads it, with no second request;
    /// a 206 whose `Content-Range` is not the start of the photo, or disagrees with its body,
    /// fails as `transport`. Limits, redirects and deadlines are `fetch`'s.
    ///
    /// The disk cache cannot mistake a head for the photo: `SoupCache` keeps no 206 response
    /// (libsoup 3.2 judges partial content uncacheable), and a request carrying `Range` is
    /// not answered from a cached entry, so `fetch` after a head gets the whole photo, from
    /// the network or from an earlier whole response (both tested).
    public func fetchHead(
        _ url: URL, bytes: Int, cancellable: Cancellable, byteLimit: Int, connectSeconds: Double,
        maxRedirects: Int, policy: AddressPolicy = .any
    ) throws(PhotoFailure) -> HTTPHead {
        let response = try transfer(
            url, head: max(1, bytes), cancellable: cancellable, byteLimit: byteLimit,
            connectSeconds: connectSeconds, maxRedirects: maxRedirects, policy: policy, useCache: true)
        guard let total = response.partialOf else { return .whole(response) }
        // All of it came: it is the whole photo after all.
        if total > 0, response.data.count == total {
            var whole = response
            whole.partialOf = nil
            return .whole(whole)
        }
        return .partial(response.data, totalBytes: total > 0 ? total : nil, freshUntil: response.freshUntil)
    }

    private func transfer(
        _ url: URL, head: Int?, cancellable: Cancellable, byteLimit: Int, connectSeconds: Double,
        maxRedirects: Int, policy: AddressPolicy, useCache: Bool
    ) throws(PhotoFailure) -> HTTPResponse {
        if cancellable.isCancelled { throw PhotoFailure.cancelled }
        let request = TransferRequest(url: url, head: head, byteLimit: byteLimit, policy: policy, useCache: useCache)
        let ticket = core.join(request) { work in
            Transfer(
                core: core, work: work, url: url, byteLimit: byteLimit, connectSeconds: connectSeconds,
                maxRedirects: maxRedirects, head: head, policy: policy, useCache: useCache)
        }
        // Cancelling the request lets its waiter go at once (on the cancelling thread).
        let handler = cancellable.onCancel { [core] in core.leave(ticket) }
        let result = ticket.wait()
        handler.disconnect()
        return try result.get()
    }

    /// Empties the disk cache (the Clear Cache action). Returns once it is done.
    public func clearCache() {
        core.runAndWait { core in
            guard let cache = core.cache else { return }
            soup_cache_clear(cache)
            soup_cache_dump(cache)
        }
    }

    /// Waits until the disk cache has finished writing the bodies it is copying (it writes
    /// them a moment after each transfer ends).
    func flushCache() {
        core.runAndWait { core in
            if let cache = core.cache { soup_cache_flush(cache) }
        }
    }

    /// How many bytes the disk cache holds now, as its folder's files add up.
    public var cacheSize: Int { core.cacheDirectory.map(DiskUsage.bytes(under:)) ?? 0 }

    /// How many requests wait for transfers in flight now, those that share one counted each
    /// (for tests).
    var requestsWaiting: Int { core.requestsWaiting }

    /// Aborts every transfer, writes the cache's index and ends the thread; waits for that.
    /// Requests made afterwards fail as cancelled.
    public func close() { core.stop(wait: true) }
}
