import CGLib
import Foundation
import GLibKit

/// The pictures directly inside a local folder, in the order a file manager shows them.
///
/// A file is a picture when its content is of a type gdk-pixbuf loads (see `PictureTypes`),
/// whatever its name says. Sub-folders, hidden files and other files are left out. Each entry
/// is named after the file's display name and points at the file's URI.
public struct FolderSource: PhotoSource {
    public let location: URL

    public init(location: URL) {
        self.location = location
    }

    public func read(using fetcher: PhotoFetcher, cancellable: Cancellable,
                     deliver: (PhotoSourceBatch) -> Void) throws(PhotoSourceError) {
        try Self.readPictures(in: location, selecting: nil, cancellable: cancellable, deliver)
    }

    /// What is asked of GIO for each file: the type from the name only, as the content is
    /// read here anyway.
    private static let attributes = [
        G_FILE_ATTRIBUTE_STANDARD_NAME, G_FILE_ATTRIBUTE_STANDARD_DISPLAY_NAME, G_FILE_ATTRIBUTE_STANDARD_TYPE,
        G_FILE_ATTRIBUTE_STANDARD_IS_HIDDEN, G_FILE_ATTRIBUTE_STANDARD_FAST_CONTENT_TYPE,
    ].joined(separator: ",")

    /// Lists the pictures in `folder` and delivers them in batches. `selecting` is the file
    /// name (as on disk) of a picture to mark as selected; it is listed even when hidden.
    static func readPictures(in folder: URL, selecting: String?, cancellable: Cancellable,
                             _ deliver: (PhotoSourceBatch) -> Void) throws(PhotoSourceError) {
        let directory = folder.withUnsafeFileSystemRepresentation { ObjectRef(takingOpaque: g_file_new_for_path($0)!) }
        let enumerator: ObjectRef<GFileEnumerator>
        do throws(GLibError) {
            enumerator = try ObjectRef(taking: withGError {
                g_file_enumerate_children(directory.opaque, attributes, G_FILE_QUERY_INFO_NONE, cancellable.pointer, $0)
            }!)
        } catch {
            throw sourceError(error, folder: folder, cancellable: cancellable)
        }
        defer { g_file_enumerator_close(enumerator.pointer, nil, nil) }

        // Paths are the folder's path and each file name, as bytes: file names need not be UTF-8.
        var path = folder.withUnsafeFileSystemRepresentation { Array(UnsafeBufferPointer(start: $0!, count: strlen($0!))) }
        if path.last != 0x2F { path.append(0x2F) } // "/"
        let prefixLength = path.count
        let pictures = PictureTypes()
        var names: [String] = [], links: [String] = []
        var selected: Int?

        // One file at a time: GIO has no blocking call for several, and its local enumerator
        // reads the directory in blocks behind this anyway.
        while true {
            let next: OpaquePointer?
            do throws(GLibError) {
                next = try withGError { g_file_enumerator_next_file(enumerator.pointer, cancellable.pointer, $0) }
            } catch {
                throw sourceError(error, folder: folder, cancellable: cancellable)
            }
            guard let next else { break }
            let info = ObjectRef(takingOpaque: next)
            guard g_file_info_get_file_type(info.opaque) == G_FILE_TYPE_REGULAR,
                  let name = g_file_info_get_name(info.opaque) else { continue }
            let isSelected = selecting.map { strcmp($0, name) == 0 } ?? false
            guard isSelected || g_file_info_get_is_hidden(info.opaque) == 0 else { continue }
            path.removeSubrange(prefixLength...)
            path.append(contentsOf: UnsafeBufferPointer(start: name, count: strlen(name)))
            path.append(0)
            let nameType = g_file_info_get_attribute_string(info.opaque, G_FILE_ATTRIBUTE_STANDARD_FAST_CONTENT_TYPE)
                .map { String(cString: $0) }
            guard pictures.isPicture(path: path, nameType: nameType),
                  let uri = g_filename_to_uri(path, nil, nil) else { continue }
            if isSelected { selected = names.count }
            names.append(g_file_info_get_display_name(info.opaque).map { String(cString: $0) } ?? String(cString: name))
            links.append(String(cString: uri))
            g_free(uri)
        }

        let order = NaturalOrder.order(names: names, links: links)
        let selectedPosition = selected.flatMap { order.firstIndex(of: $0) }
        var start = 0
        while start < order.count {
            if cancellable.isCancelled { throw .cancelled }
            let end = min(start + PhotoSources.batchSize, order.count)
            let entries = order[start..<end].map { PhotoEntry(name: names[$0], link: links[$0], base: nil) }
            let selectedHere = selectedPosition.flatMap { (start..<end).contains($0) ? $0 - start : nil }
            deliver(PhotoSourceBatch(entries: entries, selected: selectedHere))
            start = end
        }
    }

    /// The words for a folder GIO could not read.
    static func sourceError(_ error: GLibError, folder: URL, cancellable: Cancellable) -> PhotoSourceError {
        if cancellable.isCancelled || error.isCancellation { return .cancelled }
        if error.isIOError(G_IO_ERROR_NOT_FOUND) { return PhotoSources.doesNotExist(folder) }
        if error.isIOError(G_IO_ERROR_NOT_DIRECTORY) { return PhotoSourceError("“\(folder.path)” is not a folder") }
        return PhotoSourceError("Could not read the folder “\(folder.path)”: \(error.message)")
    }
}
