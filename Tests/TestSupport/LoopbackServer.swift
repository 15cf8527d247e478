import CGLib
import CGdkPixbuf
import CSoup
import Foundation
import GLibKit
import PhotoPipeline
import Synchronization

/// A real HTTP server on 127.0.0.1 or another local address (libsoup's SoupServer on a thread
/// of its own) for tests and benchmarks: serves the bundled photos with configurable latency,
/// counts requests, and misbehaves on request.
///
/// Paths:
/// - `/photos/NAME` — the file `data/photos/NAME` (a `?n=…` query makes distinct URLs); a
///   `Range: bytes=A-B` request gets 206 with that slice and its `Content-Range`;
/// - `/cacheable/NAME` — the same (latency and holding too), with `Cache-Control: max-age=3600`
///   (clients may keep it);
/// - `/norange/NAME` — the same photo from a server that ignores `Range` (200, whole);
/// - `/badrange/NAME` — answers a `Range` request with 206 and a `Content-Range` that does not
///   match what was asked (the slice from byte 5);
/// - `/status/CODE` — an empty response with that status;
/// - `/reset` — the connection is reset (RST) without a response;
/// - `/text` — a plain-text body (not an image);
/// - `/empty` — a 200 response with no body;
/// - `/colour/RRGGBB` — a 64×64 PNG of that one colour (a photo whose pixels say which it is);
/// - `/trickle` — a JPEG header, then a few bytes every 50 ms, forever (for cancellation);
/// - `/list.plist?rows=N` — a photo list of N rows cycling through the bundled photos
///   (`&cacheable=1`: their `/cacheable/` addresses).
///
/// Hostile paths (see `HostilePictures` for the bombs):
/// - `/bomb/jpeg`, `/bomb/png`, `/bomb/gif` — a small picture whose header claims a huge size;
/// - `/drip?ms=M` — a JPEG's first bytes, then one byte every M ms (default 1000), forever;
/// - `/endless` — a real photo, then zeros as fast as the client reads, forever;
/// - `/silent` — accepts the request and never answers;
/// - `/redirect/N` — N redirects, then a photo; `/redirect-loop` — redirects to itself;
///   `/redirect-file` — redirects to `file:///etc/passwd`; `/redirect-to?url=U` — to `U`
///   (percent-encoded);
/// - `/sized?bytes=N` — a photo padded with zeros to N bytes, with its Content-Length;
/// - `/lists/NAME` — the body registered with `setList(_:for:)` (a list served over HTTP).
public final class LoopbackServer: @unchecked Sendable {
    public private(set) var port: Int = 0
    /// Delay added before every `/photos/` response, in milliseconds.
    public let photoLatencyMs = Atomic<Int>(0)
    /// While true, `/photos/` responses wait until `releasePhotos()` (a transfer held open for
    /// as long as a test needs it running, however slow the machine).
    private let holding = Locked<(on: Bool, waiting: [@Sendable () -> Void])>((false, []))

    /// Holds every `/photos/` response from now until `releasePhotos()`.
    public func holdPhotos() { holding.withLock { $0.on = true } }

    /// How many `/photos/` responses are held now (their requests have arrived).
    public var heldCount: Int { holding.withLock { $0.waiting.count } }

    /// Sends the held responses and stops holding.
    public func releasePhotos() {
        let waiting = holding.withLock { state -> [@Sendable () -> Void] in
            defer { state = (false, []) }
            return state.waiting
        }
        for respond in waiting { invoke(respond) }
    }
    /// Bodies served at `/lists/NAME`.
    private let lists = Locked<[String: Data]>([:])

    /// Serves `body` at `/lists/NAME`.
    public func setList(_ body: Data, for name: String) { lists.withLock { $0[name] = body } }

    /// Bytes written by `/drip` and `/endless` responses so far.
    public var streamedBytes: Int { stats.withLock { $0.streamedBytes } }

