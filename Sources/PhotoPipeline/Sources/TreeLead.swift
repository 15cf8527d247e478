import CGLib
import Foundation
import GLibKit

/// The first rows of a big tree, shown while the tree's folders are still being read: by date
/// taken from the index, or by name from the folders on the way to them.
///
/// Reading 100,000 names in 2,000 folders takes a quarter of a second or more; the index knows
/// from the last time which of them come first. Each of those is checked before it is shown:
/// it is still there, a regular file with the size and time the index holds (so the date the
/// index holds is still its date), a picture by its name, and neither it nor a folder on its
/// way is hidden. Once the whole listing is in and ordered, `Merge` says how it goes in around
/// the rows shown: in the usual case they are its first rows, and the rest is appended.
struct TreeLead {
    /// The rows shown, in order.
    var entries: [PhotoEntry]

    /// What the index gave for a tree's lead by date.
    enum FromIndex {
        case lead(TreeLead)
        /// It holds fewer than the minimum files beneath the tree (the dates will be read from
        /// the files, and the tree first shown by name).
        case tooFew
        /// None of its first ones still hold.
        case noneHold
    }

    /// The lead of the tree at `folderPath` (the top folder's path, as its pictures' paths
    /// begin) in `order` (by date taken): at most `rows` of its first pictures, as the index
    /// has them and the files confirm, where the index holds `minimum` files or more beneath
    /// it (a smaller tree is read quickly enough without).
    static func read(
        index: PhotoIndex, folderPath: String, order: PhotoOrder, rows: Int, minimum: Int
    ) -> FromIndex {
        guard
            let candidates = index.firstByDateTaken(
                inFolder: folderPath, descending: order.descending, limit: candidateRows(rows), minimum: minimum)
        else { return .tooFew }
        return read(candidates: candidates, folderPath: folderPath, order: order, rows: rows)
    }

    /// How many of the index's first files are asked for a lead of `rows`: twice as many, as
    /// some may have changed, and ties are broken by name.
    static func candidateRows(_ rows: Int) -> Int { rows * 2 }

    /// The lead made of `candidates`, the files the index holds first beneath `folderPath` in
    /// `order` (at least `candidateRows(rows)` of them where it holds that many).
    static func read(
        candidates: [(path: String, facts: SortFacts)], folderPath: String, order: PhotoOrder, rows: Int
    ) -> FromIndex {
        let prefix = folderPath.hasSuffix("/") ? folderPath : folderPath + "/"
        let pictures = PictureTypes()
        var hiddenByFolder: [String: Set<String>] = [:]
        var names: [String] = []
        var links: [String] = []
        var facts: [SortFacts?] = []
        for (path, held) in candidates where path.hasPrefix(prefix) {
            let below = path.dropFirst(prefix.count)
            let parts = below.split(separator: "/", omittingEmptySubsequences: false)
            guard let name = parts.last, !parts.contains(where: \.isEmpty) else { continue }
            // Hidden as the listing means it: a dot first, a "~" last, or listed in its
            // folder's `.hidden`, for the picture and for every folder on its way.
            var folder = String(prefix.dropLast())
            var hidden = false
            for part in parts {
                let known = hiddenByFolder[folder] ?? FolderListing.hiddenNames(inFolder: folder)
                hiddenByFolder[folder] = known
                if part.hasPrefix(".") || part.hasSuffix("~") || known.contains(String(part)) {
                    hidden = true
                    break
                }
                folder += "/" + part
            }
            guard !hidden, String(name).withCString({ pictures.verdict(forName: $0) }) == .picture else { continue }
            var status = stat()
            guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
            let now = SortFacts(status)
            guard now.size == held.size, now.modified == held.modified,
                let uri = g_filename_to_uri(path, nil, nil)
            else { continue }
            links.append(String(cString: uri))
            g_free(uri)
            names.append(String(below))
            facts.append(held)
        }
        let ordered = order.order(names: names, links: links, facts: facts).prefix(rows)
        guard !ordered.isEmpty else { return .noneHold }
        return .lead(TreeLead(entries: ordered.map { PhotoEntry(name: names[$0], link: links[$0], base: nil) }))
    }

    /// The lead of the tree at `top` in name order: its first `rows` pictures as its listing
    /// orders them (the top folder's own, then each sub-folder's in turn, depth first), read
    /// from the few folders on the way to them. At most `folderLimit` folders are read (a tree
    /// of empty folders, or one that links back into itself); nil where fewer are found (a tree
    /// that small is read at once).
    static func byName(top: URL, rows: Int, folderLimit: Int = 64, cancellable: Cancellable) -> TreeLead? {
        var entries: [PhotoEntry] = []
        // Folders to read, the next on top; read as the tree reads them, so in its order.
        var pending = [FolderTree.Place(top: top)]
        var read = 0
        let pictures = PictureTypes()
        let keys = NaturalKeys()
        while entries.count < rows, read < folderLimit, let place = pending.popLast() {
            if cancellable.isCancelled { return nil }
            read += 1
            guard
                let (listing, nameOrder) = try? place.read(
                    selecting: nil, details: .none, keys: keys, pictures: pictures, cancellable: cancellable)
            else { continue }
            for index in nameOrder.prefix(rows - entries.count) {
                entries.append(PhotoEntry(name: listing.names[index], link: listing.links[index], base: nil))
            }
            pending += place.subfolders(in: listing).reversed()
        }
        return entries.count < rows ? nil : TreeLead(entries: entries)
    }

    /// How a whole listing goes in around a lead shown ahead of it.
    struct Merge: Equatable {
        /// The lead's rows the listing does not hold (or holds in another order), by their
        /// positions among the rows shown: taken out first.
        var removing: [Int] = []
        /// The listing's positions that go in among the lead's rows kept, each at its own
        /// position (ascending).
        var inserting: [Int] = []
        /// The listing's positions from here on go after everything, in order.
        var appendingFrom: Int
    }

    /// How the listing whose rows, in order, have the addresses `link(0) … link(count - 1)`
    /// goes in around this lead. In the usual case the lead is the listing's start: nothing
    /// is taken out or put between, and the rest is appended.
    func merge(count: Int, link: (Int) -> String) -> Merge {
        if entries.count <= count, entries.indices.allSatisfy({ entries[$0].link == link($0) }) {
            return Merge(appendingFrom: entries.count)
        }
        var leadPosition: [String: Int] = [:]
        for (position, entry) in entries.enumerated() { leadPosition[entry.link] = position }
        var found = [Int?](repeating: nil, count: entries.count)
        var isLead = [Bool](repeating: false, count: count)
        for position in 0..<count {
            guard let shown = leadPosition[link(position)], found[shown] == nil else { continue }
            found[shown] = position
            isLead[position] = true
        }
        let kept = found.compactMap { $0 }
        // The rows kept must be in the listing's order, so that the rest can go in around them.
        guard zip(kept, kept.dropFirst()).allSatisfy({ $0 < $1 }) else {
            return Merge(removing: Array(entries.indices), appendingFrom: 0)
        }
        let last = kept.last ?? -1
        return Merge(
            removing: found.indices.filter { found[$0] == nil },
            inserting: (0..<(last + 1)).filter { !isLead[$0] }, appendingFrom: last + 1)
    }
}
