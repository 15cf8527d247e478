import CGLib
import Foundation
import GLibKit

/// Every picture beneath a local folder, read folder by folder with `FolderListing` (names
/// first: no picture is opened to list it). A picture is named by its path relative to the
/// top folder ("2023/07 July/IMG_0042.jpg"), which `NaturalOrder` sorts folder by folder.
///
/// The folders of each depth are read at once, on every core. Hidden folders are left out, as
/// they are from a folder's items. A folder reached twice (through a symbolic link to a folder
/// above it, or to one already read) is read once. A sub-folder that cannot be read is passed
/// over; only the top folder's failure is the source's.
struct FolderTree {
    var listing = FolderListing()
    /// Every folder read, the top one first, then each one's sub-folders before its next
    /// sibling (in natural order).
    var folders: [URL] = []
    /// The pictures' positions in name order (`NaturalOrder` of their paths): each folder's
    /// own pictures, then its sub-folders' in turn. Sorting folder by folder gives it without
    /// comparing whole paths.
    var nameOrder: [Int] = []
    /// How many sub-folders the top folder itself holds.
    var topFolders = 0

    /// A folder of the tree: its path's bytes (what it is read by), its address (for the
    /// folders read, and what went wrong), and its path below the top, ending in "/" (its
    /// pictures' names begin with it).
    struct Place {
        var path: [CChar]
        var url: URL
        var prefix: String

        init(top: URL) {
            path = top.withUnsafeFileSystemRepresentation { Array(UnsafeBufferPointer(start: $0!, count: strlen($0!))) }
            url = top
            prefix = ""
        }

        private init(path: [CChar], url: URL, prefix: String) {
            self.path = path
            self.url = url
            self.prefix = prefix
        }

        /// Its pictures, named with its prefix, and their order by their own names.
        func read(
            selecting: String?, details: FolderListing.Details, keys: NaturalKeys, pictures: PictureTypes,
            cancellable: Cancellable
        ) throws(PhotoSourceError) -> (listing: FolderListing, nameOrder: [Int]) {
            let listing = try FolderListing.read(
                path: path, folder: url, selecting: selecting, details: details, prefix: prefix,
                pictures: pictures, cancellable: cancellable)
            let nameOrder = NaturalOrder.order(
                names: listing.names, after: prefix.utf8.count, links: listing.links, keys: keys)
            return (listing, nameOrder)
        }

        /// The sub-folders `listing` (its own) found, in natural order.
        func subfolders(in listing: FolderListing) -> [Place] {
            NaturalOrder.order(names: listing.folderNames, links: listing.folderLinks).compactMap { child in
                guard let url = URL(string: listing.folderLinks[child]) else { return nil }
                var path = path
                if path.last != 0x2F { path.append(0x2F) } // "/"
                path += listing.folderFileNames[child]
                return Place(path: path, url: url, prefix: prefix + listing.folderNames[child] + "/")
            }
        }
    }

    /// One folder read: its pictures, and its sub-folders (their node numbers) in natural order.
    private struct Node {
        var place: Place
        var listing: FolderListing?
        /// Its pictures' order by name.
        var nameOrder: [Int] = []
        var children: [Int] = []
    }

    static func read(
        _ top: URL, selecting: String?, details: FolderListing.Details, cancellable: Cancellable
    ) throws(PhotoSourceError) -> FolderTree {
        var nodes = [Node(place: Place(top: top))]
        var visited = Set<FolderIdentity>()
        var level = [0]
        while !level.isEmpty {
            if cancellable.isCancelled { throw .cancelled }
            // The top folder is read whatever it is (its failure is the source's).
            let folders = level.filter { node in
                FolderIdentity(nodes[node].place.path).map { visited.insert($0).inserted } ?? (node == 0)
            }
            let read = readAll(
                folders.map { nodes[$0].place }, selecting: nodes[0].listing == nil ? selecting : nil,
                details: details, cancellable: cancellable)
            if nodes[0].listing == nil, case .failure(let error) = read[0] { throw error }
            if cancellable.isCancelled { throw .cancelled }
            var next: [Int] = []
            for (node, result) in zip(folders, read) {
                // A sub-folder that cannot be read is passed over.
                guard case .success(let (listing, nameOrder)) = result else { continue }
                nodes[node].listing = listing
                nodes[node].nameOrder = nameOrder
                for child in nodes[node].place.subfolders(in: listing) {
                    nodes[node].children.append(nodes.count)
                    next.append(nodes.count)
                    nodes.append(Node(place: child))
                }
            }
            level = next
        }
        return assemble(nodes)
    }

