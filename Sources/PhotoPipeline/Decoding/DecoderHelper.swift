import CDecoderSandbox
import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// The decoding side of a decoder helper process (`classic-photos-decoder`): reads requests
/// from the app on its socket, decodes each picture with `ImageDecoder` (or reads its
/// embedded preview), and answers with the pixels in a sealed memfd.
///
/// Two threads: one reads the socket (requests are queued; a cancel cancels the decode under
/// way), the other decodes, one picture at a time. The app gives a helper one request at a
/// time, so the queue holds at most one.
public enum DecoderHelper {
    /// Serves the app on `socket` until it closes the socket; then exits.
    /// - Parameters:
    ///   - ready: how the process was confined, said to the app first.
    ///   - faults: whether pictures may ask for deliberate faults (`DecoderFault`).
    public static func serve(socket: Int32, filtered: Bool, addressSpace: UInt64, faults: Bool) -> Never {
        let channel = DecoderChannel(fd: socket)
        if channel.send(.ready(HelperReady(filtered: filtered, addressSpace: addressSpace))) != nil { exit(0) }
        let inbox = Inbox()
        let reader = Thread {
            while true {
                // (The `deaf` test fault: the app's messages pile up unread.)
                while inbox.deaf { sleep(1) }
                switch channel.receive() {
                case .closed: exit(0)
                case .message(.request(let request), let fd): inbox.put(request, fd: fd)
                case .message(.cancel(let id), let fd):
                    if let fd { close(fd) }
                    inbox.cancel(id)
                case .message(.reserved(let id, let refusal), let fd):
                    if let fd { close(fd) }
                    inbox.reserved(id, refusal: refusal)
                case .message(_, let fd):
                    if let fd { close(fd) }
                }
            }
        }
        reader.start()
        while true {
            let (request, fd, cancellable) = inbox.take()
            // Memory is reserved in the app's budget, which every helper shares.
            let budget = DecodeMemoryBudget(forwardingTo: { bytes, cancellable throws(PhotoFailure) in
                try inbox.reserve(bytes, for: request.id, over: channel, cancellable: cancellable)
            })
            let outcome = answer(
                request, fd: fd, budget: budget, cancellable: cancellable, faults: faults ? inbox : nil)
            _ = channel.send(.reply(DecodeReply(id: request.id, outcome: outcome.outcome)), attached: outcome.pixels)
            if let pixels = outcome.pixels { close(pixels) }
            inbox.finished()
        }
    }

    /// Requests waiting, and the cancellable of the one being decoded.
    private final class Inbox: @unchecked Sendable {
        private let condition = NSCondition()
        private var queue: [(DecodeRequest, Int32?)] = []
        private var current: (id: UInt64, cancellable: Cancellable)?

        func put(_ request: DecodeRequest, fd: Int32?) {
            condition.withLock {
                queue.append((request, fd))
                condition.broadcast()
            }
        }

        /// Set by the `deaf` test fault: nothing more is read from the app.
        var deaf: Bool {
            get { condition.withLock { deafValue } }
            set { condition.withLock { deafValue = newValue } }
        }
        private var deafValue = false

        /// Requests cancelled while still in the queue.
        private var cancelledEarly: Set<UInt64> = []

        func take() -> (DecodeRequest, Int32?, Cancellable) {
            condition.withLock {
                while queue.isEmpty { condition.wait() }
                let (request, fd) = queue.removeFirst()
                let cancellable = Cancellable()
                if cancelledEarly.remove(request.id) != nil { cancellable.cancel() }
                current = (request.id, cancellable)
                return (request, fd, cancellable)
            }
        }

        func cancel(_ id: UInt64) {
            condition.withLock {
                if current?.id == id {
                    current?.cancellable.cancel()
                } else if queue.contains(where: { $0.0.id == id }) {
                    cancelledEarly.insert(id)
                }
            }
        }

        func finished() { condition.withLock { current = nil } }

        /// The app's answers to reservations, by request.
        private var answers: [UInt64: PhotoFailure?] = [:]

