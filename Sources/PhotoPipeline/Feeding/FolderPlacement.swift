import GLibKit

/// What placing photos in a folder's order needs, taken on the main thread and used off it:
/// the facts of every photo of the list not known yet are read there, once, so that the main
/// thread, placing the photos, compares them with facts it holds instead of reading files.
public final class FolderPlacement: Sendable {
    private let list: PhotoCollectionSnapshot
    private let order: PhotoOrder
    private let known: [PhotoID: SortFacts]
    private let folderPath: String
    /// The facts read of the list's photos; nil until read, then handed over once.
    private let read = Locked<(facts: [PhotoID: SortFacts], handed: Bool)?>(nil)

    init(list: PhotoCollectionSnapshot, order: PhotoOrder, known: [PhotoID: SortFacts], folderPath: String) {
        self.list = list
        self.order = order
        self.known = known
        self.folderPath = folderPath
    }

    /// The facts of the photo `entry`, and, the first time it is asked, those of every photo of
    /// the list that were not known, read from their files here (the others wait for them).
    public func facts(placing entry: PhotoEntry) -> PlacingFacts {
        let taken = order.key == .dateTaken
        let own = SortFacts.read(link: entry.link, taken: taken)
        let compared = read.withLock { read -> [PhotoID: SortFacts] in
            if read == nil { read = (readList(taken: taken), false) }
            guard let facts = read?.facts, read?.handed == false else { return [:] }
            read?.handed = true
            return facts
        }
        return PlacingFacts(own: own, compared: compared)
    }

    private func readList(taken: Bool) -> [PhotoID: SortFacts] {
        // What the index holds for the folder, read at once, rather than asked photo by photo.
        let indexed = taken ? PhotoIndex.shared?.facts(inFolder: folderPath) : nil
        var facts: [PhotoID: SortFacts] = [:]
        for position in 0..<list.count {
            let id = list.id(at: position)
            guard known[id] == nil else { continue }
            facts[id] = SortFacts.read(link: list.entry(at: position).link, taken: taken, known: indexed)
        }
        return facts
    }
}

/// The facts read off the main thread for placing a photo in its folder's order.
public struct PlacingFacts: Sendable {
    /// The photo's own.
    public var own: SortFacts?
    /// Those of photos of the list that were not known (given with one photo of a batch only).
    public var compared: [PhotoID: SortFacts] = [:]

    public init(own: SortFacts? = nil, compared: [PhotoID: SortFacts] = [:]) {
        self.own = own
        self.compared = compared
    }
}

extension LiveFolder {
    /// The list and the facts known now, for placing photos off the main thread; nil where the
    /// order needs no facts (names only).
    func placement() -> FolderPlacement? {
        guard order.needsFacts else { return nil }
        return FolderPlacement(list: photos.snapshot(), order: order, known: facts, folderPath: url.path)
    }
}
