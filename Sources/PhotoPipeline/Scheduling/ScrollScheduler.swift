/// Decides what photo work runs, from scrolling and visibility, as a plain state machine.
///
/// Events go in (scrolling began / ended, rows bound, visible range, work finished, window
/// hidden, memory warning); actions come out (suspend / resume the queues, start work for a row,
/// cancel a row's work). It knows nothing of GTK or of operations, so every rule can be tested
/// directly:
/// - while scrolling (or hidden) no work starts, and the queues are suspended;
/// - when scrolling ends, work for rows outside the visible range plus the prefetch margin is
///   cancelled, visible rows without work start first (prefetch rows after, at lower priority),
///   and the queues resume.
public struct ScrollScheduler: Sendable {
    public enum Priority: Sendable, Equatable { case visible, prefetch }

    public enum Action: Sendable, Equatable {
        case suspendQueues
        case resumeQueues
        case start(row: Int, priority: Priority)
        case cancel(row: Int)
        case setPriority(row: Int, priority: Priority)
    }

    /// Rows beyond each end of the visible range that are loaded ahead of time.
    public let prefetchMargin: Int
    public private(set) var rowCount = 0
    public private(set) var isScrolling = false
    public private(set) var isHidden = false
    /// Rows intersecting the viewport as of the last time scrolling was at rest.
    public private(set) var visible: Range<Int> = 0..<0
    /// Rows whose work has been started and has neither finished nor been cancelled.
    public private(set) var pending: [Int: Priority] = [:]
    public private(set) var queuesSuspended = false

    public init(prefetchMargin: Int = 0) {
        precondition(prefetchMargin >= 0)
        self.prefetchMargin = prefetchMargin
    }

    /// Rows kept loaded at rest: the visible ones plus the margin, within the list.
    public var wanted: Range<Int> {
        guard !visible.isEmpty else { return 0..<0 }
        return max(0, visible.lowerBound - prefetchMargin)..<min(rowCount, visible.upperBound + prefetchMargin)
    }

    // MARK: Events

    /// A new list replaced the old one: all work is dropped.
    public mutating func listChanged(rowCount: Int) -> [Action] {
        precondition(rowCount >= 0)
        let cancels = cancelAll()
        self.rowCount = rowCount
        visible = 0..<0
        return cancels
    }

    public mutating func scrollBegan() -> [Action] {
        isScrolling = true
        return updateSuspension()
    }

    /// Scrolling (and any deceleration) ended with `visible` rows on screen.
    public mutating func scrollEnded(visible: Range<Int>, needsWork: (Int) -> Bool) -> [Action] {
        isScrolling = false
        self.visible = clamp(visible)
        return reconcile(needsWork: needsWork) + updateSuspension()
    }

    /// The visible rows changed without the user scrolling (first layout, resize, new list).
    /// While scrolling it is only remembered; the end of the scroll decides. While hidden,
    /// work for rows no longer wanted is cancelled, and new work waits until shown.
    public mutating func visibleRowsChanged(_ visible: Range<Int>, needsWork: (Int) -> Bool) -> [Action] {
        self.visible = clamp(visible)
        guard !isScrolling else { return [] }
        return reconcile(needsWork: needsWork, starting: !isHidden)
    }

    /// A row got a widget. Work starts only at rest, for a wanted row (the tutorial's
    /// `!dragging && !decelerating`); rows bound during a scroll wait for its end.
    public mutating func rowBound(_ row: Int, needsWork: (Int) -> Bool) -> [Action] {
        guard !isScrolling, !isHidden, wanted.contains(row), pending[row] == nil, needsWork(row) else { return [] }
        let priority = priority(of: row)
        pending[row] = priority
        return [.start(row: row, priority: priority)]
    }

    /// All work for `row` completed (successfully or not). Stale reports are ignored.
    public mutating func workFinished(row: Int) -> [Action] {
        pending.removeValue(forKey: row)
        return []
    }

    /// The row's work began while the queues were suspended and so did nothing. If that news
    /// arrives after scrolling ended, the row is started again at once (when still wanted).
    public mutating func workDeferred(row: Int, needsWork: (Int) -> Bool) -> [Action] {
        pending.removeValue(forKey: row)
        return rowBound(row, needsWork: needsWork)
    }

    /// The window was hidden or minimised (true), or shown again (false).
    public mutating func windowHidden(_ hidden: Bool, needsWork: (Int) -> Bool) -> [Action] {
        isHidden = hidden
        let starts = (!hidden && !isScrolling) ? reconcile(needsWork: needsWork) : []
        return starts + updateSuspension()
    }

    /// The desktop is short of memory: cancel everything in flight.
    public mutating func memoryWarning() -> [Action] { cancelAll() }

    // MARK: Rules

    private mutating func cancelAll() -> [Action] {
        defer { pending.removeAll() }
        return pending.keys.sorted().map { Action.cancel(row: $0) }
    }

    private func clamp(_ range: Range<Int>) -> Range<Int> {
        let lower = min(max(0, range.lowerBound), rowCount)
        let upper = min(max(lower, range.upperBound), rowCount)
        return lower..<upper
    }

    private func priority(of row: Int) -> Priority { visible.contains(row) ? .visible : .prefetch }

    private mutating func reconcile(needsWork: (Int) -> Bool, starting: Bool = true) -> [Action] {
        var actions: [Action] = []
        let wanted = self.wanted
        for row in pending.keys.sorted() where !wanted.contains(row) {
            pending.removeValue(forKey: row)
            actions.append(.cancel(row: row))
        }
        for (row, old) in pending.sorted(by: { $0.key < $1.key }) {
            let new = priority(of: row)
            guard new != old else { continue }
            pending[row] = new
            actions.append(.setPriority(row: row, priority: new))
        }
        guard starting else { return actions }
        let prefetch = Array(wanted.lowerBound..<visible.lowerBound).reversed() + Array(visible.upperBound..<wanted.upperBound)
        for row in Array(visible) + prefetch where pending[row] == nil && needsWork(row) {
            let priority = self.priority(of: row)
            pending[row] = priority
            actions.append(.start(row: row, priority: priority))
        }
        return actions
    }

    private mutating func updateSuspension() -> [Action] {
        let shouldSuspend = isScrolling || isHidden
        guard shouldSuspend != queuesSuspended else { return [] }
        queuesSuspended = shouldSuspend
        return [shouldSuspend ? .suspendQueues : .resumeQueues]
    }
}
