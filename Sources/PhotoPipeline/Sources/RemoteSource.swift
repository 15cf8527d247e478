import CGLib
import Foundation
import GLibKit

/// Places GIO reaches beyond this computer's own files and the web: network shares and devices
/// that GVfs mounts (`smb:`, `sftp:`, `dav:`, `davs:`, `ftp:`, `afc:`, `mtp:`, `gphoto2:`, …).
public enum RemoteLocation {
    /// Whether `url` is such a place: its scheme is neither `file` nor a web one, and the
    /// desktop's GIO (GVfs, where it runs) reads it.
    public static func isRemote(_ url: URL) -> Bool {
        url.scheme.map(isRemoteScheme) ?? false
    }

    /// Whether addresses of `scheme` (any case) are such places.
    public static func isRemoteScheme(_ scheme: String) -> Bool {
        let scheme = scheme.lowercased()
        return scheme != "file" && !URL.isWebScheme(scheme) && supportedSchemes.contains(scheme)
    }

    /// The schemes the default GIO VFS reads (GVfs adds the network's when it runs).
    private static let supportedSchemes: Set<String> = {
        guard let vfs = g_vfs_get_default(), let schemes = g_vfs_get_supported_uri_schemes(vfs) else { return [] }
        var found: Set<String> = []
        var at = schemes
        while let scheme = at.pointee {
            found.insert(String(cString: scheme).lowercased())
            at += 1
        }
        return found
    }()
}

/// A folder (or a picture in one) on a network share or a device, read through GIO: the names
/// and cheap types its enumerator gives, a page at a time, and no file opened to list it, since
/// every byte crosses the network. Sub-folders come first as items, as in a local folder.
///
/// With `includesSubfolders`, every picture beneath the folder is listed instead, named by its
/// path below it, each folder's own pictures before its sub-folders' (as a local tree is).
///
/// A photo named by its address (double-clicked on the share in the file manager) is delivered
/// first, on its own, so that it is read and shown while its folder is still being listed;
/// the rest of the folder then fills in around it (`PhotoSourceBatch.positions`).
///
/// A location whose share is not mounted fails as `notMounted`, for the app to mount it (which
/// may ask for a password) and read it again.
public struct RemoteSource: PhotoSource {
    public let location: URL
    public var order: PhotoOrder
    /// Whether every picture beneath the folder is listed (named by its path below it, each
    /// folder's own before its sub-folders', as in a local tree), with no folder items.
    public var includesSubfolders: Bool

    public init(location: URL, order: PhotoOrder = .byName, includesSubfolders: Bool = false) {
        self.location = location
        self.order = order
        self.includesSubfolders = includesSubfolders
    }

    public func ordered(by order: PhotoOrder) -> any PhotoSource {
        RemoteSource(location: location, order: order, includesSubfolders: includesSubfolders)
    }

    public func includingSubfolders(_ include: Bool) -> any PhotoSource {
        RemoteSource(location: location, order: order, includesSubfolders: include)
    }

    /// How deep a tree on a share is read (a link back up would otherwise be followed forever).
    static let maxDepth = 24

    /// What the enumerator is asked for: nothing that needs a file opened.
    static let attributes = [
        G_FILE_ATTRIBUTE_STANDARD_NAME, G_FILE_ATTRIBUTE_STANDARD_TYPE, G_FILE_ATTRIBUTE_STANDARD_IS_HIDDEN,
        G_FILE_ATTRIBUTE_STANDARD_IS_BACKUP, G_FILE_ATTRIBUTE_STANDARD_SIZE, G_FILE_ATTRIBUTE_TIME_MODIFIED,
    ].joined(separator: ",")

