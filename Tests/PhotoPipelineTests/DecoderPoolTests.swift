import CGLib
import Foundation
import GLibKit
import PhotoPipeline
import Testing
import TestSupport

/// The decoder helpers, for real: processes started from the build's `classic-photos-decoder`,
/// under bubblewrap where it runs and without it, told to misbehave through test faults.
@Suite(.serialized) struct DecoderPoolTests {
    /// A pool of its own, with faults allowed and a short deadline.
    private func pool(_ sandbox: String? = nil, deadline: Double = 3, helpers: Int = 2) -> DecoderPool {
        var environment = ["CLASSIC_PHOTOS_DECODER_FAULTS": "1", "CLASSIC_PHOTOS_DECODE_SECONDS": "\(deadline)"]
        environment["CLASSIC_PHOTOS_SANDBOX"] = sandbox
        return DecoderPool(configuration: .fromEnvironment(environment), maxHelpers: helpers, idleSeconds: 30)
    }

    private static let modes: [String?] = [nil, "no-bwrap"]

    private func photo(_ name: String) throws -> Data {
        try Data(contentsOf: Products.packageRoot.appendingPathComponent("data/photos/\(name)"))
    }

    private func fault(_ fault: DecoderFault, _ argument: String = "") -> Data { fault.picture(argument) }

    @Test("A photo decoded in a helper has the pixels it has when decoded in the app", arguments: modes)
    func sameAsInProcess(_ sandbox: String?) throws {
        let pool = pool(sandbox)
        let bytes = try photo("coffee.jpg")
        let helped = try Decoding.picture(.bytes(bytes), size: .square(160), cancellable: Cancellable(), pool: pool)
        let local = try ImageDecoder.decode(bytes, size: .square(160), cancellable: Cancellable())
        #expect(helped.width == 160 && helped.height == 160)
        for (x, y) in [(0, 0), (80, 80), (159, 159), (13, 140)] {
            #expect(helped.pixel(x: x, y: y) == local.pixel(x: x, y: y))
        }
        if sandbox == nil {
            #expect(pool.confinement == .bubblewrap)
        } else {
            #expect(pool.confinement != .bubblewrap && pool.confinement != .inProcess)
        }
        #expect(pool.counts.started == 1)
    }

    @Test("A local file goes to the helper as its open descriptor")
    func fileDescriptor() throws {
        let pool = pool()
        let url = Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg")
        let stream = try PhotoFetcher.openFile(url, cancellable: Cancellable(), byteLimit: 1 << 30)
        let image = try Decoding.picture(.stream(stream), size: .fit(300), cancellable: Cancellable(), pool: pool)
        #expect(image.width == 300 && image.height == 200)
    }

