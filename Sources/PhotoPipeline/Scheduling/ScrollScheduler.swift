/// What the scheduler needs to know of the list shown: which photo sits at each position,
/// and whether a photo still needs work.
public protocol ScrollLayout<ID> {
    associatedtype ID: Hashable & Comparable & Sendable
    /// The photo at `position` (0 ≤ position < the scheduler's row count).
    func id(at position: Int) -> ID
    /// Whether the photo has work left (not yet filtered or failed).
    func needsWork(_ id: ID) -> Bool
}

/// Decides what photo work runs, from scrolling and visibility, as a plain state machine.
///
/// Events go in (scrolling began / ended, rows bound, visible positions, work finished, window
/// hidden, memory warning); actions come out (suspend / resume the queues, start work for a
/// photo, cancel a photo's work). Visibility is a matter of positions on screen; work is a
/// matter of photos, named by their identity, so that a list that is reordered or replaced
/// never hands one photo's work to another. It knows nothing of GTK or of operations, so
/// every rule can be tested directly:
/// - while scrolling (or hidden) no work starts, and the queues are suspended;
/// - when scrolling ends, work for photos outside the visible rows plus the prefetch margin
///   is cancelled, visible photos without work start first (prefetch rows after, nearest
///   first, at lower priority), and the queues resume.
public struct ScrollScheduler<ID: Hashable & Comparable & Sendable>: Sendable {
    public enum Priority: Sendable, Equatable { case visible, prefetch }

    public enum Action: Sendable, Equatable {
        case suspendQueues
        case resumeQueues
        case start(ID, priority: Priority)
        case cancel(ID)
        case setPriority(ID, priority: Priority)
    }

    /// Rows beyond each end of the visible range that are loaded ahead of time, in a list.
    public let prefetchMargin: Int
    /// Cells in one row of the view: 1 for a list, the columns of a grid. In a grid the margin
    /// is at most one row of cells each side, and visible cells start nearest the centre first.
    public private(set) var columns = 1
    public private(set) var rowCount = 0
    public private(set) var isScrolling = false
    public private(set) var isHidden = false
    /// Positions intersecting the viewport as of the last time scrolling was at rest.
    public private(set) var visible: Range<Int> = 0..<0
    /// Photos whose work has been started and has neither finished nor been cancelled.
    public private(set) var pending: [ID: Priority] = [:]
    public private(set) var queuesSuspended = false

    public init(prefetchMargin: Int = 0) {
        precondition(prefetchMargin >= 0)
        self.prefetchMargin = prefetchMargin
    }

    /// Positions loaded ahead of time beyond each end of the visible ones.
    public var margin: Int { columns > 1 ? min(prefetchMargin, 1) * columns : prefetchMargin }

