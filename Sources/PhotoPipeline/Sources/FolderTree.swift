import CGLib
import Foundation
import GLibKit

/// Every picture beneath a local folder, read folder by folder with `FolderListing` (names
/// first: no picture is opened to list it). A picture is named by its path relative to the
/// top folder ("2023/07 July/IMG_0042.jpg"), which `NaturalOrder` sorts folder by folder.
///
/// Hidden folders are left out, as they are from a folder's items. A folder reached twice
/// (through a symbolic link to a folder above it, or to one already read) is read once. A
/// sub-folder that cannot be read is passed over; only the top folder's failure is the
/// source's.
struct FolderTree {
    var listing = FolderListing()
    /// Every folder read, the top one first, then each one's sub-folders before its next
    /// sibling (in natural order).
    var folders: [URL] = []

    static func read(
        _ top: URL, selecting: String?, facts: Bool, cancellable: Cancellable
    ) throws(PhotoSourceError) -> FolderTree {
        var tree = FolderTree()
        var visited = Set<FolderIdentity>()
        // Depth first, the sub-folders of each in natural order.
        var pending: [(url: URL, prefix: String)] = [(top, "")]
        while let (folder, prefix) = pending.popLast() {
            if cancellable.isCancelled { throw .cancelled }
            guard let identity = FolderIdentity(folder), visited.insert(identity).inserted else { continue }
            let listing: FolderListing
            do throws(PhotoSourceError) {
                listing = try FolderListing.read(
                    folder, selecting: prefix.isEmpty ? selecting : nil, facts: facts, cancellable: cancellable)
            } catch {
                if error == .cancelled || tree.folders.isEmpty { throw error }
                continue // a sub-folder that cannot be read
            }
            tree.folders.append(folder)
            if let selected = listing.selected { tree.listing.selected = tree.listing.names.count + selected }
            tree.listing.names += prefix.isEmpty ? listing.names : listing.names.map { prefix + $0 }
            tree.listing.links += listing.links
            tree.listing.facts += listing.facts
            let children = NaturalOrder.order(names: listing.folderNames, links: listing.folderLinks)
            for child in children.reversed() {
                guard let url = URL(string: listing.folderLinks[child]) else { continue }
                pending.append((url, prefix + listing.folderNames[child] + "/"))
            }
        }
        return tree
    }

    /// A folder as the file system knows it, whatever path led to it.
    private struct FolderIdentity: Hashable {
        let device: UInt64
        let inode: UInt64

        init?(_ folder: URL) {
            var status = stat()
            let found = folder.withUnsafeFileSystemRepresentation { $0.map { stat($0, &status) } ?? -1 }
            guard found == 0 else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }
}
