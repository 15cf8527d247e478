import CGLib
import Foundation
import GLibKit

/// A path on this computer, whose kind is found out when it is read (off the main thread):
/// a folder shows its pictures, a picture shows its folder's pictures with that one selected,
/// and any other file is read as a property list. A path into a network share mounted through
/// FUSE is read as the share (`RemoteSource`).
public struct LocalSource: PhotoSource {
    public let location: URL
    /// The order of a folder's pictures.
    public var order: PhotoOrder
    /// Whether a folder (or a picture's) shows every picture beneath it (see `FolderSource`).
    public var includesSubfolders: Bool

    public init(location: URL, order: PhotoOrder = .byName, includesSubfolders: Bool = false) {
        self.location = location
        self.order = order
        self.includesSubfolders = includesSubfolders
    }

    public func ordered(by order: PhotoOrder) -> any PhotoSource {
        LocalSource(location: location, order: order, includesSubfolders: includesSubfolders)
    }

    public func includingSubfolders(_ include: Bool) -> any PhotoSource {
        LocalSource(location: location, order: order, includesSubfolders: include)
    }

    public func read(
        using fetcher: PhotoFetcher, cancellable: Cancellable,
        deliver: (PhotoSourceBatch) -> Void
    ) throws(PhotoSourceError) {
        let file = location.withUnsafeFileSystemRepresentation { ObjectRef(takingOpaque: g_file_new_for_path($0)!) }
        // A path into a share that GVfs shows through FUSE ($XDG_RUNTIME_DIR/gvfs/…), as a
        // portal's file chooser hands over, is read as the share itself: page by page and head
        // first through GIO, not file by file through the FUSE layer.
        if g_file_has_uri_scheme(file.opaque, "file") == 0,
            let share = URL(string: String(gioString: g_file_get_uri(file.opaque))), RemoteLocation.isRemote(share)
        {
            return try RemoteSource(location: share, order: order, includesSubfolders: includesSubfolders).read(
                using: fetcher, cancellable: cancellable, deliver: deliver)
        }
        let attributes = [
            G_FILE_ATTRIBUTE_STANDARD_NAME, G_FILE_ATTRIBUTE_STANDARD_TYPE,
            G_FILE_ATTRIBUTE_STANDARD_FAST_CONTENT_TYPE,
        ].joined(separator: ",")
        let info: ObjectRef<GObject>
        do throws(GLibError) {
            info = try ObjectRef(
                takingOpaque: withGError {
                    g_file_query_info(file.opaque, attributes, G_FILE_QUERY_INFO_NONE, cancellable.pointer, $0)
                }!)
        } catch {
            if cancellable.isCancelled || error.isCancellation { throw .cancelled }
            throw Self.error(error, at: location)
        }
        switch g_file_info_get_file_type(info.opaque) {
        case G_FILE_TYPE_DIRECTORY:
            try FolderSource.readPictures(
                in: location, selecting: nil, order: order, recursive: includesSubfolders, cancellable: cancellable,
                lead: FolderSource.configuredLead, deliver)
        case G_FILE_TYPE_REGULAR:
            let nameType = g_file_info_get_attribute_string(info.opaque, G_FILE_ATTRIBUTE_STANDARD_FAST_CONTENT_TYPE)
                .map { String(cString: $0) }
            let isPicture = location.withUnsafeFileSystemRepresentation { path in
                PictureTypes().isPicture(path: path!, nameType: nameType)
            }
            if isPicture, let name = g_file_info_get_name(info.opaque) {
                try FolderSource.readPictures(
                    in: location.deletingLastPathComponent(), selecting: String(cString: name),
                    order: order, recursive: includesSubfolders, cancellable: cancellable, deliver)
            } else {
                try PropertyListSource(location: location).read(
                    using: fetcher, cancellable: cancellable, deliver: deliver)
            }
        default:
            throw .notPhotos(path: location.path)
        }
    }

    /// What went wrong, from GIO's error about `location`.
    static func error(_ error: GLibError, at location: URL) -> PhotoSourceError {
        if error.isIOError(G_IO_ERROR_NOT_FOUND) { return .notFound(path: location.path) }
        if error.isIOError(G_IO_ERROR_PERMISSION_DENIED) { return .permissionDenied(path: location.path) }
        return .unreadable(path: location.path, detail: error.message)
    }
}
