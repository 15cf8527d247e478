import Foundation
@testable import PhotoPipeline
import Testing
import TestSupport

@Suite struct ScrollSchedulerTests {
    typealias Action = ScrollScheduler<Int>.Action

    // MARK: Single rules

    @Test("First appearance starts the visible rows, then the prefetch margin, nearest first")
    func firstAppearance() {
        var s = ScrollScheduler<Int>(prefetchMargin: 2)
        _ = s.listChanged(rowCount: 100)
        let actions = s.visibleRowsChanged(10..<13) { _ in true }
        #expect(
            actions == [
                .start(10, priority: .visible), .start(11, priority: .visible), .start(12, priority: .visible),
                .start(9, priority: .prefetch), .start(8, priority: .prefetch),
                .start(13, priority: .prefetch), .start(14, priority: .prefetch),
            ])
    }

    @Test("Scroll begin suspends; rows bound while scrolling start nothing; scroll end cancels, starts, resumes")
    func scrollCycle() {
        var s = ScrollScheduler<Int>(prefetchMargin: 0)
        _ = s.listChanged(rowCount: 100)
        _ = s.visibleRowsChanged(0..<3) { _ in true }
        #expect(s.scrollBegan() == [.suspendQueues])
        #expect(s.scrollBegan() == [])
        #expect(s.rowBound(50) { _ in true } == [])
        let end = s.scrollEnded(visible: 50..<52) { _ in true }
        #expect(
            end == [
                .cancel(0), .cancel(1), .cancel(2),
                .start(50, priority: .visible), .start(51, priority: .visible), .resumeQueues,
            ])
    }

    @Test("Rows that need no work (filtered or failed) are never started")
    func finishedRowsAreSkipped() {
        var s = ScrollScheduler<Int>(prefetchMargin: 1)
        _ = s.listChanged(rowCount: 10)
        let actions = s.visibleRowsChanged(2..<5) { $0 != 3 }
        #expect(!actions.contains(.start(3, priority: .visible)))
        #expect(actions.count == 4)
    }

    @Test("A hidden window suspends the queues and starts nothing until shown")
    func hiddenWindow() {
        var s = ScrollScheduler<Int>()
        _ = s.listChanged(rowCount: 10)
        #expect(s.windowHidden(true) { _ in true } == [.suspendQueues])
        #expect(s.visibleRowsChanged(0..<2) { _ in true } == [])
        #expect(
            s.windowHidden(false) { _ in true } == [
                .start(0, priority: .visible), .start(1, priority: .visible), .resumeQueues,
            ])
    }

    @Test("Work deferred by a scroll restarts at once if the news comes after the scroll ended")
    func deferredWorkRestarts() {
        var s = ScrollScheduler<Int>()
        _ = s.listChanged(rowCount: 10)
        _ = s.visibleRowsChanged(0..<2) { _ in true }
        _ = s.scrollBegan()
        #expect(s.workDeferred(row: 0) { _ in true } == []) // still scrolling: wait for the end
        _ = s.scrollEnded(visible: 0..<2) { _ in true }
        #expect(s.pending[0] == .visible)
        #expect(s.workDeferred(row: 1) { _ in true } == [.start(1, priority: .visible)])
        #expect(s.pending[1] == .visible)
    }

    @Test("A prefetch row that becomes visible is raised to visible priority")
    func raisePriority() {
        var s = ScrollScheduler<Int>(prefetchMargin: 2)
        _ = s.listChanged(rowCount: 20)
        _ = s.visibleRowsChanged(0..<2) { _ in true }
        #expect(s.pending[3] == .prefetch)
        _ = s.scrollBegan()
        let end = s.scrollEnded(visible: 2..<4) { _ in true }
        #expect(end.contains(.setPriority(3, priority: .visible)))
        #expect(s.pending[3] == .visible)
    }

    // MARK: A grid

    @Test("In a grid the visible cells start nearest the centre first, then one row of cells each side")
    func gridStartsFromTheCentre() {
        var s = ScrollScheduler<Int>(prefetchMargin: 2)
        _ = s.listChanged(rowCount: 100)
        // Four columns; rows 2, 3 and 4 on screen (cells 8 to 19).
        let actions = s.columnsChanged(4, visible: 8..<20, layout: IdentityLayout { _ in true })
        let started = actions.compactMap { action -> Int? in
            if case .start(let id, _) = action { id } else { nil }
        }
        #expect(s.margin == 4 && s.wanted == 4..<24)
        // The middle row's two middle cells, then the cells straight above and below them, then
        // the ends of the middle row, the corners of the screen last; then the margin: the row
        // above, nearest first, and the row below.
        #expect(started == [13, 14, 9, 10, 17, 18, 12, 15, 8, 11, 16, 19, 7, 6, 5, 4, 20, 21, 22, 23])
        #expect(
            actions.allSatisfy {
                if case .start(let id, let p) = $0 { (p == .visible) == (8..<20).contains(id) } else { true }
            })
    }

    @Test("Changing the columns (a new cell size) cancels the cells no longer wanted and starts the new ones")
    func columnsChangeReconciles() {
        var s = ScrollScheduler<Int>(prefetchMargin: 1)
        _ = s.listChanged(rowCount: 200)
        _ = s.columnsChanged(6, visible: 0..<24, layout: IdentityLayout { _ in true }) // margin 6: 0..<30
        #expect(Set(s.pending.keys) == Set(0..<30))
        // Larger cells: three columns, nine cells on screen.
        let actions = s.columnsChanged(3, visible: 0..<9, layout: IdentityLayout { _ in true })
        #expect(Set(s.pending.keys) == Set(0..<12))
        #expect(actions.filter { if case .cancel = $0 { true } else { false } }.count == 18)
        #expect(!actions.contains { if case .start = $0 { true } else { false } })
        // Back to a list: the seeds' margin in rows, from the top.
        let list = s.columnsChanged(1, visible: 0..<5, layout: IdentityLayout { _ in true })
        #expect(s.margin == 1 && Set(s.pending.keys) == Set(0..<6))
        #expect(list.filter { if case .cancel = $0 { true } else { false } }.count == 6)
    }

    @Test("While scrolling, a new column count is remembered and decided when the scroll ends")
    func columnsWhileScrolling() {
        var s = ScrollScheduler<Int>(prefetchMargin: 2)
        _ = s.listChanged(rowCount: 100)
        _ = s.visibleRowsChanged(0..<5) { _ in true }
        _ = s.scrollBegan()
        #expect(s.columnsChanged(5, visible: 0..<20, layout: IdentityLayout { _ in true }) == [])
        let end = s.scrollEnded(visible: 20..<40) { _ in true }
        #expect(end.last == .resumeQueues)
        #expect(Set(s.pending.keys) == Set(15..<45))
    }

    // MARK: Random sequences

    /// The photo at each position of a real `PhotoCollection`, and which photos are done.
    @MainActor struct CollectionLayout: @MainActor ScrollLayout {
        let photos: PhotoCollection
        let done: Set<PhotoID>
        func id(at position: Int) -> PhotoID { photos.id(at: position) }
        func needsWork(_ id: PhotoID) -> Bool { !done.contains(id) }
    }

    /// Stands in for the operation queues and the list's rows: carries out the scheduler's
    /// actions, makes each photo's work from its record (as the processor does), and delivers
    /// a finished result to the row at its record's position, where it must find its photo.
    @MainActor struct Executor {
        /// Work started and neither finished nor cancelled: its priority and the record it was made for.
        var running: [PhotoID: (priority: ScrollScheduler<PhotoID>.Priority, record: PhotoRecord)] = [:]
        var suspended = false
        var done: Set<PhotoID> = []
        /// The picture each photo's finished work made: the address it was made from.
        var pictures: [PhotoID: String] = [:]
        /// The photo each row widget is bound to, and the picture it shows, by position.
        var rowPhoto: [Int: PhotoID] = [:]
        var rowPicture: [Int: String] = [:]
        var problems: [String] = []
        let photos: PhotoCollection

        init(_ photos: PhotoCollection) { self.photos = photos }

        mutating func apply(_ actions: [ScrollScheduler<PhotoID>.Action], scrolling: Bool) {
            for action in actions {
                switch action {
                case .suspendQueues:
                    if suspended { problems.append("suspended twice") }
                    suspended = true
                case .resumeQueues:
                    if !suspended { problems.append("resumed twice") }
                    suspended = false
                case .start(let id, let priority):
                    if scrolling { problems.append("started \(id) while scrolling") }
                    if running[id] != nil { problems.append("started \(id) twice") }
                    if done.contains(id) { problems.append("started finished \(id)") }
                    guard let record = photos.makeRecord(for: id) else {
                        problems.append("started \(id), not in the list")
                        continue
                    }
                    running[id] = (priority, record)
                case .cancel(let id):
                    if running.removeValue(forKey: id) == nil { problems.append("cancelled idle \(id)") }
                case .setPriority(let id, let priority):
                    if running[id] == nil { problems.append("reprioritised idle \(id)") }
                    running[id]?.priority = priority
                }
            }
        }

        /// Binds the row at `position` to the photo there, showing that photo's picture if any.
        mutating func bind(_ position: Int) {
            let id = photos.id(at: position)
            rowPhoto[position] = id
            rowPicture[position] = pictures[id]
        }

        /// The queue finishes the photo's work: its picture goes to the row its record says
        /// the photo is at, if a row is bound there.
        mutating func finish(_ id: PhotoID) {
            guard let work = running.removeValue(forKey: id) else { return }
            done.insert(id)
            pictures[id] = work.record.entry.link
            let position = work.record.position
            guard let bound = rowPhoto[position] else { return }
            if bound != work.record.id {
                problems.append("\(work.record.name)'s picture delivered to row \(position), bound to \(bound)")
            }
            rowPicture[position] = work.record.entry.link
        }

        /// What is wrong with the rows now: each must be bound to the photo at its position and
        /// show nothing or that photo's picture.
        func rowProblems() -> [String] {
            var problems: [String] = []
            for (position, id) in rowPhoto where photos.id(at: position) != id {
                problems.append("row \(position) bound to \(id), the list has \(photos.id(at: position))")
            }
            for (position, picture) in rowPicture where picture != photos.entry(at: position).link {
                problems.append("row \(position) (\(photos.name(at: position))) shows \(picture)")
            }
            return problems
        }
    }

    @Test("Random event sequences keep every rule, and every row shows its own photo", arguments: 0..<40)
    @MainActor func randomSequences(seed: UInt64) {
        var rng = SplitMix64(state: seed &* 7919 &+ 1)
        let rows = Int.random(in: 1...400, using: &rng)
        let margin = Int.random(in: 0...4, using: &rng)
        let photos = PhotoCollection()
        let base = URL(string: "https://example.org/")!
        photos.append((0..<rows).map { PhotoEntry(name: "p\($0)", url: base.appendingPathComponent("\($0).jpg")) })
        var s = ScrollScheduler<PhotoID>(prefetchMargin: margin)
        var e = Executor(photos)
        e.apply(s.listChanged(rowCount: rows), scrolling: false)
        func randomRange() -> Range<Int> {
            let first = Int.random(in: 0..<rows, using: &rng)
            return first..<min(rows, first + Int.random(in: 1...12, using: &rng))
        }
        for step in 0..<400 {
            let layout = CollectionLayout(photos: photos, done: e.done)
            let before = s.isScrolling
            var actions: [ScrollScheduler<PhotoID>.Action] = []
            var event = ""
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<13: event = "begin"; actions = s.scrollBegan()
            case 13..<24:
                let range = randomRange()
                event = "end \(range)"
                actions = s.scrollEnded(visible: range, layout: layout)
            case 24..<33:
                let range = randomRange()
                event = "visible \(range)"
                actions = s.visibleRowsChanged(range, layout: layout)
            case 33..<54:
                let row = Int.random(in: 0..<rows, using: &rng)
                event = "bind \(row)"
                e.bind(row)
                actions = s.rowBound(row, layout: layout)
            case 54..<62:
                // Sorted: the same photos at other positions; GTK rebinds every row.
                var positions = Array(0..<rows)
                positions.shuffle(using: &rng)
                event = "reorder"
                photos.reorder(positions)
                for position in e.rowPhoto.keys { e.bind(position) }
                actions = s.orderChanged(layout: layout)
            case 62..<86:
                // The queue finishes one running photo's work (it is then done: filtered or failed).
                guard let id = e.running.keys.randomElement(using: &rng) else { continue }
                event = "finish \(id)"
                e.finish(id)
                actions = s.workFinished(id)
            case 86..<90:
                // A completion that raced with a cancel arrives for a photo with no work: ignored.
                let id = photos.id(at: Int.random(in: 0..<rows, using: &rng))
                guard e.running[id] == nil else { continue }
                event = "stale \(id)"
                actions = s.workFinished(id)
            case 90..<95:
                let hidden = Bool.random(using: &rng)
                event = "hidden \(hidden)"
                actions = s.windowHidden(hidden, layout: layout)
            case 95..<97: event = "memory"; actions = s.memoryWarning()
            default:
                // Memory pressure dropped a finished photo's picture: it needs work again.
                guard let id = e.done.randomElement(using: &rng), e.running[id] == nil else { continue }
                event = "dropped \(id)"
                e.done.remove(id)
                e.pictures[id] = nil
                for (position, bound) in e.rowPhoto where bound == id { e.rowPicture[position] = nil }
            }
            e.apply(actions, scrolling: before && s.isScrolling)
            let context = "seed \(seed) step \(step) after \(event)"

            var violations = e.problems + e.rowProblems()
            if Set(e.running.keys) != Set(s.pending.keys) { violations.append("running and pending differ") }
            if e.running.mapValues({ $0.priority }) != s.pending { violations.append("priorities differ") }
            if e.suspended != (s.isScrolling || s.isHidden) { violations.append("suspension wrong") }
            if s.isScrolling {
                if actions.contains(where: { if case .start = $0 { true } else { false } }) {
                    violations.append("started while scrolling")
                }
            } else {
                let wantedPhotos = Set(s.wanted.map(photos.id(at:)))
                for id in s.pending.keys where !wantedPhotos.contains(id) {
                    violations.append("\(id) runs outside \(s.wanted)")
                }
                if !s.isHidden, event.hasPrefix("end") || event.hasPrefix("visible") || event == "reorder" {
                    for id in s.visible.map(photos.id(at:)) where !e.done.contains(id) && s.pending[id] != .visible {
                        violations.append("visible \(id) not started")
                    }
                }
            }
            #expect(violations.isEmpty, "\(context): \(violations)")
            if !violations.isEmpty { return }
        }

        // Last, the list comes to rest where it is, shown, and the desktop runs short of memory:
        // the work in flight is cancelled and every picture let go. GTK binds the rows on screen
        // and those of the margin again, and the queues run dry: every one of those rows must
        // show its own photo's picture again. The checks above allow a row to show nothing, and
        // ask nothing of a row bound at rest or of the margin's rows, so a scheduler that left
        // them without work passed them.
        let rest = { CollectionLayout(photos: photos, done: e.done) }
        if s.isScrolling { e.apply(s.scrollEnded(visible: s.visible, layout: rest()), scrolling: false) }
        if s.isHidden { e.apply(s.windowHidden(false, layout: rest()), scrolling: false) }
        e.apply(s.memoryWarning(), scrolling: false)
        e.done.removeAll()
        e.pictures.removeAll()
        e.rowPicture.removeAll()
        for position in s.wanted {
            e.bind(position)
            e.apply(s.rowBound(position, layout: rest()), scrolling: false)
        }
        while let id = e.running.keys.min() {
            e.finish(id)
            e.apply(s.workFinished(id), scrolling: false)
        }
        let blank = s.wanted.filter { e.rowPicture[$0] != photos.entry(at: $0).link }
        #expect(
            !s.wanted.isEmpty && blank.isEmpty && e.problems.isEmpty,
            "seed \(seed): at rest, rows \(blank) of \(s.wanted) show no picture of their own; \(e.problems)")
    }
}

