import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// Photos keep their identity: whatever happens to the list while work is in flight, a row
/// only ever shows the image of the photo at its position.
@Suite(.serialized) @MainActor struct IdentityTests {
    /// Stands in for a row widget of the list view: bound to one position's photo at a time.
    @MainActor final class FakeRow {
        var photo: PhotoID?
        var snapshot: PhotoSnapshot?
    }

    /// Stands in for the list view: binds rows for the positions shown, as GTK does, and
    /// hands each pushed snapshot to the row bound to that photo (as the window does).
    @MainActor final class FakeList {
        let processor: PhotoProcessor
        var rows: [Int: FakeRow] = [:]
        var bound: [PhotoID: FakeRow] = [:]
        var deliveries = 0

        init(_ processor: PhotoProcessor) {
            self.processor = processor
            processor.observePhotos { [unowned self] snapshot in
                deliveries += 1
                bound[snapshot.id]?.snapshot = snapshot
            }
        }

        /// Rebinds every row for `positions` (GTK rebinds all rows on items-changed).
        func bind(_ positions: Range<Int>) {
            rows.removeAll()
            bound.removeAll()
            for position in positions where position < processor.list.count {
                let row = FakeRow()
                let id = processor.list.id(at: position)
                row.photo = id
                row.snapshot = processor.snapshot(at: position)
                rows[position] = row
                bound[id] = row
                processor.rowBound(position)
            }
        }
    }

    /// The colour a photo's name says it has: names are `c-RRGGBB-…`.
    static func colour(ofName name: String) -> (UInt8, UInt8, UInt8)? {
        let parts = name.split(separator: "-")
        guard parts.count >= 2, let rgb = UInt32(parts[1], radix: 16) else { return nil }
        return (UInt8(rgb >> 16), UInt8((rgb >> 8) & 0xFF), UInt8(rgb & 0xFF))
    }

    /// What is wrong with the rows now, if anything.
    static func violations(_ list: FakeList) -> [String] {
        var problems: [String] = []
        let photos = list.processor.list
        for (position, row) in list.rows {
            let expected = photos.id(at: position)
            guard row.photo == expected else {
                problems.append("row \(position) bound to \(String(describing: row.photo)), list has \(expected)")
                continue
            }
            guard let snapshot = row.snapshot else { continue }
            if snapshot.id != expected {
                problems.append("row \(position) shows photo \(snapshot.id), list has \(expected)")
            }
            guard let image = snapshot.image, let (r, g, b) = colour(ofName: photos.name(at: position)) else {
                continue
            }
            let (pr, pg, pb, _) = image.pixel(x: image.width / 2, y: image.height / 2)
            let sepia = SepiaFilter().apply(r: r, g: g, b: b)
            if !((pr, pg, pb) == (r, g, b) || (pr, pg, pb) == sepia) {
                problems.append("row \(position) (\(photos.name(at: position))) shows pixel \((pr, pg, pb))")
            }
        }
        return problems
    }

