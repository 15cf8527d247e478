/// What the viewer needs to know of the list it pages through.
public protocol ViewerList {
    var count: Int { get }
    /// The photo at `position` (0 ≤ position < count).
    func id(at position: Int) -> PhotoID
    /// Where `id` is now, or nil once it has left the list.
    func position(of id: PhotoID) -> Int?
    /// The first position that holds a photo: the rows before it are sub-folders, which the
    /// viewer passes over.
    var firstPhoto: Int { get }
}

extension ViewerList {
    public var firstPhoto: Int { 0 }

    /// The positions of photos the viewer shows.
    var photoPositions: Range<Int> { min(firstPhoto, count)..<count }

    /// The photo `offset` rows from `id` (negative: before it), if there is one.
    public func neighbour(of id: PhotoID, _ offset: Int) -> PhotoID? {
        guard let position = position(of: id), photoPositions.contains(position + offset) else { return nil }
        return self.id(at: position + offset)
    }
}

/// Which photo the viewer shows and which photos it holds, by identity, as a plain state
/// machine (the viewer's counterpart of `ScrollScheduler`).
///
/// The viewer holds the photo shown and its two neighbours: the photo shown loads first
/// (urgent), its neighbours after it, and every other photo it held is let go. Events go in
/// (open at a position, step, the list changed, a photo's file changed, a load ended, memory
/// is short, close); actions come out (show, start or hurry a load, drop a photo). Positions
/// are only how the list answers "which photo is next"; what is held and shown is named by
/// identity, so a list that changes under the viewer never swaps one photo for another.
public struct ViewerPaging: Sendable, Equatable {
    /// How far a held photo has got.
    public enum Load: Sendable, Equatable {
        /// A load is queued or running; `urgent` while it is (or was asked for as) the photo shown.
        case loading(urgent: Bool)
        /// The load ended, with a picture or a failure: nothing more to do until asked.
        case done
    }

    public enum Action: Sendable, Equatable {
        /// Show `id`, now at `position`; `moved` when it is another photo, or the same one at
        /// another position, than was shown.
        case show(PhotoID, position: Int, moved: Bool)
        /// Start loading `id` (urgent: the photo shown, before every row's work).
        case start(PhotoID, urgent: Bool)
        /// The queued load of `id` is now for the photo shown.
        case hurry(PhotoID)
        /// Let go of `id`: cancel its load and forget what was loaded.
        case drop(PhotoID)
        /// Nothing is left to show: close.
        case close
    }

    /// The photo shown, while open.
    public private(set) var shown: PhotoID?
    /// Its position in the list, as of the last event.
    public private(set) var position: Int?
    /// The photos held: the one shown and its neighbours.
    public private(set) var held: [PhotoID: Load] = [:]

    public init() {}

    public var isOpen: Bool { shown != nil }

    // MARK: Events

    /// Shows the photo at `position` (opening, or moving there when already open).
    public mutating func open(at position: Int, in list: some ViewerList) -> [Action] {
        guard list.photoPositions.contains(position) else { return [] }
        return show(position, in: list)
    }

    /// Moves by `delta` photos, stopping at either end of the list.
    public mutating func step(_ delta: Int, in list: some ViewerList) -> [Action] {
        guard let position, !list.photoPositions.isEmpty else { return [] }
        let target = max(list.photoPositions.lowerBound, min(list.count - 1, position + delta))
        return target == position ? [] : show(target, in: list)
    }

    /// Shows the first (`toEnd` false) or last photo.
    public mutating func jump(toEnd: Bool, in list: some ViewerList) -> [Action] {
        guard let position else { return [] }
        return step(toEnd ? list.count - 1 - position : list.photoPositions.lowerBound - position, in: list)
    }

    /// Rows came, went or moved: the photo shown stays wherever it is now; if it left, the
    /// one that took its place is shown (the last, if it was last); an empty list closes.
    public mutating func listChanged(in list: some ViewerList) -> [Action] {
        guard let shown, let position else { return [] }
        if let now = list.position(of: shown) { return show(now, in: list) }
        guard !list.photoPositions.isEmpty else { return close() }
        return show(max(list.photoPositions.lowerBound, min(position, list.count - 1)), in: list)
    }

    /// The file of `id` was rewritten: what was loaded from it goes, and if it is shown (or a
    /// neighbour) it is loaded again.
    public mutating func photoChanged(_ id: PhotoID, in list: some ViewerList) -> [Action] {
        guard held.removeValue(forKey: id) != nil else { return [] }
        var actions: [Action] = [.drop(id)]
        if let shown, let position = list.position(of: shown) { actions += show(position, in: list) }
        return actions
    }

    /// The load of `id` ended (a picture or a failure).
    public mutating func loadEnded(_ id: PhotoID) {
        if held[id] != nil { held[id] = .done }
    }

    /// Loads the photo shown again, urgently (Retry, or a larger decode when zoomed in).
    public mutating func reload() -> [Action] {
        guard let shown else { return [] }
        held[shown] = .loading(urgent: true)
        return [.start(shown, urgent: true)]
    }

    /// Memory is short: every photo but the one shown is let go (loaded again on the next move).
    public mutating func memoryWarning() -> [Action] {
        let dropped = held.keys.filter { $0 != shown }.sorted()
        for id in dropped { held.removeValue(forKey: id) }
        return dropped.map { .drop($0) }
    }

    /// Closes: everything held is let go.
    public mutating func close() -> [Action] {
        guard shown != nil || !held.isEmpty else { return [] }
        let dropped = held.keys.sorted()
        held.removeAll()
        shown = nil
        position = nil
        return dropped.map { .drop($0) } + [.close]
    }

    // MARK: Deciding

    /// Shows the photo at `position` and holds it and its neighbours, letting go of the rest.
    private mutating func show(_ position: Int, in list: some ViewerList) -> [Action] {
        let id = list.id(at: position)
        let moved = self.position != position || shown != id
        shown = id
        self.position = position
        var actions: [Action] = [.show(id, position: position, moved: moved)]
        let neighbours = [-1, 1].compactMap { list.neighbour(of: id, $0) }
        let keep = Set(neighbours + [id])
        for dropped in held.keys.filter({ !keep.contains($0) }).sorted() {
            held.removeValue(forKey: dropped)
            actions.append(.drop(dropped))
        }
        actions += want(id, urgent: true)
        for neighbour in neighbours { actions += want(neighbour, urgent: false) }
        return actions
    }

    /// Starts loading `id` unless it is held already; a queued neighbour's load that is now
    /// for the photo shown is hurried.
    private mutating func want(_ id: PhotoID, urgent: Bool) -> [Action] {
        switch held[id] {
        case nil:
            held[id] = .loading(urgent: urgent)
            return [.start(id, urgent: urgent)]
        case .loading(urgent: false) where urgent:
            held[id] = .loading(urgent: true)
            return [.hurry(id)]
        case .loading, .done:
            return []
        }
    }
}