// MARK: - Rows as identities

/// The simplest layout: the photo at each position is the position itself.
struct IdentityLayout: ScrollLayout {
    let needs: (Int) -> Bool
    func id(at position: Int) -> Int { position }
    func needsWork(_ id: Int) -> Bool { needs(id) }
}

/// A layout over an explicit order of photo identities.
struct OrderLayout: ScrollLayout {
    var ids: [Int]
    var done: Set<Int> = []
    func id(at position: Int) -> Int { ids[position] }
    func needsWork(_ id: Int) -> Bool { !done.contains(id) }
}

/// The rules' tests speak of rows whose photo is the row number.
extension ScrollScheduler where ID == Int {
    mutating func scrollEnded(visible: Range<Int>, needsWork: (Int) -> Bool) -> [Action] {
        withoutActuallyEscaping(needsWork) { scrollEnded(visible: visible, layout: IdentityLayout(needs: $0)) }
    }
    mutating func visibleRowsChanged(_ visible: Range<Int>, needsWork: (Int) -> Bool) -> [Action] {
        withoutActuallyEscaping(needsWork) { visibleRowsChanged(visible, layout: IdentityLayout(needs: $0)) }
    }
    mutating func rowBound(_ row: Int, needsWork: (Int) -> Bool) -> [Action] {
        withoutActuallyEscaping(needsWork) { rowBound(row, layout: IdentityLayout(needs: $0)) }
    }
    mutating func workDeferred(row: Int, needsWork: (Int) -> Bool) -> [Action] {
        withoutActuallyEscaping(needsWork) { workDeferred(row, at: row, layout: IdentityLayout(needs: $0)) }
    }
    mutating func windowHidden(_ hidden: Bool, needsWork: (Int) -> Bool) -> [Action] {
        withoutActuallyEscaping(needsWork) { windowHidden(hidden, layout: IdentityLayout(needs: $0)) }
    }
}