    public func read(
        using fetcher: PhotoFetcher, cancellable: Cancellable, deliver: (PhotoSourceBatch) -> Void
    ) throws(PhotoSourceError) {
        let file = ObjectRef(takingOpaque: g_file_new_for_uri(location.absoluteString)!)
        let info: ObjectRef<GObject>
        do throws(GLibError) {
            info = try ObjectRef(
                takingOpaque: withGError {
                    g_file_query_info(file.opaque, Self.attributes, G_FILE_QUERY_INFO_NONE, cancellable.pointer, $0)
                }!)
        } catch {
            throw Self.error(error, at: location, cancellable: cancellable)
        }
        switch g_file_info_get_file_type(info.opaque) {
        case G_FILE_TYPE_DIRECTORY:
            try list(file, selecting: nil, cancellable: cancellable, deliver)
        case G_FILE_TYPE_REGULAR:
            let name = String(cString: g_file_info_get_name(info.opaque))
            guard name.withCString({ PictureTypes().verdict(forName: $0) }) == .picture,
                let parent = g_file_get_parent(file.opaque)
            else { throw .notPhotos(path: location.absoluteString) }
            let ahead = PhotoEntry(name: name, link: String(gioString: g_file_get_uri(file.opaque)), base: nil)
            deliver(PhotoSourceBatch(entries: [ahead], selected: 0))
            try list(ObjectRef(takingOpaque: parent), selecting: name, ahead: ahead, cancellable: cancellable, deliver)
        default:
            throw .notPhotos(path: location.absoluteString)
        }
    }

    /// Lists the folder's sub-folders and pictures, and delivers them in order; with `ahead`
    /// (the photo called `selecting`, delivered already), the others, around it.
    private func list(
        _ folder: ObjectRef<GObject>, selecting: String?, ahead: PhotoEntry? = nil, cancellable: Cancellable,
        _ deliver: (PhotoSourceBatch) -> Void
    ) throws(PhotoSourceError) {
        let folderURL = URL(string: String(gioString: g_file_get_uri(folder.opaque))) ?? location
        let pictures = PictureTypes()
        var listing = FolderListing()
        // Pictures in the order of the tree (each folder's own by name, then its sub-folders').
        var treeOrder: [Int] = []
        func walk(_ folder: ObjectRef<GObject>, prefix: String, depth: Int) throws(PhotoSourceError) {
            let here = try Self.enumerate(
                folder, selecting: depth == 0 ? selecting : nil, pictures: pictures, cancellable: cancellable,
                named: URL(string: String(gioString: g_file_get_uri(folder.opaque))) ?? folderURL)
            for index in PhotoOrder.byName.order(names: here.names, links: here.links, facts: []) {
                if here.selected == index { listing.selected = listing.names.count }
                treeOrder.append(listing.names.count)
                listing.names.append(prefix + here.names[index])
                listing.links.append(here.links[index])
                listing.facts.append(here.facts[index])
            }
            guard includesSubfolders else {
                (listing.folderNames, listing.folderLinks) = (here.folderNames, here.folderLinks)
                return
            }
            guard depth < Self.maxDepth else { return }
            let folders = PhotoOrder.byName.order(names: here.folderNames, links: here.folderLinks, facts: [])
            for index in folders {
                let name = here.folderNames[index]
                let child = ObjectRef<GObject>(takingOpaque: g_file_get_child(folder.opaque, name)!)
                do throws(PhotoSourceError) {
                    try walk(child, prefix: prefix + name + "/", depth: depth + 1)
                } catch .cancelled {
                    throw .cancelled
                } catch {
                    continue // a sub-folder that cannot be read is passed over
                }
            }
        }
        try walk(folder, prefix: "", depth: 0)
        if cancellable.isCancelled { throw .cancelled }
        // Dates taken would mean reading every photo over the network: such a folder is sorted
        // by the dates its files were changed instead.
        var used = order
        if used.key == .dateTaken { used.key = .dateModified }
        let ordered = used.order(names: listing.names, links: listing.links, facts: listing.facts, nameOrder: treeOrder)
        let folders = PhotoOrder.byName.order(names: listing.folderNames, links: listing.folderLinks, facts: [])
            .map { PhotoEntry(name: listing.folderNames[$0], link: listing.folderLinks[$0], base: nil) }
        let entries =
            folders + ordered.map { PhotoEntry(name: listing.names[$0], link: listing.links[$0], base: nil) }
        let selected = listing.selected.flatMap { ordered.firstIndex(of: $0) }.map { folders.count + $0 }
        if ahead != nil {
            // The photo shown ahead keeps its row; the rest go where they belong around it (after
            // it, if it has gone from the folder since it was named).
            let others = entries.indices.filter { $0 != selected }
            guard !others.isEmpty else {
                return deliver(PhotoSourceBatch(entries: [], folder: folderURL, order: used, wantedOrder: order))
            }
            deliver(
                PhotoSourceBatch(
                    entries: others.map { entries[$0] }, folder: folderURL, order: used, wantedOrder: order,
                    positions: selected == nil ? others.map { $0 + 1 } : others))
            return
        }
        if entries.isEmpty {
            return deliver(PhotoSourceBatch(entries: [], folder: folderURL, order: used, wantedOrder: order))
        }
        var start = 0
        while start < entries.count {
            let end = min(start + PhotoSources.batchSize, entries.count)
            deliver(
                PhotoSourceBatch(
                    entries: Array(entries[start..<end]),
                    selected: selected.flatMap { (start..<end).contains($0) ? $0 - start : nil }, folder: folderURL,
                    order: used, wantedOrder: order))
            start = end
        }
    }

