import CGLib
import Foundation
import GLibKit

/// What a folder's changes come to, worked out off the main thread from a snapshot of the
/// list: a tree's folders that came and went made plain, and folders changed before their
/// watch began set against what the list shows of them.
extension LiveFolder {
    /// The changes of a tree with its folders' own made plain: a folder that came becomes each
    /// picture in it and beneath it (and is given back to be watched); one that went, each
    /// photo shown from it and beneath it.
    nonisolated static func expandFolders(
        _ changes: [FolderChange], list: PhotoCollectionSnapshot, watched: Set<String>, cancellable: Cancellable
    ) -> (changes: [FolderChange], newFolders: [URL], goneFolders: [String]) {
        var expanded: [FolderChange] = []
        var newFolders: [URL] = []
        var linksShown: [String]?
        func photos(under folder: String) -> [FolderChange] {
            let links = linksShown ?? (0..<list.count).map { list.entry(at: $0).link }
            linksShown = links
            let prefix = Self.link(folder) + "/"
            return links.filter { $0.hasPrefix(prefix) }.compactMap { path(ofLink: $0).map(FolderChange.deleted) }
        }
        func added(_ folder: String) -> [FolderChange] {
            let url = URL(fileURLWithPath: folder, isDirectory: true)
            guard let tree = FolderSource.picturesBeneath(url, cancellable: cancellable) else { return [] }
            newFolders += tree.folders
            return tree.paths.map(FolderChange.created)
        }
        for change in changes {
            switch change {
            case .created(let path) where Self.isFolder(path): expanded += added(path)
            case .deleted(let path) where watched.contains(path): expanded += photos(under: path)
            case .renamed(let from, let to) where Self.isFolder(to):
                expanded += photos(under: from) + added(to)
            default: expanded.append(change)
            }
        }
        let gone = changes.compactMap { change -> String? in
            switch change {
            case .deleted(let path) where watched.contains(path): path
            case .renamed(let from, _) where watched.contains(from): from
            default: nil
            }
        }
        return (expanded, newFolders, gone)
    }

    /// What `folders`, read again, hold that the list does not show, and what it shows of them
    /// that is gone: each as the change a watch would have told of (see `toReread`). In a
    /// tree, a sub-folder counts as new where it is not watched, and as gone where it is watched
    /// and no longer there; elsewhere a sub-folder is an item like a photo.
    nonisolated static func changes(
        rereading folders: [(path: String, readSince: Double)], list: PhotoCollectionSnapshot, tree: Bool,
        watched: Set<String>, cancellable: Cancellable
    ) -> [FolderChange] {
        guard !folders.isEmpty else { return [] }
        let prefixes = Set(folders.map { folderLink($0.path) })
        var shownIn: [String: Set<String>] = [:]
        // Every folder a row is in (a tree's sub-folder with rows in it is not new, watched or not).
        var parents: Set<String> = []
        for position in 0..<list.count {
            let shown = list.entry(at: position).link
            // Its folder's address: up to the last "/" but one that ends a folder's own.
            let own = shown.hasSuffix("/") ? shown.dropLast() : Substring(shown)
            guard let slash = own.lastIndex(of: "/") else { continue }
            let parent = String(own[...slash])
            if tree { parents.insert(parent) }
            if prefixes.contains(parent) { shownIn[parent, default: []].insert(shown) }
        }
        // The watched folders by the folder they are in.
        var watchedIn: [String: [String]] = [:]
        if tree {
            for path in watched {
                watchedIn[URL(fileURLWithPath: path).deletingLastPathComponent().path, default: []].append(path)
            }
        }
        var changes: [FolderChange] = []
        var reread: Set<String> = []
        for (folder, readSince) in folders where reread.insert(folder).inserted {
            let url = URL(fileURLWithPath: folder, isDirectory: true)
            // A folder gone meanwhile is told of by its parent's watch.
            guard let listing = FolderSource.links(in: url, cancellable: cancellable) else { continue }
            let shown = shownIn[folderLink(folder)] ?? []
            var held = Set(listing.pictures)
            if !tree { held.formUnion(listing.folders) }
            for added in held.subtracting(shown).sorted() {
                if let path = path(ofLink: added) { changes.append(.created(withoutSlash(path))) }
            }
            // Gone from the disk, not only from the listing (a hidden picture opened by its name
            // is shown although a listing leaves it out).
            for gone in shown.subtracting(held).sorted() {
                guard let path = path(ofLink: gone).map(withoutSlash) else { continue }
                var status = stat()
                if lstat(path, &status) != 0 { changes.append(.deleted(path)) }
            }
            guard tree else { continue }
            let subfolders = Set(listing.folders.compactMap { path(ofLink: $0).map(withoutSlash) })
            // New: not watched, no row beneath it, and made (or moved here) since the reading; a
            // link to a folder read by another path, or a loop, is none of these.
            let newFolders = subfolders.subtracting(watched).filter { subfolder in
                let prefix = folderLink(subfolder)
                var status = stat()
                return lstat(subfolder, &status) == 0
                    && Double(status.st_ctim.tv_sec) + Double(status.st_ctim.tv_nsec) / 1e9 >= readSince - 0.05
                    && !parents.contains { $0.hasPrefix(prefix) }
            }
            changes += newFolders.sorted().map(FolderChange.created)
            let goneFolders = (watchedIn[url.path] ?? []).filter { !subfolders.contains($0) }
            changes += goneFolders.sorted().map(FolderChange.deleted)
        }
        return changes
    }

    /// A folder's address ending in "/", as the addresses of what is in it begin.
    nonisolated static func folderLink(_ path: String) -> String {
        let address = link(path)
        return address.hasSuffix("/") ? address : address + "/"
    }

    nonisolated static func withoutSlash(_ path: String) -> String {
        path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    nonisolated static func isFolder(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    nonisolated static func link(_ path: String) -> String {
        guard let uri = g_filename_to_uri(path, nil, nil) else { return "" }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    nonisolated static func path(ofLink link: String) -> String? {
        guard let path = g_filename_from_uri(link, nil, nil) else { return nil }
        defer { g_free(path) }
        return String(cString: path)
    }
}
