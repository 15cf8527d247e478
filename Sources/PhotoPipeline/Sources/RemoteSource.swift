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
/// every byte crosses the network. Sub-folders come first as items, as in a local folder. Rows
/// are handed over as the pages come (`ArrivalOrder`), each where it belongs, not once the
/// last page is in.
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
            try list(file, ahead: nil, cancellable: cancellable, deliver)
        case G_FILE_TYPE_REGULAR:
            let name = String(cString: g_file_info_get_name(info.opaque))
            guard name.withCString({ PictureTypes().verdict(forName: $0) }) == .picture,
                let parent = g_file_get_parent(file.opaque)
            else { throw .notPhotos(path: location.absoluteString) }
            let ahead = ArrivalOrder.Item(
                name: name, link: String(gioString: g_file_get_uri(file.opaque)), facts: Self.facts(info.opaque),
                isFolder: false)
            deliver(PhotoSourceBatch(entries: [ahead.entry], selected: 0))
            try list(ObjectRef(takingOpaque: parent), ahead: ahead, cancellable: cancellable, deliver)
        default:
            throw .notPhotos(path: location.absoluteString)
        }
    }

    /// How often, at most, what has been listed since is handed over while a folder (or a
    /// tree) is still being listed: often enough that rows come as the share sends them, seldom
    /// enough that the list is not edited for every page.
    static let handOverInterval = Duration.milliseconds(150)

    /// Lists the folder's sub-folders and pictures, and hands them over as they come, each where
    /// it belongs among those before; with `ahead` (a photo of the folder, delivered already),
    /// the others, around it.
    private func list(
        _ folder: ObjectRef<GObject>, ahead: ArrivalOrder.Item?, cancellable: Cancellable,
        _ deliver: (PhotoSourceBatch) -> Void
    ) throws(PhotoSourceError) {
        let folderURL = URL(string: String(gioString: g_file_get_uri(folder.opaque))) ?? location
        // Dates taken would mean reading every photo over the network: such a folder is sorted
        // by the dates its files were changed instead.
        var used = order
        if used.key == .dateTaken { used.key = .dateModified }
        var arrivals = ArrivalOrder(order: used)
        if let ahead { arrivals.hold(ahead) }
        var handedOver = false
        let clock = ContinuousClock()
        var lastHandOver = clock.now
        func handOver() {
            let (entries, positions) = arrivals.take()
            deliver(
                PhotoSourceBatch(
                    entries: entries, folder: folderURL, order: used, wantedOrder: order, positions: positions))
            handedOver = true
            lastHandOver = clock.now
        }
        func handOverIfDue(folderDone: Bool) {
            guard arrivals.hasArrivals else { return }
            // A tree's first folder is shown as soon as it is read; after that, and within a
            // folder, what came is handed over every so often.
            if (folderDone && !handedOver) || lastHandOver.duration(to: clock.now) >= Self.handOverInterval {
                handOver()
            }
        }
        let pictures = PictureTypes()
        func walk(_ folder: ObjectRef<GObject>, prefix: String, depth: Int) throws(PhotoSourceError) {
            let subfolders = try Self.enumerate(
                folder, selecting: depth == 0 ? ahead?.entry.name : nil, pictures: pictures,
                cancellable: cancellable,
                named: URL(string: String(gioString: g_file_get_uri(folder.opaque))) ?? folderURL
            ) { name, link, facts in
                if let facts {
                    // The photo shown ahead is there already.
                    if depth == 0, name == ahead?.entry.name { return }
                    arrivals.add(ArrivalOrder.Item(name: prefix + name, link: link, facts: facts, isFolder: false))
                } else if !includesSubfolders {
                    arrivals.add(ArrivalOrder.Item(name: name, link: link + "/", facts: nil, isFolder: true))
                }
                handOverIfDue(folderDone: false)
            }
            handOverIfDue(folderDone: true)
            guard includesSubfolders, depth < Self.maxDepth else { return }
            for index in NaturalOrder.order(names: subfolders, links: subfolders) {
                let name = subfolders[index]
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
        // An empty folder still says which folder it is.
        if arrivals.hasArrivals || !handedOver { handOver() }
    }

    /// One folder's sub-folders and pictures, by names and cheap types alone, as GVfs hands
    /// them over: `found` gets each picture's name, address and facts, and each sub-folder's
    /// name and address (nil facts); `selecting` is listed even if hidden. Returns the names of
    /// the sub-folders.
    private static func enumerate(
        _ folder: ObjectRef<GObject>, selecting: String?, pictures: PictureTypes, cancellable: Cancellable,
        named folderURL: URL, found: (_ name: String, _ link: String, _ facts: SortFacts?) -> Void
    ) throws(PhotoSourceError) -> [String] {
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
        var subfolders: [String] = []
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
            switch g_file_info_get_file_type(info) {
            case G_FILE_TYPE_DIRECTORY:
                subfolders.append(name)
                found(name, uri(of: name, in: folder), nil)
            case G_FILE_TYPE_REGULAR:
                guard isSelected || name.withCString({ pictures.verdict(forName: $0) }) == .picture else { continue }
                found(name, uri(of: name, in: folder), facts(info))
            default:
                continue
            }
        }
        if cancellable.isCancelled { throw .cancelled }
        return subfolders
    }

    /// A listed file's modification time and size.
    private static func facts(_ info: OpaquePointer) -> SortFacts {
        let modified = g_file_info_get_attribute_uint64(info, G_FILE_ATTRIBUTE_TIME_MODIFIED)
        return SortFacts(
            modified: Int64(clamping: modified) * 1_000_000_000, size: Int64(g_file_info_get_size(info)), taken: nil)
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