    /// One folder's sub-folders and pictures, by names and cheap types alone; `selecting` is
    /// listed even if hidden.
    private static func enumerate(
        _ folder: ObjectRef<GObject>, selecting: String?, pictures: PictureTypes, cancellable: Cancellable,
        named folderURL: URL
    ) throws(PhotoSourceError) -> FolderListing {
        let enumerator: ObjectRef<GFileEnumerator>
        do throws(GLibError) {
            enumerator = try ObjectRef(
                taking: withGError {
                    g_file_enumerate_children(
                        folder.opaque, Self.attributes, G_FILE_QUERY_INFO_NONE, cancellable.pointer, $0)
                }!)
        } catch {
            throw Self.error(error, at: folderURL, cancellable: cancellable)
        }
        defer { g_file_enumerator_close(enumerator.pointer, nil, nil) }
        var listing = FolderListing()
        var seen = 0
        while true {
            // The enumerator's info, borrowed until the next call; GVfs hands them over in pages.
            var borrowed: OpaquePointer?
            var failure: UnsafeMutablePointer<GError>?
            let more = g_file_enumerator_iterate(enumerator.pointer, &borrowed, nil, cancellable.pointer, &failure)
            if let failure { throw Self.error(GLibError(consuming: failure), at: folderURL, cancellable: cancellable) }
            guard more != 0, let info = borrowed else { break }
            seen += 1
            if seen % 1024 == 0, cancellable.isCancelled { throw .cancelled }
            let name = String(cString: g_file_info_get_name(info))
            let isSelected = name == selecting
            if !isSelected, g_file_info_get_is_hidden(info) != 0 || g_file_info_get_is_backup(info) != 0 {
                continue
            }
            let link = Self.uri(of: name, in: folder)
            switch g_file_info_get_file_type(info) {
            case G_FILE_TYPE_DIRECTORY:
                listing.folderNames.append(name)
                listing.folderLinks.append(link + "/")
            case G_FILE_TYPE_REGULAR:
                guard isSelected || name.withCString({ pictures.verdict(forName: $0) }) == .picture else { continue }
                if isSelected { listing.selected = listing.names.count }
                listing.names.append(name)
                listing.links.append(link)
                let modified = g_file_info_get_attribute_uint64(info, G_FILE_ATTRIBUTE_TIME_MODIFIED)
                listing.facts.append(
                    SortFacts(
                        modified: Int64(clamping: modified) * 1_000_000_000, size: Int64(g_file_info_get_size(info)),
                        taken: nil))
            default:
                continue
            }
        }
        if cancellable.isCancelled { throw .cancelled }
        return listing
    }

    /// The URI of the file called `name` in `folder`, escaped as GIO writes it.
    private static func uri(of name: String, in folder: ObjectRef<GObject>) -> String {
        let child = ObjectRef<GObject>(takingOpaque: g_file_get_child(folder.opaque, name)!)
        return String(gioString: g_file_get_uri(child.opaque))
    }

    /// What went wrong, from GIO's error about `location`.
    static func error(_ error: GLibError, at location: URL, cancellable: Cancellable) -> PhotoSourceError {
        if cancellable.isCancelled || error.isCancellation { return .cancelled }
        let address = location.absoluteString
        if error.isIOError(G_IO_ERROR_NOT_MOUNTED) { return .notMounted(location: address) }
        if error.isIOError(G_IO_ERROR_NOT_FOUND) { return .notFound(path: address) }
        if error.isIOError(G_IO_ERROR_PERMISSION_DENIED) { return .permissionDenied(path: address) }
        return .unreadable(path: address, detail: error.message)
    }
}

extension String {
    /// Takes a string GIO allocated (and frees it).
    init(gioString pointer: UnsafeMutablePointer<CChar>) {
        self.init(cString: pointer)
        g_free(pointer)
    }
}