    /// Positions kept loaded at rest: the visible ones plus the margin, within the list.
    public var wanted: Range<Int> {
        guard !visible.isEmpty else { return 0..<0 }
        return max(0, visible.lowerBound - margin)..<min(rowCount, visible.upperBound + margin)
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

    /// Rows were added at the end of the list (a source delivering another batch); photos
    /// already shown keep their positions and their work.
    public mutating func rowsAppended(rowCount: Int) {
        precondition(rowCount >= self.rowCount)
        self.rowCount = rowCount
    }

    /// Rows were taken out or put in (a folder changed); `orderChanged` follows.
    public mutating func rowCountChanged(_ rowCount: Int) {
        precondition(rowCount >= 0)
        self.rowCount = rowCount
        visible = clamp(visible)
    }

    /// The same photos now sit at other positions (sorting, say). Work follows its photo:
    /// photos that left the wanted rows are cancelled, those that came into them start.
    public mutating func orderChanged(layout: some ScrollLayout<ID>) -> [Action] {
        guard !isScrolling else { return [] }
        return reconcile(layout, starting: !isHidden)
    }

    public mutating func scrollBegan() -> [Action] {
        isScrolling = true
        return updateSuspension()
    }

    /// Scrolling (and any deceleration) ended with `visible` positions on screen.
    public mutating func scrollEnded(visible: Range<Int>, layout: some ScrollLayout<ID>) -> [Action] {
        isScrolling = false
        self.visible = clamp(visible)
        return reconcile(layout) + updateSuspension()
    }

    /// The visible positions changed without the user scrolling (first layout, resize, new
    /// list). While scrolling it is only remembered; the end of the scroll decides. While
    /// hidden, work no longer wanted is cancelled, and new work waits until shown.
    public mutating func visibleRowsChanged(_ visible: Range<Int>, layout: some ScrollLayout<ID>) -> [Action] {
        self.visible = clamp(visible)
        guard !isScrolling else { return [] }
        return reconcile(layout, starting: !isHidden)
    }

    /// The view now shows `columns` cells to a row (a list is 1; a grid changes with its size
    /// and its width) and `visible` positions. Like the end of a scroll, it cancels and
    /// starts work for the new wanted cells, unless a scroll is still going on.
    public mutating func columnsChanged(
        _ columns: Int, visible: Range<Int>, layout: some ScrollLayout<ID>
    ) -> [Action] {
        precondition(columns >= 1)
        self.columns = columns
        return visibleRowsChanged(visible, layout: layout)
    }

    /// The row at `position` got a widget. Work starts only at rest, for a wanted row (the
    /// tutorial's `!dragging && !decelerating`); rows bound during a scroll wait for its end.
    public mutating func rowBound(_ position: Int, layout: some ScrollLayout<ID>) -> [Action] {
        guard (0..<rowCount).contains(position) else { return [] }
        return startIfWanted(layout.id(at: position), at: position, layout)
    }

    /// All work for `id` completed (successfully or not). Stale reports are ignored.
    public mutating func workFinished(_ id: ID) -> [Action] {
        pending.removeValue(forKey: id)
        return []
    }

    /// The photo's work began while the queues were suspended and so did nothing. If that news
    /// arrives after scrolling ended, it is started again at once (when still wanted).
    /// `position` is where the photo is now (nil if it left the list).
    public mutating func workDeferred(_ id: ID, at position: Int?, layout: some ScrollLayout<ID>) -> [Action] {
        pending.removeValue(forKey: id)
        guard let position else { return [] }
        return startIfWanted(id, at: position, layout)
    }

    /// The window was hidden or minimised (true), or shown again (false).
    public mutating func windowHidden(_ hidden: Bool, layout: some ScrollLayout<ID>) -> [Action] {
        isHidden = hidden
        let starts = (!hidden && !isScrolling) ? reconcile(layout) : []
        return starts + updateSuspension()
    }

    /// The desktop is short of memory: cancel everything in flight.
    public mutating func memoryWarning() -> [Action] { cancelAll() }

    // MARK: Rules

    private mutating func startIfWanted(_ id: ID, at position: Int, _ layout: some ScrollLayout<ID>) -> [Action] {
        guard !isScrolling, !isHidden, wanted.contains(position), pending[id] == nil, layout.needsWork(id) else {
            return []
        }
        let priority: Priority = visible.contains(position) ? .visible : .prefetch
        pending[id] = priority
        return [.start(id, priority: priority)]
    }

    private mutating func cancelAll() -> [Action] {
        defer { pending.removeAll() }
        return pending.keys.sorted().map { Action.cancel($0) }
    }

    private func clamp(_ range: Range<Int>) -> Range<Int> {
        let lower = min(max(0, range.lowerBound), rowCount)
        let upper = min(max(lower, range.upperBound), rowCount)
        return lower..<upper
    }

    private mutating func reconcile(_ layout: some ScrollLayout<ID>, starting: Bool = true) -> [Action] {
        var actions: [Action] = []
        let wanted = self.wanted
        // Visible first, then the margin nearest the screen first. Nothing is wanted while
        // nothing is on screen (rows taken out from under it leave an empty range at the end).
        let prefetch =
            visible.isEmpty
            ? []
            : Array(wanted.lowerBound..<visible.lowerBound).reversed() + Array(visible.upperBound..<wanted.upperBound)
        let order = visibleInOrder() + prefetch
        var wantedPriority: [ID: Priority] = [:]
        for position in order {
            wantedPriority[layout.id(at: position)] = visible.contains(position) ? .visible : .prefetch
        }
        for id in pending.keys.sorted() where wantedPriority[id] == nil {
            pending.removeValue(forKey: id)
            actions.append(.cancel(id))
        }
        for (id, old) in pending.sorted(by: { $0.key < $1.key }) {
            let new = wantedPriority[id] ?? old
            guard new != old else { continue }
            pending[id] = new
            actions.append(.setPriority(id, priority: new))
        }
        guard starting else { return actions }
        for position in order {
            let id = layout.id(at: position)
            guard pending[id] == nil, layout.needsWork(id), let priority = wantedPriority[id] else { continue }
            pending[id] = priority
            actions.append(.start(id, priority: priority))
        }
        return actions
    }

    /// The visible positions in the order their work starts: from the top in a list (the
    /// seeds' order); in a grid, nearest the centre of the screen first, where the eye is.
    private func visibleInOrder() -> [Int] {
        guard columns > 1, visible.count > 1 else { return Array(visible) }
        let firstRow = visible.lowerBound / columns
        let lastRow = (visible.upperBound - 1) / columns
        let centre = (row: Double(firstRow + lastRow) / 2, column: Double(columns - 1) / 2)
        func distance(_ position: Int) -> Double {
            let row = Double(position / columns) - centre.row
            let column = Double(position % columns) - centre.column
            return row * row + column * column
        }
        return visible.sorted { (distance($0), $0) < (distance($1), $1) }
    }

    private mutating func updateSuspension() -> [Action] {
        let shouldSuspend = isScrolling || isHidden
        guard shouldSuspend != queuesSuspended else { return [] }
        queuesSuspended = shouldSuspend
        return [shouldSuspend ? .suspendQueues : .resumeQueues]
    }
}