    @Test(
        "Reordering or replacing the list while operations run never shows one photo's image in another's row",
        arguments: 0..<6)
    func reorderAndReplace(seed: UInt64) async throws {
        var rng = SplitMix64(state: seed &* 104_729 &+ 17)
        let server = try LoopbackServer()
        server.photoLatencyMs.store(Int.random(in: 5...40, using: &rng), ordering: .relaxed)
        let processor = PhotoProcessor(fetcher: PhotoFetcher(), prefetchMargin: 1, maxPixelSize: 32)
        let list = FakeList(processor)
        var generation = 0

        func newList() {
            generation += 1
            let count = Int.random(in: 8...40, using: &rng)
            let entries = (0..<count).map { n -> PhotoEntry in
                let rgb = String(format: "%06X", UInt32.random(in: 0...0xFF_FFFF, using: &rng))
                return PhotoEntry(
                    name: "c-\(rgb)-\(generation)-\(n)", url: server.url("/colour/\(rgb)?g=\(generation)&n=\(n)"))
            }
            processor.setEntries(entries)
        }
        func randomRange() -> Range<Int> {
            let count = processor.list.count
            let first = Int.random(in: 0..<count, using: &rng)
            return first..<min(count, first + Int.random(in: 1...6, using: &rng))
        }

        newList()
        var visible = randomRange()
        processor.visibleRowsChanged(visible)
        list.bind(visible)
        for step in 0..<30 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<4:
                var positions = Array(0..<processor.list.count)
                positions.shuffle(using: &rng)
                processor.list.apply(.reorder(positions.map { processor.list.id(at: $0) }))
            case 4..<5:
                newList()
                visible = randomRange()
                processor.visibleRowsChanged(visible)
            default:
                visible = randomRange()
                processor.visibleRowsChanged(visible)
            }
            list.bind(visible)
            // Let some work finish (or not) before the next change.
            let pause = Int.random(in: 0...30, using: &rng)
            let deadline = Date().addingTimeInterval(Double(pause) / 1000)
            while Date() < deadline {
                await MainLoop.turn(milliseconds: 2)
                let problems = Self.violations(list)
                #expect(problems.isEmpty, "seed \(seed) step \(step): \(problems)")
                if !problems.isEmpty { return }
            }
        }
        // At rest every visible photo ends filtered in its own row.
        let settled = Date().addingTimeInterval(15)
        while Date() < settled, list.rows.values.contains(where: { $0.snapshot?.state != .filtered }) {
            await MainLoop.turn(milliseconds: 5)
        }
        #expect(Self.violations(list).isEmpty)
        #expect(
            list.rows.values.allSatisfy { $0.snapshot?.state == .filtered },
            "seed \(seed): not all visible rows filtered")
        #expect(list.deliveries > 0)
        processor.shutDown()
    }

    @Test(
        "10,000 random binds, unbinds, scrolls, visibility changes, cancellations and memory warnings against real operations: no completion lost or doubled, no row showing another photo"
    )
    func stress() async throws {
        var rng = SplitMix64(state: 0x5EED_CAFE)
        let server = try LoopbackServer()
        server.photoLatencyMs.store(3, ordering: .relaxed)
        let processor = PhotoProcessor(fetcher: PhotoFetcher(), prefetchMargin: 1, maxPixelSize: 16)
        processor.memoryCap = 64 * 16 * 16 * 3 // room for 64 thumbnails: evictions happen too
        let entries = (0..<300).map { n -> PhotoEntry in
            let rgb = String(format: "%06X", UInt32.random(in: 0...0xFF_FFFF, using: &rng))
            return PhotoEntry(name: "c-\(rgb)-\(n)", url: server.url("/colour/\(rgb)?n=\(n)"))
        }
        processor.setEntries(entries)
        let list = FakeList(processor)
        // Doubled completions: a photo must not be reported finished (filtered) twice unless it
        // was made new again (memory warning, eviction) in between.
        var lastFiltered: [PhotoID: ObjectIdentifier] = [:]
        var doubled: [String] = []
        // (After the list's own handler, which counts the delivery and updates the row.)
        processor.observePhotos { snapshot in
            switch snapshot.state {
            case .filtered:
                // The same result pushed again (a rebind, a cancel of nothing) is not a second
                // completion; another picture without a reset in between would be.
                guard let image = snapshot.image else { break }
                let picture = ObjectIdentifier(image)
                if let earlier = lastFiltered[snapshot.id], earlier != picture { doubled.append("\(snapshot.id)") }
                lastFiltered[snapshot.id] = picture
            case .new: lastFiltered[snapshot.id] = nil
            default: break
            }
        }
        func randomRange() -> Range<Int> {
            let first = Int.random(in: 0..<processor.list.count, using: &rng)
            return first..<min(processor.list.count, first + Int.random(in: 1...8, using: &rng))
        }
        var visible = randomRange()
        var scrolling = false
        processor.visibleRowsChanged(visible)
        list.bind(visible)
        var counts: [String: Int] = [:]
        for step in 0..<10_000 {
            let event: String
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<25:
                event = "bind"
                if let position = visible.randomElement(using: &rng) { processor.rowBound(position) }
            case 25..<40:
                event = "unbind" // GTK rebinds the rows for another range
                visible = randomRange()
                list.bind(visible)
            case 40..<55:
                event = scrolling ? "scroll end" : "scroll begin"
                if scrolling { processor.scrollEnded(visible: visible) } else { processor.scrollBegan() }
                scrolling.toggle()
            case 55..<80:
                event = "visibility" // what scrolled away is cancelled, what came into view starts
                visible = randomRange()
                processor.visibleRowsChanged(visible)
                list.bind(visible)
            case 80..<83:
                event = "memory warning"
                processor.memoryWarning()
            default:
                event = "completions" // let the workers' results in
                await MainLoop.turn(milliseconds: Int.random(in: 0...3, using: &rng))
            }
            counts[event, default: 0] += 1
            if step % 10 == 0 { await Task.yield() }
            if step % 50 == 0 {
                let problems = Self.violations(list)
                #expect(problems.isEmpty, "step \(step): \(problems)")
                if !problems.isEmpty { break }
            }
        }
        if scrolling { processor.scrollEnded(visible: visible) }
        list.bind(visible)
        // At rest nothing is lost: every visible photo ends filtered in its own row, and no work
        // or bookkeeping is left behind.
        let settled = Date().addingTimeInterval(20)
        while Date() < settled,
            list.rows.values.contains(where: { $0.snapshot?.state != .filtered })
                || !processor.pendingOperations.photosInProgress.isEmpty
        {
            await MainLoop.turn(milliseconds: 5)
        }
        print(
            "stress: \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); "
                + "\(list.deliveries) snapshots delivered, \(server.totalColourRequests) photos fetched")
        #expect(Self.violations(list).isEmpty)
        #expect(list.rows.values.allSatisfy { $0.snapshot?.state == .filtered }, "not all visible rows filtered")
        #expect(processor.pendingOperations.photosInProgress.isEmpty)
        #expect(processor.scheduler.pending.isEmpty, "\(processor.scheduler.pending.count) photos still pending")
        #expect(!processor.pendingOperations.isSuspended)
        #expect(doubled.isEmpty, "completed twice: \(doubled)")
        processor.shutDown()
    }

    @Test("Identities are unique across lists, and a photo's record follows it to its new position")
    func identities() {
        let processor = PhotoProcessor(fetcher: PhotoFetcher())
        let base = URL(string: "https://example.org/")!
        processor.setEntries((0..<5).map { PhotoEntry(name: "p\($0)", url: base.appendingPathComponent("\($0).jpg")) })
        let first = (0..<5).map { processor.list.id(at: $0) }
        #expect(Set(first).count == 5)
        let record = try! #require(processor.list.photos.makeRecord(for: first[1]))
        processor.list.apply(.reorder([4, 3, 2, 1, 0].map { first[$0] }))
        #expect(processor.list.id(at: 3) == first[1])
        #expect(record.position == 3)
        #expect(processor.list.name(at: 3) == "p1")
        #expect(processor.list.entry(at: 0).link == "https://example.org/4.jpg")
        processor.setEntries([PhotoEntry(name: "q", url: base)])
        #expect(!first.contains(processor.list.id(at: 0)))
        #expect(record.position == -1)
        #expect(processor.list.position(of: first[0]) == nil)
    }
}