        /// Asks the app to reserve `bytes` for request `id`, and waits for its answer (the app
        /// stops waiting for room when the request is cancelled, and says so).
        func reserve(
            _ bytes: Int, for id: UInt64, over channel: DecoderChannel, cancellable: Cancellable
        ) throws(PhotoFailure) {
            if channel.send(.reserve(id: id, bytes: bytes)) != nil { exit(0) }
            let refusal: PhotoFailure? = condition.withLock {
                while answers[id] == nil { condition.wait() }
                return answers.removeValue(forKey: id) ?? nil
            }
            if let refusal { throw refusal }
        }

        func reserved(_ id: UInt64, refusal: PhotoFailure?) {
            condition.withLock {
                answers[id] = .some(refusal)
                condition.broadcast()
            }
        }
    }

    private static func answer(
        _ request: DecodeRequest, fd: Int32?, budget: DecodeMemoryBudget, cancellable: Cancellable,
        faults inbox: Inbox?
    ) -> (outcome: DecodeReply.Outcome, pixels: Int32?) {
        guard let fd else {
            return (.failure(PhotoFailure(.empty, detail: "The decoder was sent no picture")), nil)
        }
        let stream = ObjectRef(taking: g_unix_input_stream_new(fd, 1)!)
        if let inbox, let (fault, argument) = DecoderFault.asked(by: peek(fd)) {
            let attempt = Attempt(
                id: request.id, argument: argument, fd: fd, budget: budget, budgetBytes: request.budgetBytes,
                inbox: inbox, cancellable: cancellable)
            return (.failure(commit(fault, attempt)), nil)
        }
        do throws(PhotoFailure) {
            switch request.job {
            case .picture(let size, let raw):
                let image: PhotoImage
                if raw {
                    let bytes = try whole(fd, stream, request.limits, cancellable)
                    image = try ImageDecoder.decode(
                        RawPhoto.preview(of: bytes), size: size, limits: request.limits, budget: budget,
                        cancellable: cancellable)
                } else {
                    image = try ImageDecoder.decode(
                        stream, size: size, limits: request.limits, budget: budget, cancellable: cancellable)
                }
                let (pixels, layout) = try SealedPixels.seal(image)
                return (
                    .picture(layout, options: ColorProfile.options(of: image)),
                    pixels
                )
            case .cachedThumbnail:
                let image = try cachedThumbnail(fd, limits: request.limits)
                let (pixels, layout) = try SealedPixels.seal(image)
                return (.picture(layout, options: textOptions(image)), pixels)
            case .preview(let squareSide):
                let head = try Decoding.readAll(stream, limit: request.limits.maxBytes, cancellable: cancellable)
                guard let preview = EmbeddedPreview.read(head, squareSide: squareSide) else { return (.noPreview, nil) }
                let (pixels, layout) = try SealedPixels.seal(preview.image)
                return (
                    .preview(
                        layout, origin: preview.origin, photoWidth: preview.photoWidth,
                        photoHeight: preview.photoHeight, options: ColorProfile.options(of: preview.image)),
                    pixels
                )
            case .info(let details):
                let bytes = try Decoding.readAll(stream, limit: request.limits.maxBytes, cancellable: cancellable)
                return (.info(try ImageInfo.read(bytes, details: details)), nil)
            case .details:
                let bytes = try whole(fd, stream, request.limits, cancellable)
                return (.details(PhotoDetails.read(bytes).flatMap { $0.isEmpty ? nil : $0 }), nil)
            case .animation(let side):
                let bytes = try Decoding.readAll(stream, limit: request.limits.maxBytes, cancellable: cancellable)
                guard let header = AnimationHeader.read(bytes, maxFrames: AnimationDecoder.maxFrames) else {
                    return (.still(reason: "Not an animation"), nil)
                }
                switch try AnimationDecoder.decode(
                    bytes, header: header, side: side, limits: request.limits, budget: budget, cancellable: cancellable)
                {
                case .still(let reason): return (.still(reason: reason), nil)
                case .animation(let animation):
                    let (frames, layouts, offsets) = try SealedPixels.seal(frames: animation.frames)
                    return (
                        .animation(frames: layouts, offsets: offsets, delays: animation.delays, plays: animation.plays),
                        frames
                    )
                }
            case .rawFacts:
                let bytes = try whole(fd, stream, request.limits, cancellable)
                return (.info(try RawPhoto.facts(of: bytes)), nil)
            case .rawPreview:
                let bytes = try whole(fd, stream, request.limits, cancellable)
                let (preview, info) = try RawPhoto.previewAndFacts(of: bytes)
                return (.rawPreview(info, byteCount: preview.count), try SealedPixels.sealedFile(holding: preview))
            case .marks:
                let bytes = try Decoding.readAll(stream, limit: request.limits.maxBytes, cancellable: cancellable)
                return (.marks(XMPMarks.read(bytes)), nil)
            case .altText:
                let bytes = try Decoding.readAll(stream, limit: request.limits.maxBytes, cancellable: cancellable)
                return (.text(XMPMarks.altText(bytes)), nil)
            case .updatedMarks(let old, let new, let altText):
                let bytes = try Decoding.readAll(stream, limit: request.limits.maxBytes, cancellable: cancellable)
                let packet = try XMPMarks.update(bytes, from: old, to: new, altText: altText)
                return (.file(byteCount: packet.count), try SealedPixels.sealedFile(holding: packet))
            case .marksInPhoto(let new, let altText):
                let bytes = try Decoding.readAll(stream, limit: request.limits.maxBytes, cancellable: cancellable)
                let photo = try MarksInPhoto.updated(bytes, to: new, altText: altText)
                return (.file(byteCount: photo.count), try SealedPixels.sealedFile(holding: photo))
            case .videoFrame(let size):
                let (image, facts) = try VideoFrame.read(
                    fd, size: size, limits: request.limits, cancellable: cancellable)
                let (pixels, layout) = try SealedPixels.seal(image)
                return (.video(layout, facts: facts), pixels)
            case .editedJPEG(let edit):
                let bytes = try Decoding.readAll(stream, limit: request.limits.maxBytes, cancellable: cancellable)
                let (edited, outcome) = try LosslessJPEG.apply(edit, to: bytes)
                return (
                    .editedJPEG(outcome, byteCount: edited.count), try SealedPixels.sealedFile(holding: edited)
                )
            case .editedRaw(let edit):
                let bytes = try whole(fd, stream, request.limits, cancellable)
                let (edited, outcome) = try RawEdit.apply(edit, to: bytes)
                return (
                    .editedJPEG(outcome, byteCount: edited.count), try SealedPixels.sealedFile(holding: edited)
                )
            }
        } catch {
            return (.failure(error), nil)
        }
    }