    @Test("A decoder's own failures keep their reason codes")
    func reasonsKept() throws {
        let pool = pool()
        let text = #expect(throws: PhotoFailure.self) {
            try Decoding.picture(
                .bytes(Data("just text".utf8)), size: .square(80), cancellable: Cancellable(), pool: pool)
        }
        #expect(text?.reason == .notImage)
        let bomb = #expect(throws: PhotoFailure.self) {
            try Decoding.picture(
                .bytes(HostilePictures.pngBomb()), size: .square(80), cancellable: Cancellable(), pool: pool)
        }
        #expect(bomb?.reason == .tooManyPixels)
        // A failure with a value in it comes back as that value, not as words: the name of a
        // format no loader reads (a Photoshop file's signature).
        let photoshop = Data("8BPS".utf8) + Data([0, 1]) + Data(count: 64)
        let format = #expect(throws: PhotoFailure.self) {
            try Decoding.picture(.bytes(photoshop), size: .square(80), cancellable: Cancellable(), pool: pool)
        }
        guard case .formatNotSupported(let name)? = format?.kind else {
            Issue.record("\(String(describing: format?.kind))")
            return
        }
        #expect(name.contains("Photoshop") && format?.reason == .unsupported)
        #expect(pool.counts.crashed == 0)
    }

    @Test(
        "A crashing decoder fails its picture as decoder-crashed, and the next picture gets a fresh helper",
        arguments: modes)
    func crash(_ sandbox: String?) throws {
        let pool = pool(sandbox)
        let error = #expect(throws: PhotoFailure.self) {
            try Decoding.picture(.bytes(fault(.crash)), size: .square(80), cancellable: Cancellable(), pool: pool)
        }
        #expect(error?.reason == .decoderCrashed)
        // (A sanitizer's runtime catches the fault and exits instead.)
        #expect(runsUnderSanitizer || error?.detail.contains("SIGSEGV") == true, "\(error?.detail ?? "")")
        let image = try Decoding.picture(
            .bytes(try photo("coffee.jpg")), size: .square(80), cancellable: Cancellable(), pool: pool)
        #expect(image.width == 80)
        #expect(pool.counts.started == 2 && pool.counts.crashed == 1)
    }

    @Test("A decoder that never finishes is killed at the deadline: timeout")
    func loop() throws {
        let pool = pool(deadline: 1.5)
        let started = Date()
        let error = #expect(throws: PhotoFailure.self) {
            try Decoding.picture(.bytes(fault(.loop)), size: .square(80), cancellable: Cancellable(), pool: pool)
        }
        #expect(error?.reason == .timeout)
        #expect(Date().timeIntervalSince(started) < 10)
        let image = try Decoding.picture(
            .bytes(try photo("coffee.jpg")), size: .square(80), cancellable: Cancellable(), pool: pool)
        #expect(image.width == 80)
    }

    // A sanitizer's runtime needs its address space unlimited, so there is no limit to meet.
    @Test(
        "A decoder that allocates without bound runs out of its address space: decoder-crashed",
        .disabled(if: runsUnderSanitizer))
    func allocate() throws {
        let pool = pool(deadline: 30)
        let error = #expect(throws: PhotoFailure.self) {
            try Decoding.picture(.bytes(fault(.allocate)), size: .square(80), cancellable: Cancellable(), pool: pool)
        }
        #expect(error?.reason == .decoderCrashed)
    }

    @Test("A helper cannot open a socket", arguments: modes)
    func noSocket(_ sandbox: String?) throws {
        // A listener the helper is told to connect to; nothing may arrive.
        let listener = try #require(Listener())
        defer { close(listener.fd) }
        let pool = pool(sandbox)
        let error = #expect(throws: PhotoFailure.self) {
            try Decoding.picture(
                .bytes(fault(.socket, "127.0.0.1:\(listener.port)")), size: .square(80), cancellable: Cancellable(),
                pool: pool)
        }
        #expect(error?.detail.hasPrefix("socket refused") == true, "\(error?.detail ?? "")")
        #expect(!listener.wasReached)
    }

    @Test("A helper cannot create or write a file", arguments: modes)
    func noWriting(_ sandbox: String?) throws {
        let folder = try TestPictures.makeFolder("decoder-write")
        let target = folder.appendingPathComponent("written-by-decoder")
        let pool = pool(sandbox)
        let error = #expect(throws: PhotoFailure.self) {
            try Decoding.picture(
                .bytes(fault(.write, target.path)), size: .square(80), cancellable: Cancellable(), pool: pool)
        }
        #expect(error?.detail.hasPrefix("open for writing refused") == true, "\(error?.detail ?? "")")
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    @Test(
        "A helper cannot signal, limit or renice the app, fork, make namespaces, change or lock the file it reads, type into a terminal or mount; its standard error is /dev/null, it has a session of its own and weighs less than the app",
        arguments: modes)
    func nothingElseGetsThrough(_ sandbox: String?) throws {
        let pool = pool(sandbox)
        let error = #expect(throws: PhotoFailure.self) {
            try Decoding.picture(
                .bytes(fault(.escape, "\(getpid())")), size: .square(80), cancellable: Cancellable(), pool: pool)
        }
        #expect(error?.detail == "nothing got through")
    }

    @Test("One picture's reservations together may not exceed the budget: the second half is refused at once")
    func budgetPerPicture() throws {
        let pool = pool(deadline: 20)
        let budget = DecodeMemoryBudget(capacity: 64 << 20)
        let started = Date()
        let error = #expect(throws: PhotoFailure.self) {
            try Decoding.picture(
                .bytes(fault(.hog)), size: .square(80), budget: budget, cancellable: Cancellable(), pool: pool)
        }
        #expect(error?.reason == .tooManyPixels, "\(error?.detail ?? "")")
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(budget.usage.now == 0)
    }

    @Test("A helper that stops reading what the app sends is let go, not waited for")
    func deafHelper() throws {
        let pool = pool(deadline: 20)
        let started = Date()
        let error = #expect(throws: PhotoFailure.self) {
            try Decoding.picture(.bytes(fault(.deaf)), size: .square(80), cancellable: Cancellable(), pool: pool)
        }
        #expect(error?.reason == .decoderCrashed, "\(error?.detail ?? "")")
        #expect(error?.detail.contains("stopped listening") == true, "\(error?.detail ?? "")")
        #expect(Date().timeIntervalSince(started) < 15)
        // And the next picture is decoded by a fresh helper.
        let image = try Decoding.picture(
            .bytes(try photo("coffee.jpg")), size: .square(80), cancellable: Cancellable(), pool: pool)
        #expect(image.width > 0)
    }

    @Test("Helpers killed with SIGKILL cost the picture they held, never the app")
    func killed() throws {
        let pool = pool(deadline: 10, helpers: 1)
        let bytes = try photo("coffee.jpg")
        _ = try Decoding.picture(.bytes(bytes), size: .square(80), cancellable: Cancellable(), pool: pool)
        // Idle: killed between pictures (and gone), the next picture goes to a fresh helper.
        let killed = Helpers.kill(of: pool)
        #expect(Helpers.waitUntil { Helpers.ended(killed) }, "the helper outlived SIGKILL")
        _ = try Decoding.picture(.bytes(bytes), size: .square(80), cancellable: Cancellable(), pool: pool)
        // Busy: killed in the middle of one (a decode that would never end), once the helper
        // has it: asleep in the fault's endless loop.
        let busy = Locked(false)
        let killer = Thread {
            busy.withLock { $0 = Helpers.waitUntil { Helpers.asleepInFault(of: pool) } }
            Helpers.kill(of: pool)
        }
        killer.start()
        let error = #expect(throws: PhotoFailure.self) {
            try Decoding.picture(.bytes(fault(.loop)), size: .square(80), cancellable: Cancellable(), pool: pool)
        }
        #expect(busy.withLock { $0 }, "the helper was never seen with the picture")
        #expect(error?.reason == .decoderCrashed)
        #expect(error?.detail.contains("SIGKILL") == true, "\(error?.detail ?? "")")
        _ = try Decoding.picture(.bytes(bytes), size: .square(80), cancellable: Cancellable(), pool: pool)
    }

    @Test("Helpers idle for the pool's idle time leave, and the next picture starts a fresh one")
    func idleHelpersLeave() throws {
        let pool = DecoderPool(configuration: AppConfiguration(), maxHelpers: 2, idleSeconds: 0.5)
        let bytes = try photo("coffee.jpg")
        _ = try Decoding.picture(.bytes(bytes), size: .square(80), cancellable: Cancellable(), pool: pool)
        #expect(pool.processIdentifiers.count == 1)
        let deadline = Date().addingTimeInterval(10)
        while !pool.processIdentifiers.isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(pool.processIdentifiers.isEmpty, "a helper stayed: \(pool.processIdentifiers)")
        _ = try Decoding.picture(.bytes(bytes), size: .square(80), cancellable: Cancellable(), pool: pool)
        #expect(pool.counts.started == 2 && pool.counts.crashed == 0)
    }

    @Test("A cancelled decode ends early and leaves its helper for the next picture")
    func cancelled() throws {
        let pool = pool(deadline: 20, helpers: 1)
        let cancellable = Cancellable()
        // Cancelled once the helper has the picture: asleep in the fault's long decode.
        let busy = Locked(false)
        let canceller = Thread {
            busy.withLock { $0 = Helpers.waitUntil { Helpers.asleepInFault(of: pool) } }
            cancellable.cancel()
        }
        canceller.start()
        let started = Date()
        let error = #expect(throws: PhotoFailure.self) {
            try Decoding.picture(.bytes(fault(.slow)), size: .square(80), cancellable: cancellable, pool: pool)
        }
        #expect(busy.withLock { $0 }, "the helper was never seen with the picture")
        #expect(error?.isCancellation == true)
        #expect(Date().timeIntervalSince(started) < 5)
        _ = try Decoding.picture(
            .bytes(try photo("coffee.jpg")), size: .square(80), cancellable: Cancellable(), pool: pool)
        #expect(pool.counts.started == 1)
    }

    @Test("Embedded previews, picture information and RAW previews come from the helper too")
    func otherJobs() throws {
        let pool = pool()
        let camera = try #require(
            CameraFiles.jpegWithThumbnail(
                width: 4000, height: 3000, rgb: 0x336699, thumbWidth: 160, thumbHeight: 120, thumbRGB: 0x996633))
        let preview = try #require(Decoding.preview(camera.prefix(64 << 10), squareSide: 64, pool: pool))
        #expect(preview.origin == .exif && preview.photoWidth == 4000)
        let info = try Decoding.info(try photo("coffee.jpg"), pool: pool)
        #expect(info.width == 600 && info.height == 400 && info.format == "jpeg")
        #expect(pool.counts.crashed == 0)
    }

    @Test(
        "The decode fuzzer's corpus, through the helpers: every input decodes or fails with a reason, no helper dies",
        .enabled(if: ProcessInfo.processInfo.environment["CLASSIC_PHOTOS_FUZZ_CORPUS"] != nil))
    func fuzzCorpus() throws {
        let folder = URL(fileURLWithPath: ProcessInfo.processInfo.environment["CLASSIC_PHOTOS_FUZZ_CORPUS"]!)
        let pool = DecoderPool(configuration: AppConfiguration(), maxHelpers: 2, idleSeconds: 30)
        // The fuzzer's small limits, so that its inputs meet the same checks.
        let limits = DecodeLimits(maxBytes: 1 << 20, maxPixels: 4 << 20)
        var decoded = 0, refused = 0
        let inputs = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        for input in inputs {
            let bytes = try Data(contentsOf: input)
            do {
                _ = try Decoding.picture(
                    .bytes(bytes), size: .square(64), limits: limits, cancellable: Cancellable(), pool: pool)
                decoded += 1
            } catch {
                #expect(error.reason != .decoderCrashed, "\(input.lastPathComponent): \(error.detail)")
                refused += 1
            }
            _ = try? Decoding.info(bytes, limits: limits, pool: pool)
        }
        print("decode corpus through the helpers: \(inputs.count) inputs, \(decoded) decoded, \(refused) refused")
        #expect(pool.counts.crashed == 0)
    }
}