    /// Body bytes of photo responses (`/photos/`, `/cacheable/`, `/norange/`, `/badrange/`)
    /// sent so far: whole bodies as they are handed to the server, paced ones chunk by chunk.
    public var photoBytesSent: Int { stats.withLock { $0.photoBytesSent } }

    /// Requests for `path` that carried a `Range` header.
    public func rangeRequestCount(_ path: String) -> Int { stats.withLock { $0.rangeRequests[path, default: 0] } }

    /// Makes photo responses go over a simulated link: each waits `latencyMs` before its first
    /// byte, and their bodies share `bitsPerSecond` (0: as fast as loopback goes, the default).
    public func setLink(bitsPerSecond: Int, latencyMs: Int) {
        link.withLock { $0 = Link(bitsPerSecond: bitsPerSecond, latencyMs: latencyMs, freeAt: 0) }
    }

    private struct Link {
        var bitsPerSecond = 0
        var latencyMs = 0
        /// When the link has sent what was given to it so far (monotonic seconds).
        var freeAt: Double = 0
    }
    private let link = Locked(Link())

    private let context: OpaquePointer
    private var loop: OpaquePointer?
    private var server: UnsafeMutablePointer<SoupServer>?
    private let stats = Locked(Stats())
    private let photos: URL
    private let ready = DispatchSemaphore(value: 0)

    struct Stats {
        var requests: [String: Int] = [:]
        var trickleStarted: [Double] = []
        var trickleClosed: [Double] = []
        var photosInFlight = 0
        var peakPhotosInFlight = 0
        var streamedBytes = 0
        var photoBytesSent = 0
        var rangeRequests: [String: Int] = [:]
        /// Held or delayed photo responses, by path: sent whole, or their client gone first.
        var delivered: [String: Int] = [:]
        var abandoned: [String: Int] = [:]
    }

    /// The address the server listens on.
    public let host: String

    /// - Parameter host: the address to listen on, one of this computer's (Linux routes all of
    ///   127.0.0.0/8 to the loopback interface).
    public init(
        photos: URL = Products.packageRoot.appendingPathComponent("data/photos"), host: String = "127.0.0.1"
    ) throws {
        self.photos = photos
        self.host = host
        context = g_main_context_new()
        let thread = Thread { [self] in serve() }
        thread.name = "loopback-server"
        thread.start()
        ready.wait()
        guard port != 0 else { throw LoopbackServerError.cannotListen }
    }

    deinit {
        let loop = SendableMessage(self.loop!)
        let done = DispatchSemaphore(value: 0)
        invoke {
            g_main_loop_quit(loop.msg); done.signal()
        }
        done.wait()
    }

    /// The folder photo paths are served from.
    public var photosFolder: String { photos.path }

    public var baseURL: URL { URL(string: "http://\(host):\(port)")! }

    public func url(_ path: String) -> URL { URL(string: path, relativeTo: baseURL)!.absoluteURL }

    /// Requests received for `path` (without the query).
    public func requestCount(_ path: String) -> Int { stats.withLock { $0.requests[path, default: 0] } }
    public var totalColourRequests: Int {
        stats.withLock { $0.requests.filter { $0.key.hasPrefix("/colour/") }.values.reduce(0, +) }
    }
    public var totalPhotoRequests: Int {
        stats.withLock {
            $0.requests.filter { $0.key.hasPrefix("/photos/") || $0.key.hasPrefix("/cacheable/") }.values.reduce(0, +)
        }
    }
    /// Monotonic times (seconds) at which `/trickle` responses began and were closed by the client.
    public var trickleTimes: (started: [Double], closed: [Double]) {
        stats.withLock { ($0.trickleStarted, $0.trickleClosed) }
    }

    /// The most `/photos/` requests the server was answering at one time.
    public var peakPhotosInFlight: Int { stats.withLock { $0.peakPhotosInFlight } }