    /// The whole picture: mapped where the app handed over a file (a RAW file's metadata and
    /// preview are a small part of it), else read from `stream`.
    private static func whole(
        _ fd: Int32, _ stream: ObjectRef<GInputStream>, _ limits: DecodeLimits, _ cancellable: Cancellable
    ) throws(PhotoFailure) -> Data {
        if let mapped = try SealedPixels.mapped(fd, limit: limits.maxBytes) { return mapped }
        return try Decoding.readAll(stream, limit: limits.maxBytes, cancellable: cancellable)
    }

    /// The picture's first bytes, read without moving the descriptor's offset.
    private static func peek(_ fd: Int32) -> Data {
        var head = [UInt8](repeating: 0, count: 256)
        let count = pread(fd, &head, head.count, 0)
        return Data(head.prefix(max(0, count)))
    }

    /// A thumbnail cache's PNG. Its text chunks may follow its pixels (ImageMagick writes them
    /// there), where only gdk-pixbuf's whole-file load reads them, not the loader that decodes
    /// a stream; so the file is loaded whole, by its descriptor's name, once its header has
    /// been checked: a PNG within the limits.
    private static func cachedThumbnail(_ fd: Int32, limits: DecodeLimits) throws(PhotoFailure) -> PhotoImage {
        let head = [UInt8](peek(fd).prefix(24))
        guard head.count == 24, head.starts(with: PictureSignature.png),
            head[12..<16].elementsEqual("IHDR".utf8)
        else { throw PhotoFailure(.notImage, detail: "A thumbnail is a PNG file; this is not one") }
        let width = head[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = head[20..<24].reduce(0) { $0 << 8 | Int($1) }
        guard width > 0, height > 0, width * height <= limits.maxPixels else {
            throw ImageDecoder.tooManyPixels(width: width, height: height, limit: limits.maxPixels)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) <= limits.maxBytes else {
            throw PhotoFailure(.tooLarge, detail: "The thumbnail is larger than a thumbnail may be")
        }
        var error: UnsafeMutablePointer<GError>?
        guard let pixbuf = gdk_pixbuf_new_from_file("/proc/self/fd/\(fd)", &error) else {
            let message = error.map { GLibError(consuming: $0).message } ?? "unknown error"
            throw PhotoFailure(.notImage, detail: "The thumbnail could not be read: \(message)")
        }
        return PhotoImage(taking: pixbuf)
    }

    /// The `tEXt::` options a PNG carried (a thumbnail's URI and modification time).
    private static func textOptions(_ image: PhotoImage) -> [String: String] {
        guard let table = gdk_pixbuf_get_options(image.pixbuf) else { return [:] }
        defer { g_hash_table_destroy(table) }
        var options: [String: String] = [:]
        var iterator = GHashTableIter()
        g_hash_table_iter_init(&iterator, table)
        var key: gpointer?
        var value: gpointer?
        while g_hash_table_iter_next(&iterator, &key, &value) != 0 {
            guard let key, let value else { continue }
            let name = String(cStringAt: key)
            if name.hasPrefix("tEXt::") { options[name] = String(cStringAt: value) }
        }
        return options
    }

    /// What a deliberate fault is committed with.
    private struct Attempt {
        var id: UInt64
        var argument: String
        var fd: Int32
        var budget: DecodeMemoryBudget
        var budgetBytes: Int
        var inbox: Inbox
        var cancellable: Cancellable
    }

    /// Commits a deliberate fault; the ones that do not end the process say how their attempt went.
    private static func commit(_ fault: DecoderFault, _ attempt: Attempt) -> PhotoFailure {
        let (argument, cancellable) = (attempt.argument, attempt.cancellable)
        switch fault {
        case .crash:
            // A write through a wild pointer, as a decoder's buffer overflow makes.
            UnsafeMutablePointer<Int>(bitPattern: 16)!.pointee = 1
            return PhotoFailure(.notImage, detail: "Still alive after a wild write")
        case .loop:
            while true { sleep(1) }
        case .slow:
            for _ in 0..<3000 where !cancellable.isCancelled { usleep(10_000) }
            return cancellable.isCancelled ? .cancelled : PhotoFailure(.notImage, detail: "Slow, and done")
        case .allocate:
            var blocks: [UnsafeMutableRawPointer] = []
            while true {
                guard let block = malloc(64 << 20) else {
                    // Out of address space; a decoder would now fail, or crash on the NULL.
                    abort()
                }
                memset(block, 1, 64 << 20)
                blocks.append(block)
            }
        case .socket:
            let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else {
                return PhotoFailure(.unsupported, detail: "socket refused: \(String(cString: strerror(errno)))")
            }
            defer { close(fd) }
            let parts = argument.split(separator: ":")
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(parts.last.flatMap { UInt16($0) } ?? 0).bigEndian)
            inet_pton(AF_INET, String(parts.first ?? "127.0.0.1"), &address.sin_addr)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            return PhotoFailure(
                .unsupported,
                detail: connected == 0
                    ? "socket connected" : "connect refused: \(String(cString: strerror(errno)))")
        case .write:
            let file = open(argument, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard file >= 0 else {
                return PhotoFailure(
                    .unsupported, detail: "open for writing refused: \(String(cString: strerror(errno)))")
            }
            close(file)
            return PhotoFailure(.unsupported, detail: "file written")
        case .escape:
            var report = [CChar](repeating: 0, count: 512)
            cp_sandbox_probe(pid_t(argument) ?? 0, attempt.fd, &report, report.count)
            let through = String(decoding: report.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return PhotoFailure(
                .unsupported, detail: through.isEmpty ? "nothing got through" : "got through: \(through)")
        case .hog:
            do throws(PhotoFailure) {
                let half = attempt.budgetBytes / 2 + 1
                _ = try attempt.budget.reserve(half, cancellable: cancellable)
                _ = try attempt.budget.reserve(half, cancellable: cancellable)
                return PhotoFailure(.unsupported, detail: "both reserved")
            } catch {
                return error
            }
        case .deaf:
            attempt.inbox.deaf = true
            let channel = DecoderChannel(fd: 3)
            for _ in 0..<20_000 { _ = channel.send(.reserve(id: attempt.id, bytes: 0)) }
            while true { sleep(1) }
        }
    }
}