/// The decoder helpers of a pool (other tests' pools run beside it).
enum Helpers {
    /// The helper processes `pool` started: its own processes, or, under bubblewrap, the
    /// processes below them whose executable is the helper.
    static func pids(of pool: DecoderPool) -> [pid_t] {
        let helper = Products.directory.appendingPathComponent("classic-photos-decoder").resolvingSymlinksInPath().path
        var found: [pid_t] = []
        var candidates = pool.processIdentifiers
        while let pid = candidates.popLast() {
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == helper {
                found.append(pid)
            } else {
                candidates += children(of: pid)
            }
        }
        return found
    }

    /// Kills them with SIGKILL.
    /// Kills the pool's helpers; their process identifiers, and those of the processes that
    /// started them (bubblewrap, which holds the helper's end of the socket until it ends too).
    @discardableResult
    static func kill(of pool: DecoderPool) -> [pid_t] {
        let killed = pids(of: pool)
        for pid in killed { Glibc.kill(pid, SIGKILL) }
        return killed + pool.processIdentifiers
    }

    /// Whether each of `pids` has ended: gone, or a zombie. Only then are its files closed,
    /// its end of the socket among them (the kernel lets go of a dying process's memory, which
    /// is where /proc finds its executable, before its files).
    static func ended(_ pids: [pid_t]) -> Bool {
        pids.allSatisfy { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return true }
            return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
        }
    }

    /// Whether one of the helpers is asleep in a timed sleep: the `loop` and `slow` faults sleep
    /// (for a second, or 10 ms, again and again) once a helper has their picture, and an idle
    /// helper waits for its socket or a lock, never so. Told by the kernel's wait channel of
    /// each of its threads.
    static func asleepInFault(of pool: DecoderPool) -> Bool {
        pids(of: pool).contains { pid in
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            return tasks.contains { task in
                let channel = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/wchan", encoding: .utf8)) ?? ""
                return channel.contains("nanosleep")
            }
        }
    }

    /// Polls `condition` every 10 ms until it holds (true) or `seconds` have passed (false).
    static func waitUntil(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { return false }
            usleep(10_000)
        }
        return true
    }

    private static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(parent)/task")) ?? []
        return entries.flatMap { task -> [pid_t] in
            let list = (try? String(contentsOfFile: "/proc/\(parent)/task/\(task)/children", encoding: .utf8)) ?? ""
            return list.split(separator: " ").compactMap { pid_t($0) }
        }
    }
}

/// A TCP socket listening on loopback, to tell whether anything connected to it.
struct Listener {
    let fd: Int32
    let port: UInt16

    init?() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard fd >= 0, bound == 0, named == 0, listen(fd, 4) == 0 else { return nil }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    /// Whether a connection is waiting to be accepted.
    var wasReached: Bool {
        let connection = accept(fd, nil, nil)
        if connection >= 0 { close(connection) }
        return connection >= 0
    }
}