    /// What became of the `/photos/` responses for `path` that were held (`holdPhotos`) or
    /// delayed (`photoLatencyMs`): how many were sent whole, and how many were abandoned, their
    /// client having hung up before (a cancelled transfer closes its connection). Each counts
    /// once its message is finished.
    public func heldOrDelayedResponses(_ path: String) -> (delivered: Int, abandoned: Int) {
        stats.withLock { ($0.delivered[path, default: 0], $0.abandoned[path, default: 0]) }
    }

    public static func now() -> Double { Double(g_get_monotonic_time()) / 1_000_000 }

    // MARK: Server thread

    private func serve() {
        g_main_context_push_thread_default(context)
        loop = g_main_loop_new(context, 0)
        // Not while an HTTPClient's thread makes the same socket types (GLib can deadlock).
        HTTPClient.prepareTypes()
        server = cp_soup_server_new()
        soup_server_add_handler(
            server, nil,
            { _, msg, path, _, data in
                let server = CallbackData.borrow(data, as: Box.self).server!
                server.handle(msg!, path: String(cString: path!))
            }, CallbackData.retain(Box(self)), { data in _ = CallbackData.take(data, as: Box.self) })
        var error: UnsafeMutablePointer<GError>?
        let listening =
            host == "127.0.0.1"
            ? soup_server_listen_local(server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error)
            : g_inet_socket_address_new_from_string(host, 0).map { address in
                defer { g_object_unref(address) }
                return soup_server_listen(server, address, SoupServerListenOptions(0), &error)
            } ?? 0
        if listening != 0, let uris = soup_server_get_uris(server) {
            let uri = OpaquePointer(uris.pointee.data)
            port = Int(g_uri_get_port(uri))
            g_slist_free_full(uris, { g_uri_unref(OpaquePointer($0)) })
        }
        if let error { g_error_free(error) }
        ready.signal()
        g_main_loop_run(loop)
        soup_server_disconnect(server)
        g_object_unref(server)
        g_main_loop_unref(loop)
        g_main_context_pop_thread_default(context)
    }

    private final class Box {
        weak var server: LoopbackServer?
        init(_ server: LoopbackServer) { self.server = server }
    }

    private func invoke(_ body: @escaping @Sendable () -> Void) {
        MainLoop.perform(on: context, body)
    }

    /// Runs `body` on the server thread after `ms` milliseconds.
    private func after(_ ms: Int, _ body: @escaping @Sendable () -> Void) {
        MainLoop.perform(on: context, afterMilliseconds: UInt32(ms), body)
    }

    /// The paths whose photos answer `Range` requests themselves (see the list above).
    private static let photoFolders = ["/photos/", "/cacheable/", "/norange/", "/badrange/"]

