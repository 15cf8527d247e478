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
    typealias Action = ScrollScheduler.Action

    // MARK: Single rules

    @Test("First appearance starts the visible rows, then the prefetch margin, nearest first")
    func firstAppearance() {
        var s = ScrollScheduler(prefetchMargin: 2)
        _ = s.listChanged(rowCount: 100)
        let actions = s.visibleRowsChanged(10..<13) { _ in true }
        #expect(actions == [
            .start(row: 10, priority: .visible), .start(row: 11, priority: .visible), .start(row: 12, priority: .visible),
            .start(row: 9, priority: .prefetch), .start(row: 8, priority: .prefetch),
            .start(row: 13, priority: .prefetch), .start(row: 14, priority: .prefetch),
        ])
    }

    @Test("Scroll begin suspends; rows bound while scrolling start nothing; scroll end cancels, starts, resumes")
    func scrollCycle() {
        var s = ScrollScheduler(prefetchMargin: 0)
        _ = s.listChanged(rowCount: 100)
        _ = s.visibleRowsChanged(0..<3) { _ in true }
        #expect(s.scrollBegan() == [.suspendQueues])
        #expect(s.scrollBegan() == [])
        #expect(s.rowBound(50) { _ in true } == [])
        let end = s.scrollEnded(visible: 50..<52) { _ in true }
        #expect(end == [.cancel(row: 0), .cancel(row: 1), .cancel(row: 2),
                        .start(row: 50, priority: .visible), .start(row: 51, priority: .visible), .resumeQueues])
    }

    @Test("Rows that need no work (filtered or failed) are never started")
    func finishedRowsAreSkipped() {
        var s = ScrollScheduler(prefetchMargin: 1)
        _ = s.listChanged(rowCount: 10)
        let actions = s.visibleRowsChanged(2..<5) { $0 != 3 }
        #expect(!actions.contains(.start(row: 3, priority: .visible)))
        #expect(actions.count == 4)
    }

    @Test("A hidden window suspends the queues and starts nothing until shown")
    func hiddenWindow() {
        var s = ScrollScheduler()
        _ = s.listChanged(rowCount: 10)
        #expect(s.windowHidden(true) { _ in true } == [.suspendQueues])
        #expect(s.visibleRowsChanged(0..<2) { _ in true } == [])
        #expect(s.windowHidden(false) { _ in true } == [.start(row: 0, priority: .visible), .start(row: 1, priority: .visible), .resumeQueues])
    }

    @Test("Work deferred by a scroll restarts at once if the news comes after the scroll ended")
    func deferredWorkRestarts() {
        var s = ScrollScheduler()
        _ = s.listChanged(rowCount: 10)
        _ = s.visibleRowsChanged(0..<2) { _ in true }
        _ = s.scrollBegan()
        #expect(s.workDeferred(row: 0) { _ in true } == [])   // still scrolling: wait for the end
        _ = s.scrollEnded(visible: 0..<2) { _ in true }
        #expect(s.pending[0] == .visible)
        #expect(s.workDeferred(row: 1) { _ in true } == [.start(row: 1, priority: .visible)])
        #expect(s.pending[1] == .visible)
    }

    @Test("A prefetch row that becomes visible is raised to visible priority")
    func raisePriority() {
        var s = ScrollScheduler(prefetchMargin: 2)
        _ = s.listChanged(rowCount: 20)
        _ = s.visibleRowsChanged(0..<2) { _ in true }
        #expect(s.pending[3] == .prefetch)
        _ = s.scrollBegan()
        let end = s.scrollEnded(visible: 2..<4) { _ in true }
        #expect(end.contains(.setPriority(row: 3, priority: .visible)))
        #expect(s.pending[3] == .visible)
    }

    // MARK: Random sequences

    /// Stands in for the operation queues: tracks what is running and completes it on demand.
    struct Executor {
        var running: [Int: ScrollScheduler.Priority] = [:]
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
        var s = ScrollScheduler(prefetchMargin: margin)
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
                actions = s.workFinished(row: row)
            case 88..<92:
                // A completion that raced with a cancel arrives for a row with no work: ignored.
                let row = Int.random(in: 0..<rows, using: &rng)
                guard e.running[row] == nil else { continue }
                event = "stale \(row)"
                actions = s.workFinished(row: row)
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
            let where_ = "seed \(seed) step \(step) after \(event)"

            var violations = e.problems
            if Set(e.running.keys) != Set(s.pending.keys) { violations.append("running and pending differ") }
            if e.running != s.pending { violations.append("priorities differ") }
            if e.suspended != (s.isScrolling || s.isHidden) { violations.append("suspension wrong") }
            if s.isScrolling {
                if actions.contains(where: { if case .start = $0 { true } else { false } }) { violations.append("started while scrolling") }
            } else {
                for row in s.pending.keys where !s.wanted.contains(row) { violations.append("row \(row) runs outside \(s.wanted)") }
                if !s.isHidden, event.hasPrefix("end") || event.hasPrefix("visible") {
                    for row in s.visible where !e.done.contains(row) && s.pending[row] != .visible {
                        violations.append("visible row \(row) not started")
                    }
                }
            }
            for (row, image) in e.imageOfRow where row != image { violations.append("row \(row) shows \(image)'s image") }
            #expect(violations.isEmpty, "\(where_): \(violations)")
            if !violations.isEmpty { return }
        }
    }
}