    /// Reads `folders` on every core; each folder's listing (its pictures named with the
    /// folder's prefix, and their name order), or why it could not be read.
    private static func readAll(
        _ folders: [Place], selecting: String?, details: FolderListing.Details, cancellable: Cancellable
    ) -> [Result<(listing: FolderListing, nameOrder: [Int]), PhotoSourceError>] {
        let results = Locked(
            [Result<(listing: FolderListing, nameOrder: [Int]), PhotoSourceError>?](
                repeating: nil, count: folders.count))
        let next = Locked(0)
        let workers = min(folders.count, ProcessInfo.processInfo.activeProcessorCount)
        DispatchQueue.concurrentPerform(iterations: max(1, workers)) { _ in
            // One recogniser and one key maker a worker: what a name's extension says, and the
            // sort key of a run of letters, are worked out once.
            let pictures = PictureTypes()
            let keys = NaturalKeys()
            while true {
                let index = next.withLock { value in
                    defer { value += 1 }
                    return value
                }
                guard index < folders.count else { return }
                let result: Result<(listing: FolderListing, nameOrder: [Int]), PhotoSourceError>
                do throws(PhotoSourceError) {
                    result = .success(
                        try folders[index].read(
                            selecting: selecting, details: details, keys: keys, pictures: pictures,
                            cancellable: cancellable))
                } catch {
                    result = .failure(error)
                }
                results.withLock { $0[index] = result }
            }
        }
        return results.withLock { $0.map { $0 ?? .failure(.cancelled) } }
    }

    /// The pictures of every folder read, folder after folder in depth-first order, and their
    /// name order.
    private static func assemble(_ nodes: [Node]) -> FolderTree {
        var tree = FolderTree()
        tree.topFolders = nodes[0].children.count
        let listings = nodes.lazy.compactMap(\.listing)
        let pictures = listings.reduce(0) { $0 + $1.names.count }
        tree.listing.names.reserveCapacity(texts: pictures, bytes: listings.reduce(0) { $0 + $1.names.byteCount })
        tree.listing.links.reserveCapacity(texts: pictures, bytes: listings.reduce(0) { $0 + $1.links.byteCount })
        tree.nameOrder.reserveCapacity(pictures)
        var stack = [0]
        while let node = stack.popLast() {
            guard let listing = nodes[node].listing else { continue }
            let start = tree.listing.names.count
            tree.folders.append(nodes[node].place.url)
            if let selected = listing.selected { tree.listing.selected = start + selected }
            tree.listing.names.append(contentsOf: listing.names)
            tree.listing.links.append(contentsOf: listing.links)
            tree.listing.facts += listing.facts
            tree.listing.paths += listing.paths
            tree.listing.pathKeys += listing.pathKeys
            tree.nameOrder += nodes[node].nameOrder.map { start + $0 }
            stack += nodes[node].children.reversed()
        }
        return tree
    }

    /// A folder as the file system knows it, whatever path led to it.
    private struct FolderIdentity: Hashable {
        let device: UInt64
        let inode: UInt64

        init?(_ path: [CChar]) {
            var status = stat()
            let found = (path + [0]).withUnsafeBufferPointer { stat($0.baseAddress!, &status) }
            guard found == 0 else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }
}