    private func handle(_ msg: OpaquePointer, path: String) {
        stats.withLock { $0.requests[path, default: 0] += 1 }
        if !Self.photoFolders.contains(where: { path.hasPrefix($0) }) {
            // The other paths ignore Range. SoupServer 3.2 would answer it itself from a whole
            // 200 body, wrongly for a range longer than the body (it claims the bytes asked for,
            // with an empty body, and logs criticals).
            soup_message_headers_remove(soup_server_message_get_request_headers(msg), "Range")
        }
        let message = SendableMessage(msg)
        switch path {
        case _ where Self.photoFolders.contains(where: { path.hasPrefix($0) }):
            let folder = path.dropFirst().prefix { $0 != "/" }
            let name = path.drop { $0 != "/" }.dropFirst().drop { $0 != "/" }.dropFirst()
            let file = photos.appendingPathComponent(String(name))
            guard let data = try? Data(contentsOf: file) else {
                respond(msg, status: 404, type: "text/plain", body: Data("no such photo\n".utf8))
                return
            }
            var answer = PhotoAnswer(status: 200, body: data, contentRange: nil, cacheable: folder == "cacheable")
            if let range = Self.requestedRange(msg) {
                stats.withLock { $0.rangeRequests[path, default: 0] += 1 }
                if folder == "norange" {
                    // SoupServer would answer the range itself from a whole 200 body.
                    soup_message_headers_remove(soup_server_message_get_request_headers(msg), "Range")
                } else {
                    answer = Self.slice(data, range, wrong: folder == "badrange", cacheable: answer.cacheable)
                }
            }
            let respond = { @Sendable [self, answer] (msg: OpaquePointer) in self.send(msg, answer) }
            let held = holding.withLock { state -> Bool in
                guard state.on else { return false }
                state.waiting.append {
                    respond(message.msg)
                    soup_server_message_unpause(message.msg)
                }
                return true
            }
            if held {
                watchDelivery(msg, path: path)
                soup_server_message_pause(msg)
                return
            }
            let latency = photoLatencyMs.load(ordering: .relaxed) + link.withLock { $0.latencyMs }
            if latency > 0 {
                watchDelivery(msg, path: path)
                stats.withLock {
                    $0.photosInFlight += 1; $0.peakPhotosInFlight = max($0.peakPhotosInFlight, $0.photosInFlight)
                }
                soup_server_message_pause(msg)
                after(latency) { [self] in
                    stats.withLock { $0.photosInFlight -= 1 }
                    respond(message.msg)
                    soup_server_message_unpause(message.msg)
                }
            } else {
                respond(msg)
            }
        case _ where path.hasPrefix("/status/"):
            let code = UInt32(path.dropFirst("/status/".count)) ?? 500
            respond(msg, status: code, type: "text/plain", body: Data("status \(code)\n".utf8))
        case "/text":
            respond(msg, status: 200, type: "text/plain", body: Data("These are words, not pixels.\n".utf8))
        case "/empty":
            respond(msg, status: 200, type: "image/jpeg", body: Data())
        case _ where path.hasPrefix("/colour/"):
            let hex = UInt32(path.dropFirst("/colour/".count), radix: 16) ?? 0
            let body = Self.solidPNG(rgb: hex)
            let latency = photoLatencyMs.load(ordering: .relaxed)
            if latency > 0 {
                soup_server_message_pause(msg)
                after(latency) { [self] in
                    respond(message.msg, status: 200, type: "image/png", body: body)
                    soup_server_message_unpause(message.msg)
                }
            } else {
                respond(msg, status: 200, type: "image/png", body: body)
            }
        case "/reset":
            resetConnection(msg)
        case "/trickle":
            trickle(msg)
        case _ where path.hasPrefix("/bomb/"):
            let body = HostilePictures.bomb(String(path.dropFirst("/bomb/".count))) ?? Data()
            respond(msg, status: 200, type: "image/*", body: body)
        case "/drip":
            drip(msg, every: queryValue(msg, "ms").flatMap(Int.init) ?? 1000)
        case "/endless":
            endless(msg)
        case "/silent":
            soup_server_message_pause(msg) // never unpaused: no answer, until the client leaves
        case _ where path.hasPrefix("/redirect/"):
            let left = Int(path.dropFirst("/redirect/".count)) ?? 0
            redirect(msg, to: left > 0 ? "/redirect/\(left - 1)" : "/photos/coffee.jpg")
        case "/redirect-loop":
            redirect(msg, to: "/redirect-loop")
        case "/redirect-file":
            redirect(msg, to: "file:///etc/passwd")
        case "/redirect-to":
            redirect(msg, to: queryValue(msg, "url")?.removingPercentEncoding ?? "/")
        case "/sized":
            var body = (try? Data(contentsOf: photos.appendingPathComponent("coffee.jpg"))) ?? Data()
            let size = queryValue(msg, "bytes").flatMap(Int.init) ?? body.count
            if size > body.count { body.append(Data(count: size - body.count)) }
            respond(msg, status: 200, type: "image/jpeg", body: body)
        case _ where path.hasPrefix("/lists/"):
            if let body = lists.withLock({ $0[String(path.dropFirst("/lists/".count))] }) {
                respond(msg, status: 200, type: "application/x-plist", body: body)
            } else {
                respond(msg, status: 404, type: "text/plain", body: Data("no such list\n".utf8))
            }
        case "/list.plist":
            let rows = queryValue(msg, "rows").flatMap(Int.init) ?? 100
            let folder = queryValue(msg, "cacheable") == "1" ? "cacheable" : "photos"
            respond(
                msg, status: 200, type: "application/x-plist",
                body: Self.photoList(rows: rows, photos: photos, under: folder))
        default:
            respond(msg, status: 404, type: "text/plain", body: Data("not found\n".utf8))
        }
    }

