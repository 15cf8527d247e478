import PhotoPipeline
import Testing

/// A small deterministic generator so every failure can be replayed from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

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

    // MARK: Random sequences

    /// Stands in for the operation queues: tracks what is running and completes it on demand.
    struct Executor {
        var running: [Int: ScrollScheduler<Int>.Priority] = [:]
        var suspended = false
        var done: Set<Int> = []
        var imageOfRow: [Int: Int] = [:]
        var problems: [String] = []

        mutating func apply(_ actions: [Action], scrolling: Bool) {
            for action in actions {
                switch action {
                case .suspendQueues:
                    if suspended { problems.append("suspended twice") }
                    suspended = true
                case .resumeQueues:
                    if !suspended { problems.append("resumed twice") }
                    suspended = false
                case .start(let row, let priority):
                    if scrolling { problems.append("started row \(row) while scrolling") }
                    if running[row] != nil { problems.append("started row \(row) twice") }
                    if done.contains(row) { problems.append("started finished row \(row)") }
                    running[row] = priority
                case .cancel(let row):
                    if running.removeValue(forKey: row) == nil { problems.append("cancelled idle row \(row)") }
                case .setPriority(let row, let priority):
                    if running[row] == nil { problems.append("reprioritised idle row \(row)") }
                    running[row] = priority
                }
            }
        }
    }

    @Test("Random event sequences keep every rule", arguments: 0..<40)
    func randomSequences(seed: UInt64) {
        var rng = SplitMix64(state: seed &* 7919 &+ 1)
        let rows = Int.random(in: 1...400, using: &rng)
        let margin = Int.random(in: 0...4, using: &rng)
        var s = ScrollScheduler<Int>(prefetchMargin: margin)
        var e = Executor()
        e.apply(s.listChanged(rowCount: rows), scrolling: false)
        func randomRange() -> Range<Int> {
            let first = Int.random(in: 0..<rows, using: &rng)
            return first..<min(rows, first + Int.random(in: 1...12, using: &rng))
        }
        for step in 0..<400 {
            let needsWork: (Int) -> Bool = { [done = e.done] in !done.contains($0) }
            let before = s.isScrolling
            var actions: [Action] = []
            var event = ""
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<15: event = "begin"; actions = s.scrollBegan()
            case 15..<27:
                let range = randomRange()
                event = "end \(range)"
                actions = s.scrollEnded(visible: range, needsWork: needsWork)
            case 27..<37:
                let range = randomRange()
                event = "visible \(range)"
                actions = s.visibleRowsChanged(range, needsWork: needsWork)
            case 37..<60:
                let row = Int.random(in: 0..<rows, using: &rng)
                event = "bind \(row)"
                actions = s.rowBound(row, needsWork: needsWork)
            case 60..<88:
                // The queue finishes one running row's work (it is then done: filtered or failed).
                guard let row = e.running.keys.randomElement(using: &rng) else { continue }
                event = "finish \(row)"
                e.running.removeValue(forKey: row)
                e.done.insert(row)
                e.imageOfRow[row] = row
                actions = s.workFinished(row)
            case 88..<92:
                // A completion that raced with a cancel arrives for a row with no work: ignored.
                let row = Int.random(in: 0..<rows, using: &rng)
                guard e.running[row] == nil else { continue }
                event = "stale \(row)"
                actions = s.workFinished(row)
            case 92..<96:
                let hidden = Bool.random(using: &rng)
                event = "hidden \(hidden)"
                actions = s.windowHidden(hidden, needsWork: needsWork)
            case 96..<98: event = "memory"; actions = s.memoryWarning()
            default:
                // Memory pressure dropped a finished row's image: it needs work again.
                guard let row = e.done.randomElement(using: &rng), e.running[row] == nil else { continue }
                event = "dropped \(row)"
                e.done.remove(row)
                e.imageOfRow[row] = nil
            }
            e.apply(actions, scrolling: before && s.isScrolling)
            let context = "seed \(seed) step \(step) after \(event)"

            var violations = e.problems
            if Set(e.running.keys) != Set(s.pending.keys) { violations.append("running and pending differ") }
            if e.running != s.pending { violations.append("priorities differ") }
            if e.suspended != (s.isScrolling || s.isHidden) { violations.append("suspension wrong") }
            if s.isScrolling {
                if actions.contains(where: { if case .start = $0 { true } else { false } }) {
                    violations.append("started while scrolling")
                }
            } else {
                for row in s.pending.keys where !s.wanted.contains(row) {
                    violations.append("row \(row) runs outside \(s.wanted)")
                }
                if !s.isHidden, event.hasPrefix("end") || event.hasPrefix("visible") {
                    for row in s.visible where !e.done.contains(row) && s.pending[row] != .visible {
                        violations.append("visible row \(row) not started")
                    }
                }
            }
            for (row, image) in e.imageOfRow where row != image {
                violations.append("row \(row) shows \(image)'s image")
            }
            #expect(violations.isEmpty, "\(context): \(violations)")
            if !violations.isEmpty { return }
        }
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
