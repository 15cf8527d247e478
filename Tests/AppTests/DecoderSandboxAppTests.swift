import Foundation
import GLibKit
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// The real app decoding in its confined helpers: pictures that crash, hang or exhaust a
    /// helper cost their own rows only, and helpers killed from outside never harm the app.
    @Suite(.serialized) struct DecoderSandboxAppTests {
        /// A local list of `rows` (name, file) written into `folder`.
        private func list(_ rows: [(String, URL)], in folder: URL) throws -> URL {
            let list = folder.appendingPathComponent("list.plist")
            let items = rows.map { ["name": $0.0, "url": $0.1.absoluteString] }
            try PropertyListSerialization.data(fromPropertyList: items, format: .xml, options: 0).write(to: list)
            return list
        }

        private static let photos = ["coffee.jpg", "astronaut.jpg", "cameraman.jpg", "grass.jpg"]

        /// Every row in `rows` final (filtered, or failed with its status shown).
        private func waitForFinal(
            _ app: AppSession, rows: @escaping ([TraceRecord]) -> [Int], timeout: Double
        )
            -> [TraceRecord]?
        {
            try? app.waitFor("rows final", timeout: timeout) { events in
                let states = AppSession.rowStates(events)
                let shown = Set(events.filter { $0.event.name == .rowStatus }.compactMap(\.event.row))
                let wanted = rows(events)
                return !wanted.isEmpty
                    && wanted.allSatisfy { states[$0] == .filtered || (states[$0] == .failed && shown.contains($0)) }
            }
        }

        /// The app's decoder helpers: its children (bubblewrap, or the helpers themselves) and theirs.
        private func helpers(of app: AppSession) -> [Int32] {
            var found: [Int32] = []
            var parents = [app.processIdentifier]
            while let parent = parents.popLast() {
                let children = AppSession.children(of: parent)
                parents += children
                found += children.filter { pid in
                    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
                    return exe.hasSuffix("/classic-photos-decoder")
                }
            }
            return found
        }

        @Test("A picture that crashes, hangs or exhausts its decoder fails its own row with its code; the rest load")
        func faultsCostOneRow() throws {
            let folder = try TestPictures.makeFolder("decoder-faults")
            defer { try? FileManager.default.removeItem(at: folder) }
            var faults: [(DecoderFault, PhotoFailure.Reason)] = [(.crash, .decoderCrashed), (.loop, .timeout)]
            // Under a sanitizer the helper's address space cannot be limited.
            if !runsUnderSanitizer { faults.append((.allocate, .decoderCrashed)) }
            var rows: [(String, URL)] = []
            var expected: [Int: PhotoFailure.Reason] = [:]
            for (index, name) in (Self.photos + Self.photos).enumerated() {
                if index < faults.count {
                    let file = folder.appendingPathComponent("\(faults[index].0.rawValue).jpg")
                    try faults[index].0.picture().write(to: file)
                    expected[rows.count] = faults[index].1
                    rows.append(("Fault \(faults[index].0.rawValue)", file))
                }
                rows.append((name, Products.packageRoot.appendingPathComponent("data/photos/\(name)")))
            }
            let app = try AppSession(
                source: try list(rows, in: folder).path,
                environment: ["CLASSIC_PHOTOS_DECODER_FAULTS": "1", "CLASSIC_PHOTOS_DECODE_SECONDS": "6"])
            _ = try app.waitFor(event: .sourceLoaded)
            // The fault rows and the photo rows on screen with them.
            let wanted = { (events: [TraceRecord]) -> [Int] in
                guard let visible = AppSession.visibleRanges(events).last else { return [] }
                return Array(Set(expected.keys).union(visible.clamped(to: 0...(rows.count - 1)))).sorted()
            }
            let events =
                waitForFinal(app, rows: wanted, timeout: 60 * sanitizerSlowdown)
                ?? {
                    Issue.record("the rows did not all end: \(AppSession.summary(of: app.events()))")
                    return app.events()
                }()
            // The decoding happened in helpers, which wait, idle, for more.
            #expect(!helpers(of: app).isEmpty, "no decoder helper is running under the app")
            let states = AppSession.rowStates(events)
            let fails = events.filter { $0.event.name == .opFail }
            for row in wanted(events) {
                if let reason = expected[row] {
                    let fail = fails.last { $0.event.row == row }
                    #expect(fail?.event.reason == reason, "row \(row): \(String(describing: fail?.event))")
                } else {
                    #expect(states[row] == .filtered, "row \(row) \(rows[row].0): \(String(describing: states[row]))")
                }
            }
            #expect(app.waitForExit(timeout: 0.1) == nil, "the app is still running")
            #expect(app.terminate() == 0)
        }

        @Test("Helpers killed with SIGKILL while the list scrolls leave the app alive and every visible row final")
        func killedWhileScrolling() throws {
            let folder = try TestPictures.makeFolder("decoder-kills")
            defer { try? FileManager.default.removeItem(at: folder) }
            // 300 rows of camera-sized photos, each its own file, so every row decodes.
            var rows: [(String, URL)] = []
            for index in 0..<60 {
                let file = folder.appendingPathComponent(String(format: "photo-%03d.jpg", index))
                let rgb = UInt32(0x203040 + index * 0x030201)
                let bytes = try #require(
                    CameraFiles.jpeg(width: 2400, height: 1600, rgb: rgb, progressive: index % 2 == 0))
                try bytes.write(to: file)
                for copy in 0..<5 { rows.append(("Photo \(index).\(copy)", file)) }
            }
            let app = try AppSession(source: try list(rows, in: folder).path)
            _ = try app.waitFor(event: .sourceLoaded)
            let window = try app.windowGeometry()
            try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + window.height / 2)"])
            // Kill every helper the app has, every 100 ms, while the wheel scrolls the list.
            let stop = Locked(false)
            let kills = Locked(0)
            let killer = Thread { [self] in
                while !stop.withLock({ $0 }) {
                    for pid in helpers(of: app) {
                        kill(pid, SIGKILL)
                        kills.withLock { $0 += 1 }
                    }
                    usleep(100_000)
                }
            }
            killer.start()
            // Six turns of the wheel, each once the list has come to rest after the one before
            // (and its visible rows have begun decoding, in helpers that die).
            for turn in 1...6 {
                try app.xdotool(["click", "--repeat", "15", "--delay", "40", "5"])
                try app.waitFor("the list at rest after turn \(turn)") { events in
                    events.filter { $0.event.name == .scrollEnd }.count >= turn
                }
            }
            stop.withLock { $0 = true }
            #expect(kills.withLock { $0 } > 0, "no helper was killed")
            let events =
                waitForFinal(app, rows: { AppSession.visibleRanges($0).last.map(Array.init) ?? [] }, timeout: 60)
                ?? {
                    Issue.record("the visible rows did not all end: \(AppSession.summary(of: app.events()))")
                    return app.events()
                }()
            let visible = try #require(AppSession.visibleRanges(events).last)
            let states = AppSession.rowStates(events)
            let fails = events.filter { $0.event.name == .opFail }
            for row in visible where states[row] == .failed {
                let reason = fails.last { $0.event.row == row }?.event.reason
                #expect(reason == .decoderCrashed, "row \(row) failed with \(String(describing: reason))")
            }
            print(
                "helpers killed: \(kills.withLock { $0 }); visible rows \(visible): "
                    + "\(visible.filter { states[$0] == .filtered }.count) filtered, "
                    + "\(visible.filter { states[$0] == .failed }.count) failed as decoder-crashed")
            #expect(app.waitForExit(timeout: 0.1) == nil, "the app is still running")
            #expect(app.terminate() == 0)
        }
    }
}