    /// What a photo request is answered with.
    private struct PhotoAnswer: Sendable {
        var status: UInt32
        var body: Data
        var contentRange: String?
        var cacheable: Bool
    }

    /// The first and last byte a `Range: bytes=A-B` (or `A-`) header asks for; nil without one.
    private static func requestedRange(_ msg: OpaquePointer) -> (Int, Int?)? {
        guard let headers = soup_server_message_get_request_headers(msg),
            let value = soup_message_headers_get_one(headers, "Range").map({ String(cString: $0) }),
            value.hasPrefix("bytes=")
        else { return nil }
        let parts = value.dropFirst("bytes=".count).split(
            separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int(parts[0]) else { return nil }
        return (first, Int(parts[1]))
    }

    /// A 206 answer with the slice of `data` asked for (or 416 past its end); `wrong` shifts the
    /// slice and its Content-Range by 5 bytes, as a broken server or proxy might.
    private static func slice(_ data: Data, _ range: (Int, Int?), wrong: Bool, cacheable: Bool) -> PhotoAnswer {
        let first = range.0 + (wrong ? 5 : 0)
        let last = min(data.count - 1, (range.1 ?? data.count - 1) + (wrong ? 5 : 0))
        guard first <= last else {
            return PhotoAnswer(status: 416, body: Data(), contentRange: "bytes */\(data.count)", cacheable: false)
        }
        return PhotoAnswer(
            status: 206, body: data.subdata(in: first..<(last + 1)),
            contentRange: "bytes \(first)-\(last)/\(data.count)", cacheable: cacheable)
    }

    /// Sends a photo answer: at once, or over the simulated link in chunks.
    private func send(_ msg: OpaquePointer, _ answer: PhotoAnswer) {
        let headers = soup_server_message_get_response_headers(msg)
        let rate = link.withLock { $0.bitsPerSecond }
        if rate <= 0 || answer.body.isEmpty {
            respond(msg, status: answer.status, type: "image/jpeg", body: answer.body)
            stats.withLock { $0.photoBytesSent += answer.body.count }
        } else {
            soup_server_message_set_status(msg, answer.status, nil)
            soup_message_headers_set_content_length(headers, goffset(answer.body.count))
            soup_message_headers_replace(headers, "Content-Type", "image/jpeg")
            pace(msg, answer.body, bitsPerSecond: rate)
        }
        if let range = answer.contentRange { soup_message_headers_replace(headers, "Content-Range", range) }
        if answer.cacheable { soup_message_headers_replace(headers, "Cache-Control", "max-age=3600") }
    }

    /// Sends `body` in 16 KB chunks, each when the shared link would have carried it.
    private func pace(_ msg: OpaquePointer, _ body: Data, bitsPerSecond: Int) {
        let state = TrickleState(msg)
        state.connection = SignalConnection.connect(UnsafeMutableRawPointer(msg), "finished") { state.done = true }
        let offset = Locked(0)
        @Sendable func next() {
            let start = offset.withLock { $0 }
            guard !state.done, start < body.count else { return }
            let count = min(16 << 10, body.count - start)
            let now = Self.now()
            let due = link.withLock { link -> Double in
                link.freeAt = max(now, link.freeAt) + Double(count * 8) / Double(bitsPerSecond)
                return link.freeAt
            }
            after(max(0, Int(((due - now) * 1000).rounded()))) { [self] in
                guard !state.done else { return }
                body[(body.startIndex + start)..<(body.startIndex + start + count)].withUnsafeBytes {
                    soup_message_body_append(
                        soup_server_message_get_response_body(state.msg), SOUP_MEMORY_COPY, $0.baseAddress,
                        gsize($0.count))
                }
                stats.withLock { $0.photoBytesSent += count }
                offset.withLock { $0 = start + count }
                soup_server_message_unpause(state.msg)
                next()
            }
        }
        next()
    }

    private func queryValue(_ msg: OpaquePointer, _ key: String) -> String? {
        guard let uri = soup_server_message_get_uri(msg), let query = g_uri_get_query(uri) else { return nil }
        for pair in String(cString: query).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.first.map(String.init) == key, parts.count == 2 { return String(parts[1]) }
        }
        return nil
    }

