import CGLib
import CSoup
import Foundation
import GLibKit

extension HTTPClient {
    /// One GET on the network thread, with its redirects, read to the end into memory.
    final class Transfer: @unchecked Sendable {
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
        private var partial: HeadRange.Part?
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
            if let head { HeadRange.ask(made, bytes: head) }
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
                switch HeadRange.part(headers, asked: head, from: host) {
                case .success(let part): partial = part
                case .failure(let failure):
                    dropStream()
                    return end(.failure(failure))
                }
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
                    if let wrong = HeadRange.check(body: body.count, of: partial, from: host) {
                        return end(.failure(wrong))
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
