import Foundation
import GLibKit

/// Sorting a folder shown: the facts each photo is sorted by, read on every core (and from
/// the index), and the new order shown as one edit that keeps the photo in view.
extension LiveFolder {
    /// The folder is to be shown in `order`: worked out off the main thread (reading what it
    /// needs from each file, on every core), then shown without moving the photo in view.
    /// With `checking` (the order the rows came in, from the index's dates), nothing is said
    /// or moved when the photos turn out to be in it already.
    func sort(by order: PhotoOrder, generation: Int, checking: Bool = false) {
        sorting?.cancel()
        let snapshot = photos.snapshot()
        let version = photos.version
        let ids = (0..<snapshot.count).map { snapshot.id(at: $0) }
        let known = order.key == .name ? [:] : facts
        let (allKnown, knownVersion) = (facts, factsVersion)
        let cancellable = Cancellable()
        sorting = cancellable
        let folderPath = url.path
        DispatchQueue.global(qos: .userInitiated).async {
            let entries = (0..<snapshot.count).map { snapshot.entry(at: $0) }
            var facts: [SortFacts?] = []
            if order.needsFacts {
                // What the index holds for the whole folder, read at once: asked photo by photo,
                // a tree of 100,000 took seconds more.
                let indexed = order.key == .dateTaken ? PhotoIndex.shared?.facts(inFolder: folderPath) : nil
                facts = Self.readFacts(
                    entries.indices.map { index in
                        known[ids[index]].flatMap { order.key != .dateTaken || $0.taken != nil ? $0 : nil }
                    }, of: entries, taken: order.key == .dateTaken, indexed: indexed, cancellable: cancellable)
            }
            if order.key == .dateTaken { PhotoIndex.shared?.flush() }
            if cancellable.isCancelled { return }
            let sorted = order.order(names: entries.map(\.name), links: entries.map(\.link), facts: facts)
            let newIDs = sorted.map { ids[$0] }
            let found = Dictionary(
                uniqueKeysWithValues: zip(ids, facts).compactMap { id, facts in facts.map { (id, $0) } })
            // Merged here: 100,000 photos' facts merged on the main thread held it up for 40 ms.
            // Handed over in a box, so that the main thread can pass what it does not keep to a
            // worker to free (see `releaseOnWorker`).
            let handed = Locked<(found: [PhotoID: SortFacts], merged: [PhotoID: SortFacts])?>(
                (found, allKnown.merging(found) { $1 }))
            MainLoop.onMainActor { [weak self] in
                guard var (found, merged) = handed.withLock({ $0.take() }) else { return }
                defer {
                    releaseOnWorker(&found, leaving: [:])
                    releaseOnWorker(&merged, leaving: [:])
                }
                guard let self, !cancellable.isCancelled, generation == photos.generation, sorting === cancellable
                else { return }
                sorting = nil
                if factsVersion == knownVersion {
                    swap(&self.facts, &merged) // the facts before go with `merged`
                } else {
                    self.facts.merge(found) { $1 }
                }
                let unchanged = newIDs == ids && photos.version == version
                if checking, order == self.order {
                    Trace.shared.emit(.indexChecked(rows: ids.count, reordered: !unchanged))
                    if unchanged {
                        orderChecked = true
                        return
                    }
                }
                show(newIDs, in: order)
            }
        }
    }

    /// The facts of `entries` where `had` has none, read on every core (the dates from
    /// `indexed` where it holds them for the same size and time).
    private nonisolated static func readFacts(
        _ had: [SortFacts?], of entries: [PhotoEntry], taken: Bool, indexed: [String: PhotoIndex.Facts]?,
        cancellable: Cancellable
    ) -> [SortFacts?] {
        let read = UnsafeMutableBufferPointer<SortFacts?>.allocate(capacity: entries.count)
        _ = read.initialize(from: had)
        defer {
            read.deinitialize()
            read.deallocate()
        }
        // Each chunk writes its own slots and no other.
        nonisolated(unsafe) let slots = read
        let chunks = entries.count < 256 ? 1 : 4 * ProcessInfo.processInfo.activeProcessorCount
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            for index in (entries.count * chunk / chunks)..<(entries.count * (chunk + 1) / chunks) {
                if index % 1024 == 0, cancellable.isCancelled { return }
                if slots[index] == nil {
                    slots[index] = SortFacts.read(link: entries[index].link, taken: taken, known: indexed)
                }
            }
        }
        return Array(read)
    }

    /// Shows the photos in the order `ids` (the same photos as now, unless the folder changed
    /// meanwhile: then it is worked out again). The photo at the top of the view (or the one
    /// selected, if on screen) keeps its place on screen.
    private func show(_ ids: [PhotoID], in order: PhotoOrder) {
        guard ids.count == whole.count, ids.allSatisfy(whole.contains) else {
            sort(by: order, generation: photos.generation)
            return
        }
        self.order = order
        orderChecked = true
        feed.apply(.reorder(ids, keepingInView: true))
        Trace.shared.emit(.listSorted(key: order.key.rawValue, descending: order.descending, rows: ids.count))
    }
}