    private func respond(_ msg: OpaquePointer, status: UInt32, type: String, body: Data) {
        soup_server_message_set_status(msg, status, nil)
        body.withUnsafeBytes { bytes in
            soup_server_message_set_response(
                msg, type, SOUP_MEMORY_COPY, bytes.cChars, gsize(bytes.count))
        }
    }

    /// Closes the TCP connection with a reset (SO_LINGER 0), mid-request.
    private func resetConnection(_ msg: OpaquePointer) {
        if let socket = soup_server_message_get_socket(msg) {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(
                g_socket_get_fd(socket), SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        }
        let stream = soup_server_message_steal_connection(msg)
        if let stream {
            g_io_stream_close(stream, nil, nil)
            g_object_unref(stream)
        }
    }

    /// Streams a never-ending "JPEG" slowly; notes when the client goes away.
    private func trickle(_ msg: OpaquePointer) {
        stats.withLock { $0.trickleStarted.append(Self.now()) }
        soup_server_message_set_status(msg, 200, nil)
        let headers = soup_server_message_get_response_headers(msg)
        soup_message_headers_set_encoding(headers, SOUP_ENCODING_CHUNKED)
        soup_message_headers_replace(headers, "Content-Type", "image/jpeg")
        let body = soup_server_message_get_response_body(msg)
        let state = TrickleState(msg)
        state.connection = SignalConnection.connect(UnsafeMutableRawPointer(msg), "finished") { [self] in
            state.done = true
            stats.withLock { $0.trickleClosed.append(Self.now()) }
        }
        let jpegStart: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01]
        jpegStart.withUnsafeBytes { soup_message_body_append(body, SOUP_MEMORY_COPY, $0.baseAddress, gsize($0.count)) }
        @Sendable func tick() {
            after(50) {
                guard !state.done else { return }
                let filler = [UInt8](repeating: 0, count: 64)
                filler.withUnsafeBytes {
                    soup_message_body_append(
                        soup_server_message_get_response_body(state.msg), SOUP_MEMORY_COPY, $0.baseAddress,
                        gsize($0.count))
                }
                soup_server_message_unpause(state.msg)
                tick()
            }
        }
        tick()
    }

    private func redirect(_ msg: OpaquePointer, to location: String) {
        soup_server_message_set_status(msg, 302, nil)
        soup_message_headers_replace(soup_server_message_get_response_headers(msg), "Location", location)
    }

    /// A chunked response fed by `next` every `ms` milliseconds until the client goes away.
    private func stream(_ msg: OpaquePointer, first: Data, every ms: Int, next: @escaping @Sendable () -> Data) {
        soup_server_message_set_status(msg, 200, nil)
        let headers = soup_server_message_get_response_headers(msg)
        soup_message_headers_set_encoding(headers, SOUP_ENCODING_CHUNKED)
        soup_message_headers_replace(headers, "Content-Type", "image/jpeg")
        // Chunks are dropped once written, or an endless body would pile up here.
        soup_message_body_set_accumulate(soup_server_message_get_response_body(msg), 0)
        let state = TrickleState(msg)
        state.connection = SignalConnection.connect(UnsafeMutableRawPointer(msg), "finished") { state.done = true }
        let append = { @Sendable [self] (data: Data) in
            stats.withLock { $0.streamedBytes += data.count }
            data.withUnsafeBytes {
                soup_message_body_append(
                    soup_server_message_get_response_body(state.msg), SOUP_MEMORY_COPY, $0.baseAddress, gsize($0.count))
            }
        }
        append(first)
        @Sendable func tick() {
            after(ms) {
                guard !state.done else { return }
                append(next())
                soup_server_message_unpause(state.msg)
                tick()
            }
        }
        tick()
    }