@Suite struct ScrollSchedulerIdentityTests {
    @Test(
        "Work follows its photo when the list is reordered: photos that left the screen are cancelled, those that came onto it start"
    )
    func reorderMovesWork() {
        var layout = OrderLayout(ids: Array(100..<120))
        var s = ScrollScheduler<Int>(prefetchMargin: 0)
        _ = s.listChanged(rowCount: 20)
        #expect(
            s.visibleRowsChanged(0..<3, layout: layout) == [
                .start(100, priority: .visible), .start(101, priority: .visible), .start(102, priority: .visible),
            ])
        // Reversed: the three photos shown move to the end, and 119, 118, 117 come on screen.
        layout.ids.reverse()
        let actions = s.orderChanged(layout: layout)
        #expect(
            actions == [
                .cancel(100), .cancel(101), .cancel(102),
                .start(119, priority: .visible), .start(118, priority: .visible), .start(117, priority: .visible),
            ])
        #expect(Set(s.pending.keys) == [117, 118, 119])
    }

    @Test(
        "Rows taken out from under the screen (the last photos moved to the trash) leave nothing wanted and cancel their work"
    )
    func rowsRemovedBelowTheScreen() {
        var layout = OrderLayout(ids: Array(0..<40))
        var s = ScrollScheduler<Int>(prefetchMargin: 2)
        _ = s.listChanged(rowCount: 40)
        _ = s.visibleRowsChanged(30..<40, layout: layout)
        #expect(s.pending.count == 12)
        // The photos from 8 on leave: the rows once on screen are past the end.
        layout.ids = Array(0..<8)
        s.rowCountChanged(8)
        let actions = s.orderChanged(layout: layout)
        #expect(actions == (28..<40).map { ScrollScheduler<Int>.Action.cancel($0) }, "\(actions)")
        #expect(s.pending.isEmpty)
        // The view follows: the rows left are on screen, and start.
        #expect(s.visibleRowsChanged(0..<8, layout: layout).count == 8)
    }

    @Test("A photo that stays on screen across a reorder keeps its work, with no second start")
    func reorderKeepsVisibleWork() {
        var layout = OrderLayout(ids: [10, 11, 12, 13, 14, 15])
        var s = ScrollScheduler<Int>(prefetchMargin: 0)
        _ = s.listChanged(rowCount: 6)
        _ = s.visibleRowsChanged(0..<2, layout: layout)
        layout.ids = [11, 15, 10, 12, 13, 14]
        #expect(s.orderChanged(layout: layout) == [.cancel(10), .start(15, priority: .visible)])
        #expect(Set(s.pending.keys) == [11, 15])
    }

    @Test("Rows appended by a later batch leave running work alone and start when bound at rest")
    func appendedRows() {
        let layout = OrderLayout(ids: Array(0..<30))
        var s = ScrollScheduler<Int>(prefetchMargin: 1)
        _ = s.listChanged(rowCount: 0)
        s.rowsAppended(rowCount: 10)
        _ = s.visibleRowsChanged(0..<4, layout: layout)
        let before = s.pending
        s.rowsAppended(rowCount: 30)
        #expect(s.pending == before)
        #expect(s.rowBound(4, layout: layout) == []) // already started as prefetch
        #expect(s.rowBound(20, layout: layout) == []) // not wanted
    }
}

@Suite struct MemoryLRUTests {
    @Test("Over the cap, the least recently used unpinned entries go, down to three quarters of it")
    func evictsLeastRecentlyUsed() {
        var lru = MemoryLRU<Int>(cap: 100)
        for key in 0..<5 { lru.set(key, cost: 20) }
        #expect(lru.total == 100 && lru.evictions { _ in false }.isEmpty) // at the cap, not over
        lru.touch(0) // used again: now the most recent
        lru.set(5, cost: 20) // 120 > 100: down to 75 or less
        let evicted = lru.evictions { $0 == 1 } // 1 is on screen
        #expect(evicted == [2, 3, 4])
        #expect(lru.total == 60 && lru.count == 3) // 0, 1 and 5 stay
        lru.set(5, cost: 0)
        #expect(lru.total == 40 && lru.count == 2)
        // Everything pinned: nothing to let go, whatever the total.
        lru.set(6, cost: 500)
        #expect(lru.evictions { _ in true }.isEmpty && lru.total == 540)
        lru.removeAll()
        #expect(lru.total == 0 && lru.count == 0)
    }
}
