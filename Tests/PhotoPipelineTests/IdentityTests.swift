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
            processor.onPhotoChanged = { [unowned self] snapshot in
                deliveries += 1
                bound[snapshot.id]?.snapshot = snapshot
            }
        }

        /// Rebinds every row for `positions` (GTK rebinds all rows on items-changed).
        func bind(_ positions: Range<Int>) {
            rows.removeAll()
            bound.removeAll()
            for position in positions where position < processor.photos.count {
                let row = FakeRow()
                let id = processor.photos.id(at: position)
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
        let photos = list.processor.photos
        for (position, row) in list.rows {
            let expected = photos.id(at: position)
            guard row.photo == expected else {
                problems.append("row \(position) bound to \(String(describing: row.photo)), list has \(expected)")
                continue
            }
            guard let snapshot = row.snapshot else { continue }
            if snapshot.id != expected { problems.append("row \(position) shows photo \(snapshot.id), list has \(expected)") }
            guard let image = snapshot.image, let (r, g, b) = colour(ofName: photos.name(at: position)) else { continue }
            let (pr, pg, pb, _) = image.pixel(x: image.width / 2, y: image.height / 2)
            let sepia = SepiaFilter().apply(r: r, g: g, b: b)
            if !((pr, pg, pb) == (r, g, b) || (pr, pg, pb) == sepia) {
                problems.append("row \(position) (\(photos.name(at: position))) shows pixel \((pr, pg, pb))")
            }
        }
        return problems
    }

    @Test("Reordering or replacing the list while operations run never shows one photo's image in another's row",
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
                return PhotoEntry(name: "c-\(rgb)-\(generation)-\(n)", url: server.url("/colour/\(rgb)?g=\(generation)&n=\(n)"))
            }
            processor.setEntries(entries)
        }
        func randomRange() -> Range<Int> {
            let count = processor.photos.count
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
                var positions = Array(0..<processor.photos.count)
                positions.shuffle(using: &rng)
                processor.reorder(positions)
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
                try await Task.sleep(for: .milliseconds(2))
                let problems = Self.violations(list)
                #expect(problems.isEmpty, "seed \(seed) step \(step): \(problems)")
                if !problems.isEmpty { return }
            }
        }
        // At rest every visible photo ends filtered in its own row.
        let settled = Date().addingTimeInterval(15)
        while Date() < settled, list.rows.values.contains(where: { $0.snapshot?.state != .filtered }) {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(Self.violations(list).isEmpty)
        #expect(list.rows.values.allSatisfy { $0.snapshot?.state == .filtered }, "seed \(seed): not all visible rows filtered")
        #expect(list.deliveries > 0)
        processor.shutDown()
    }

    @Test("Identities are unique across lists, and a photo's record follows it to its new position")
    func identities() {
        let processor = PhotoProcessor(fetcher: PhotoFetcher())
        let base = URL(string: "https://example.org/")!
        processor.setEntries((0..<5).map { PhotoEntry(name: "p\($0)", url: base.appendingPathComponent("\($0).jpg")) })
        let first = (0..<5).map { processor.photos.id(at: $0) }
        #expect(Set(first).count == 5)
        let record = try! #require(processor.photos.record(for: first[1]))
        processor.reorder([4, 3, 2, 1, 0])
        #expect(processor.photos.id(at: 3) == first[1])
        #expect(record.position == 3)
        #expect(processor.photos.name(at: 3) == "p1")
        #expect(processor.photos.entry(at: 0).link == "https://example.org/4.jpg")
        processor.setEntries([PhotoEntry(name: "q", url: base)])
        #expect(!first.contains(processor.photos.id(at: 0)))
        #expect(record.position == -1)
        #expect(processor.photos.position(of: first[0]) == nil)
    }
}