    /// A JPEG's first bytes, then one byte every `ms` milliseconds.
    private func drip(_ msg: OpaquePointer, every ms: Int) {
        let photo = (try? Data(contentsOf: photos.appendingPathComponent("coffee.jpg"))) ?? Data(count: 4096)
        let position = Locked(2)
        stream(msg, first: photo.prefix(2), every: ms) {
            position.withLock { p in
                defer { p += 1 }
                return p < photo.count ? photo[photo.startIndex + p..<photo.startIndex + p + 1] : Data([0])
            }
        }
    }

    /// A whole photo, then 64 KB of zeros every millisecond.
    private func endless(_ msg: OpaquePointer) {
        let photo = (try? Data(contentsOf: photos.appendingPathComponent("coffee.jpg"))) ?? Data()
        let zeros = Data(count: 64 << 10)
        stream(msg, first: photo, every: 1) { zeros }
    }

    /// Touched only on the server thread.
    /// Counts `msg`, a held or delayed photo response for `path`, as delivered or abandoned
    /// when it is finished: delivered if its body was written.
    private func watchDelivery(_ msg: OpaquePointer, path: String) {
        let watch = DeliveryWatch()
        let object = UnsafeMutableRawPointer(msg)
        // The connections live as long as the message (GLib holds their closures).
        watch.connections = [
            SignalConnection.connect(object, "wrote-body") { watch.wrote = true },
            SignalConnection.connect(object, "finished") { [self] in
                stats.withLock {
                    if watch.wrote { $0.delivered[path, default: 0] += 1 } else { $0.abandoned[path, default: 0] += 1 }
                }
            },
        ]
    }

    private final class DeliveryWatch: @unchecked Sendable {
        var wrote = false
        var connections: [SignalConnection] = []
    }

    private final class TrickleState: @unchecked Sendable {
        let msg: OpaquePointer
        var done = false
        var connection: SignalConnection?
        init(_ msg: OpaquePointer) { self.msg = msg }
    }

    /// A SoupServerMessage pointer carried into closures that run on the server thread.
    private struct SendableMessage: @unchecked Sendable {
        let msg: OpaquePointer
        init(_ msg: OpaquePointer) { self.msg = msg }
    }

    /// A 64×64 PNG filled with one colour (0xRRGGBB).
    public static func solidPNG(rgb: UInt32) -> Data {
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, 64, 64) else { return Data() }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        gdk_pixbuf_fill(pixbuf, (rgb << 8) | 0xFF)
        var buffer: UnsafeMutablePointer<gchar>?
        var size: gsize = 0
        guard gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &size, "png", nil, nil, nil) != 0, let buffer else {
            return Data()
        }
        defer { g_free(buffer) }
        return Data(bytes: buffer, count: Int(size))
    }

    /// A plist array of `rows` photos cycling through the bundled JPEGs, with distinct URLs.
    private static func photoList(rows: Int, photos: URL, under folder: String) -> Data {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: photos.path)) ?? [])
            .filter { $0.hasSuffix(".jpg") }.sorted()
        let items: [[String: String]] = (0..<rows).map { i in
            let file = files.isEmpty ? "missing.jpg" : files[i % files.count]
            return ["name": String(format: "Photo %04d (%@)", i, file), "url": "/\(folder)/\(file)?n=\(i)"]
        }
        return (try? PropertyListSerialization.data(fromPropertyList: items, format: .xml, options: 0)) ?? Data()
    }
}

public enum LoopbackServerError: Error { case cannotListen }
