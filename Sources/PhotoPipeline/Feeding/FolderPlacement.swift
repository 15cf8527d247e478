/// What finding a photo's place in a folder's order needs, taken on the main thread and used
/// off it: the facts of the photos it is compared with are read there, so that the main thread,
/// placing it later, finds them known instead of reading files itself.
public struct FolderPlacement: Sendable {
    let list: PhotoCollectionSnapshot
    let order: PhotoOrder
    let known: [PhotoID: SortFacts]
    /// The folder's path with a slash at the end: only photos right in it are placed by order.
    let folder: String

    /// The facts of the photo `entry` whose file is at `path`, and, where it goes in the
    /// folder's order, of every photo of the list its place is found by (those not known read
    /// from their files here).
    public func facts(placing entry: PhotoEntry, path: String) -> PlacingFacts {
        let taken = order.key == .dateTaken
        let own = SortFacts.read(link: entry.link, taken: taken)
        guard path.hasPrefix(folder), !path.dropFirst(folder.count).contains("/") else { return PlacingFacts(own: own) }
        var compared: [String: SortFacts] = [:]
        _ = FolderChanges.position(of: entry, in: list, order: order, known: known) { photo in
            if photo.link == entry.link { return own }
            if let facts = compared[photo.link] { return facts }
            let facts = SortFacts.read(link: photo.link, taken: taken)
            compared[photo.link] = facts
            return facts
        }
        return PlacingFacts(own: own, compared: compared)
    }
}

/// The facts read off the main thread for placing a photo in its folder's order.
public struct PlacingFacts: Sendable {
    /// The photo's own.
    public var own: SortFacts?
    /// Those of the photos of the list it was compared with, by address.
    public var compared: [String: SortFacts] = [:]

    public init(own: SortFacts? = nil, compared: [String: SortFacts] = [:]) {
        self.own = own
        self.compared = compared
    }
}

extension LiveFolder {
    /// The list and the facts known now, for placing photos off the main thread; nil where the
    /// order needs no facts (names only).
    func placement() -> FolderPlacement? {
        guard order.needsFacts else { return nil }
        let here = url.standardizedFileURL.path
        return FolderPlacement(
            list: photos.snapshot(), order: order, known: facts, folder: here.hasSuffix("/") ? here : here + "/")
    }
}
