import CGLib
import CSoup
import Foundation
import GLibKit
import Synchronization

/// A whole response body, and until when it may be used without asking the server again.
public struct HTTPResponse: Sendable {
    public let data: Data
    /// From the response's caching headers; nil if it may not be kept.
    public let freshUntil: Date?
    /// For the first bytes of a photo (`HTTPClient.fetchHead`) that the server sent alone: the
    /// whole photo's size (0 when the server did not say). Nil for a whole body.
    public var partialOf: Int? = nil
    /// Where the servers that answered are (the redirects' too): `.local` if all are on this
    /// computer or its network, `.public` if any is not; nil if none was seen (the answer came
    /// from the disk cache, or through a proxy).
    public var reached: AddressScope? = nil

    public init(data: Data, freshUntil: Date?, partialOf: Int? = nil) {
        self.data = data
        self.freshUntil = freshUntil
        self.partialOf = partialOf
    }
}

/// What a request for the first bytes of a photo got.
public enum HTTPHead: Sendable {
    /// The bytes asked for alone (a 206 whose `Content-Range` starts at 0 and matches the
    /// body), with the caching headers and the photo's whole size (nil if not given).
    case partial(Data, totalBytes: Int?, freshUntil: Date?)
    /// The whole photo: the server ignored `Range` (200), or the photo is no longer than what
    /// was asked for.
    case whole(HTTPResponse)
}

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

    /// Until when a response may be used without asking the server again, from its
    /// `Cache-Control: max-age` (less its `Age`) or else its `Expires` (against its `Date`);
    /// nil when it says nothing, or `no-store` or `no-cache`.
    static func freshUntil(
        cacheControl: String?, age: String?, expires: String?, date: String?, now: Date = Date()
    ) -> Date? {
        let directives = (cacheControl ?? "").lowercased().split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        if directives.contains(where: { $0 == "no-store" || $0 == "no-cache" }) { return nil }
        if let maxAge = directives.lazy.compactMap({ $0.hasPrefix("max-age=") ? Double($0.dropFirst(8)) : nil }).first {
            let lifetime = maxAge - (age.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? 0)
            return lifetime > 0 ? now.addingTimeInterval(lifetime) : nil
        }
        guard let expires = expires.flatMap(Self.httpDate) else { return nil }
        let lifetime = expires.timeIntervalSince(date.flatMap(Self.httpDate) ?? now)
        return lifetime > 0 ? now.addingTimeInterval(lifetime) : nil
    }

    private static func httpDate(_ text: String) -> Date? {
        guard let parsed = soup_date_time_new_from_http_string(text) else { return nil }
        defer { g_date_time_unref(parsed) }
        return Date(timeIntervalSince1970: TimeInterval(g_date_time_to_unix(parsed)))
    }

    // MARK: - The network thread

    /// What one transfer is: a head and a whole body are different results, and so are
    /// answers under different limits or policies, or past the cache; never one transfer for two.
    fileprivate struct TransferRequest: Hashable, Sendable {
        let url: URL
        /// How many bytes from the start are asked for (nil: the whole body).
        let head: Int?
        let byteLimit: Int
        let policy: AddressPolicy
        let useCache: Bool
    }

    /// Requests for the same transfer while it is in flight share it.
    fileprivate typealias Transfers = WorkSharing<TransferRequest, Transfer, HTTPResponse>

    /// The thread, its main context, the session and the transfers in flight.
    fileprivate final class Core: @unchecked Sendable {
        let context: OpaquePointer
        private let loop: OpaquePointer
        let cacheDirectory: URL?
        // Set on the network thread before its loop runs (which is when requests, posted to the
        // context, start); used only there.
        var session: UnsafeMutablePointer<SoupSession>?
        var cache: UnsafeMutablePointer<SoupCache>?
        /// Whether the cache changed since its index was last written (network thread only).
        var cacheChanged = false
        /// Hosts (`host:port`) found on this computer or its network when connected to; a
        /// restricted request to one of them never reuses a connection (network thread only).
        private var localHosts: Set<String> = []
        /// The session's handlers, and those of each message it has queued (network thread only).
        private var sessionConnections: [SignalConnection] = []
        private var messageConnections: [OpaquePointer: [SignalConnection]] = [:]

        /// The transfers in flight, and the requests waiting for each.
        private let transfers = Transfers()
        private let ended = DispatchSemaphore(value: 0)
        private let stopping = Atomic<Bool>(false)

        init(maxConnections: Int, silence: UInt32, cacheDirectory: URL?, cacheBytes: Int) {
            context = g_main_context_new()
            loop = g_main_loop_new(context, 0)
            self.cacheDirectory = cacheDirectory
            // The caller waits while the thread sets up. GLib 2.74 can deadlock when two threads
            // initialise GObject types for the first time at once, and the app hung at start-up
            // now and then (once in 16 launches under load, none in 200 the next time): this
            // thread was in the session's class initialisation, holding GLib's class lock, and
            // waited for the socket address type, which the main thread, connecting to D-Bus,
            // was registering and which needed that lock. So the session, the cache and the
            // types their work uses are made here while the main thread waits (1–3 ms); the
            // cache's index is read after (it makes no new types, and a full cache of 4,500
            // web photos took 320 ms to read).
            let ready = DispatchSemaphore(value: 0)
            let thread = Thread { [self] in
                HTTPClient.prepareTypes()
                // A session belongs to the thread-default context it was made in.
                g_main_context_push_thread_default(context)
                session = cp_soup_session_new(
                    Int32(maxConnections * 2), Int32(maxConnections), silence,
                    "ClassicPhotos/\(AppInfo.version)")
                watchConnections()
                if let cacheDirectory {
                    try? FileManager.default.createDirectory(
                        at: cacheDirectory, withIntermediateDirectories: true,
                        attributes: [.posixPermissions: 0o700])
                    let made = soup_cache_new(cacheDirectory.path, SOUP_CACHE_SINGLE_USER)!
                    soup_cache_set_max_size(made, guint(clamping: cacheBytes))
                    soup_session_add_feature(session, OpaquePointer(made))
                    cache = made
                }
                ready.signal()
                // Requests posted meanwhile wait: the loop runs once the index is read.
                if let cache { soup_cache_load(cache) }
                // The cache's index is written a few seconds after it changed, so that a
                // process that is killed loses little.
                let dump = MainLoopSource(.timeout(milliseconds: 5000), on: context) { [self] in
                    if cacheChanged, let cache {
                        soup_cache_flush(cache)
                        soup_cache_dump(cache)
                        cacheChanged = false
                    }
                    return .continue
                }
                g_main_loop_run(loop)
                dump.cancel()
                if let cache {
                    // Bodies still being written to the cache are finished first.
                    soup_cache_flush(cache)
                    soup_cache_dump(cache)
                    g_object_unref(UnsafeMutableRawPointer(cache))
                }
                // The session's last callbacks (aborted transfers) run before it goes.
                soup_session_abort(session)
                while g_main_context_iteration(context, 0) != 0 {}
                messageConnections = [:]
                sessionConnections = []
                g_object_unref(session)
                g_main_context_pop_thread_default(context)
                ended.signal()
            }
            thread.name = "HTTP"
            thread.start()
            ready.wait()
        }

        deinit {
            g_main_loop_unref(loop)
            g_main_context_unref(context)
        }

        /// Has the connection of every request the session sends, the disk cache's revalidations
        /// included, checked by `connected(_:to:)` before anything is written on it: a new one
        /// once connected (before TLS), any one just before the request is written. The
        /// handlers are connected, run and dropped on this thread (the session's signals are
        /// emitted on its context); the core outlives the session, so they hold it unowned.
        private func watchConnections() {
            sessionConnections = [
                SignalConnection.connect(
                    UnsafeMutableRawPointer(session!), "request-queued",
                    pointer: { [unowned self] message in watch(OpaquePointer(message!)) }),
                // Done with the message: its handlers go (the message may live on a while).
                SignalConnection.connect(
                    UnsafeMutableRawPointer(session!), "request-unqueued",
                    pointer: { [unowned self] message in messageConnections[OpaquePointer(message!)] = nil }),
            ]
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

        /// Joins the transfer in flight for `request`, or a new one (`make`), which is started on
        /// the network thread. A stopped client fails the request at once.
        func join(_ request: TransferRequest, make: (Transfers.Work) -> Transfer) -> Transfers.Ticket {
            let ticket = transfers.join(request, make: make)
            if ticket.started {
                MainLoopSource.attachDetached(.idle, on: context) {
                    ticket.job.start()
                    return .remove
                }
            }
            return ticket
        }

        /// How many requests wait for the transfers in flight.
        var requestsWaiting: Int { transfers.waiting }

        /// A request was cancelled: it stops waiting now, and a transfer nobody waits for any
        /// more is aborted.
        func leave(_ ticket: Transfers.Ticket) {
            if transfers.leave(ticket) { ticket.job.abort() }
        }

        /// A transfer ended: every request still waiting for it gets its result.
        func finish(_ transfer: Transfer, _ result: Result<HTTPResponse, PhotoFailure>) {
            if case .success = result { cacheChanged = true }
            transfers.finish(transfer.work, result)
        }

        /// Runs `body` on the network thread and waits for it.
        func runAndWait(_ body: @escaping @Sendable (Core) -> Void) {
            let done = DispatchSemaphore(value: 0)
            guard !transfers.isClosed else { return }
            MainLoopSource.attachDetached(.idle, on: context) { [self] in
                body(self)
                done.signal()
                return .remove
            }
            done.wait()
        }

        func stop(wait: Bool) {
            for transfer in transfers.close() { transfer.abort() }
            guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
            // Through the context, so that a stop before the loop has started is not lost.
            MainLoopSource.attachDetached(.idle, on: context) { [self] in
                g_main_loop_quit(loop)
                return .remove
            }
            if wait { ended.wait() }
        }
    }

    /// One GET on the network thread, with its redirects, read to the end into memory.
    fileprivate final class Transfer: @unchecked Sendable {
        /// What the requests waiting for this transfer share.
        let work: Transfers.Work
        let cancellable = Cancellable()
        private unowned let core: Core
        private var address: URL
        private let byteLimit: Int
        private let connectSeconds: Double
        private let maxRedirects: Int
        /// How many bytes from the start are asked for (nil: the whole body).
        private let head: Int?
        let policy: AddressPolicy
        private let useCache: Bool
        // Network thread only:
        /// For a 206: the whole photo's size (0 if unknown) and the last byte the body ends at.
        private var partial: (total: Int, last: Int)?
        private var redirects = 0
        private var message: OpaquePointer?
        private var stream: UnsafeMutablePointer<GInputStream>?
        private var body = Data()
        /// The timer that gives up when the server has not answered in time, and whether it did.
        private var answerTimer: MainLoopSource?
        private var answerTimedOut = false
        private var freshUntil: Date?
        /// Where the servers that answered are (see `HTTPResponse.reached`).
        private var reached: AddressScope?
        /// Why the transfer was stopped when it connected to a blocked address.
        private var blocked: PhotoFailure?

        init(
            core: Core, work: Transfers.Work, url: URL, byteLimit: Int, connectSeconds: Double, maxRedirects: Int,
            head: Int?,
            policy: AddressPolicy, useCache: Bool
        ) {
            self.head = head
            self.policy = policy
            self.useCache = useCache
            self.core = core
            self.work = work
            self.address = url
            self.byteLimit = byteLimit
            self.connectSeconds = connectSeconds
            self.maxRedirects = maxRedirects
        }

        deinit {
            if let message { g_object_unref(UnsafeMutableRawPointer(message)) }
            if let stream { g_object_unref(stream) }
        }

        private static let redirectStatuses: Set<UInt32> = [301, 302, 303, 307, 308]
        private var host: String { address.host ?? "The server" }

        func start() {
            guard !cancellable.isCancelled else { return end(.failure(.cancelled)) }
            if policy == .publicOnly, AddressScope.ofHost(address.host ?? "") == .local {
                return end(.failure(AddressPolicy.blocked(address, redirected: redirects > 0)))
            }
            guard let made = soup_message_new("GET", address.absoluteString) else {
                return end(
                    .failure(
                        PhotoFailure(.invalidAddress, detail: "“\(address.absoluteString)” is not a valid address")))
            }
            if let message { g_object_unref(UnsafeMutableRawPointer(message)) }
            message = made
            soup_message_add_flags(made, SOUP_MESSAGE_NO_REDIRECT)
            if policy == .publicOnly, core.needsOwnConnection(made) {
                soup_message_add_flags(made, SOUP_MESSAGE_NEW_CONNECTION)
            }
            if !useCache { soup_message_disable_feature(made, soup_cache_get_type()) }
            if let head { soup_message_headers_set_range(soup_message_get_request_headers(made), 0, goffset(head - 1)) }
            answerTimer?.cancel()
            answerTimedOut = false
            if connectSeconds > 0, connectSeconds.isFinite {
                let ms = UInt32(min(connectSeconds * 1000, Double(UInt32.max)).rounded(.up))
                answerTimer = MainLoopSource(.timeout(milliseconds: ms), on: core.context) { [weak self] in
                    self?.answerTimedOut = true
                    self?.cancellable.cancel()
                    return .remove
                }
            }
            // The transfer lives until its answer came.
            let callback: GAsyncReadyCallback = { _, result, data in
                CallbackData.take(data, as: Transfer.self).sent(result)
            }
            soup_session_send_async(
                core.session, made, G_PRIORITY_DEFAULT, cancellable.pointer, callback,
                CallbackData.retain(self))
        }

        private func sent(_ result: OpaquePointer?) {
            var error: UnsafeMutablePointer<GError>?
            let sent = soup_session_send_finish(core.session, result, &error)
            answerTimer?.cancel()
            answerTimer = nil
            let timedOut = answerTimedOut
            if let blocked {
                if let error { g_error_free(error) }
                if let sent { g_object_unref(sent) }
                return end(.failure(blocked))
            }
            if let error {
                let failure = PhotoFailure(GLibError(consuming: error), origin: .network)
                if timedOut, failure.isCancellation {
                    return end(
                        .failure(
                            PhotoFailure(
                                .timeout, detail: "\(host) did not answer within \(PhotoLimits.seconds(connectSeconds))"
                            )))
                }
                return end(.failure(failure))
            }
            guard let sent, let message else {
                return end(.failure(PhotoFailure(.transport, detail: "No response from \(host)")))
            }
            stream = sent
            if let address = soup_message_get_remote_address(message),
                let peer = AddressScope.of(socketAddress: address)
            {
                reached = reached == .public ? .public : peer.scope
                if policy == .publicOnly, peer.scope == .local {
                    dropStream()
                    return end(
                        .failure(AddressPolicy.blocked(self.address, peer: peer.text, redirected: redirects > 0)))
                }
            }
            let status = soup_message_get_status(message).rawValue
            let headers = soup_message_get_response_headers(message)
            if Self.redirectStatuses.contains(status) {
                dropStream()
                let location = headers.flatMap { soup_message_headers_get_one($0, "Location") }.map {
                    String(cString: $0)
                }
                guard let location, let target = URL(string: location, relativeTo: address)?.absoluteURL else {
                    return end(.failure(PhotoFailure.http(status: Int(status), phrase: "without a usable Location")))
                }
                guard target.isWebAddress else {
                    return end(
                        .failure(
                            PhotoFailure(
                                .blockedScheme,
                                detail: "\(host) redirected to “\(location)”, which is not an http or https address")))
                }
                redirects += 1
                if redirects > maxRedirects {
                    return end(
                        .failure(
                            PhotoFailure(
                                .redirects,
                                detail: "More than \(maxRedirects) redirects, the last to \(target.absoluteString)")))
                }
                address = target
                return start()
            }
            if head != nil, status == 416 {
                // Nothing at byte 0: an empty photo.
                dropStream()
                return end(.failure(PhotoFailure(.empty, detail: "The file or response holds no data")))
            }
            if status == 206 {
                guard let head, let headers, let range = Self.contentRange(headers), range.first == 0, range.last < head
                else {
                    dropStream()
                    let given = headers.flatMap { soup_message_headers_get_one($0, "Content-Range") }.map {
                        String(cString: $0)
                    }
                    return end(
                        .failure(
                            PhotoFailure(
                                .wrongPart,
                                detail: "\(host) sent part of the photo (“\(given ?? "no Content-Range")”) "
                                    + "that is not the first \(self.head ?? 0) bytes asked for")))
                }
                partial = (range.total, range.last)
            }
            guard (200..<300).contains(status) else {
                dropStream()
                let phrase = soup_message_get_reason_phrase(message).map { String(cString: $0) } ?? ""
                return end(.failure(PhotoFailure.http(status: Int(status), phrase: phrase)))
            }
            if let headers, soup_message_headers_get_encoding(headers) == SOUP_ENCODING_CONTENT_LENGTH {
                let length = soup_message_headers_get_content_length(headers)
                if length > Int64(byteLimit) {
                    dropStream()
                    return end(
                        .failure(
                            PhotoFailure(
                                .tooLarge,
                                detail: "The server announced \(PhotoLimits.megabytes(Int(clamping: length))); "
                                    + "at most \(PhotoLimits.megabytes(byteLimit)) may be read")))
                }
                body.reserveCapacity(Int(clamping: length))
            }
            if let headers {
                let header = { (name: String) in
                    soup_message_headers_get_list(headers, name).map { String(cString: $0) }
                }
                freshUntil = HTTPClient.freshUntil(
                    cacheControl: header("Cache-Control"), age: header("Age"),
                    expires: header("Expires"), date: header("Date"))
            }
            readMore()
        }

        private func readMore() {
            let callback: GAsyncReadyCallback = { _, result, data in
                CallbackData.take(data, as: Transfer.self).read(result)
            }
            g_input_stream_read_bytes_async(
                stream, 64 << 10, G_PRIORITY_DEFAULT, cancellable.pointer, callback,
                CallbackData.retain(self))
        }

        private func read(_ result: OpaquePointer?) {
            var error: UnsafeMutablePointer<GError>?
            let bytes = g_input_stream_read_bytes_finish(stream, result, &error)
            if let error { return end(.failure(PhotoFailure(GLibError(consuming: error), origin: .stream))) }
            guard let bytes else {
                return end(.failure(PhotoFailure(.transport, detail: "The transfer from \(host) broke off")))
            }
            defer { g_bytes_unref(bytes) }
            var size: gsize = 0
            let start = g_bytes_get_data(bytes, &size)
            if size == 0 {
                // The end: closing lets the disk cache finish its copy of the body.
                g_input_stream_close(stream, nil, nil)
                if let partial {
                    guard body.count == partial.last + 1 else {
                        return end(
                            .failure(
                                PhotoFailure(
                                    .wrongPart,
                                    detail: "\(host) sent \(body.count) bytes for a range of \(partial.last + 1)")))
                    }
                    return end(.success(response(partialOf: partial.total)))
                }
                return end(.success(response(partialOf: nil)))
            }
            if body.count + Int(size) > byteLimit {
                return end(
                    .failure(
                        PhotoFailure(
                            .tooLarge,
                            detail: "“\(address.lastPathComponent)” is larger than \(PhotoLimits.megabytes(byteLimit))")
                    ))
            }
            if let start { body.append(start.cBytes, count: Int(size)) }
            readMore()
        }

        private func response(partialOf: Int?) -> HTTPResponse {
            var response = HTTPResponse(data: body, freshUntil: freshUntil, partialOf: partialOf)
            response.reached = reached
            return response
        }

        /// Whether this transfer is sending `message`: its own, or the disk cache's revalidation
        /// of its address (a message of the cache's, same address).
        func sends(_ message: OpaquePointer) -> Bool {
            guard let own = self.message else { return false }
            return own == message || soup_uri_equal(soup_message_get_uri(own), soup_message_get_uri(message)) != 0
        }

        /// Stops the transfer because it connected to `peer`, on this computer or its network
        /// (on the network thread, while libsoup is about to send: the cancellation keeps the
        /// request from being written).
        func block(peer: String) {
            guard blocked == nil else { return }
            blocked = AddressPolicy.blocked(address, peer: peer, redirected: redirects > 0)
            cancellable.cancel()
        }

        /// A 206's `Content-Range`: its first and last byte, and the whole size (0 for `*`).
        private static func contentRange(_ headers: OpaquePointer) -> (first: Int, last: Int, total: Int)? {
            var first: goffset = 0, last: goffset = 0, total: goffset = 0
            guard soup_message_headers_get_content_range(headers, &first, &last, &total) != 0, first >= 0, last >= first
            else {
                return nil
            }
            return (Int(first), Int(last), total < 0 ? 0 : Int(total))
        }

        private func dropStream() {
            if let stream {
                g_input_stream_close(stream, nil, nil)
                g_object_unref(stream)
            }
            stream = nil
        }

        /// Cancels the transfer. On the network thread: libsoup 3.2 handles the cancellation of
        /// an asynchronous request in the thread that cancels, and did so while the network thread
        /// was working on the same request (a crash under a stress of cancellations).
        func abort() {
            MainLoopSource.attachDetached(.idle, on: core.context) { [self] in
                cancellable.cancel()
                return .remove
            }
        }

        private func end(_ result: Result<HTTPResponse, PhotoFailure>) {
            answerTimer?.cancel()
            answerTimer = nil
            dropStream()
            core.finish(self, result)
            body = Data()
        }
    }
}
