import CGLib
import CGtk
import GLibKit

// Drops onto a widget: files, links and text, as strings; drags out of one, and the clipboard:
// files, as the file manager offers them.

/// Files offered to other programs: by a drag, or on the clipboard.
public struct OfferedFiles {
    /// Each file's URI.
    public var uris: [String]
    /// What a program that takes only text gets: their paths, one a line.
    public var text: String

    public init(uris: [String], text: String) {
        self.uris = uris
        self.text = text
    }

    /// A content provider offering them (a reference the caller owns).
    func provider() -> UnsafeMutableRawPointer {
        let copies = uris.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let list: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
        return list.withUnsafeBufferPointer {
            UnsafeMutableRawPointer(cp_content_provider_new_for_files($0.baseAddress, text)!)
        }
    }
}

extension Handle where Kind == DragSource {
    /// A new drag source (for `addController`) that copies.
    public static func make() -> Self {
        let source = gtk_drag_source_new()!
        gtk_drag_source_set_actions(source, GDK_ACTION_COPY)
        return Self(UnsafeMutableRawPointer(source))
    }

    /// Connects `body` to "prepare": where the drag began, and what it offers (nil: no drag).
    public func onPrepare(_ body: @escaping (Double, Double) -> OfferedFiles?) -> SignalConnection {
        SignalConnection.connect(raw, "prepare", doublesReturningPointer: { x, y in body(x, y)?.provider() })
    }
}

extension Handle where Kind: WidgetKind {
    /// Puts `files` on the clipboard of the widget's display, as the file manager copies files.
    public func copyToClipboard(files: OfferedFiles) {
        let provider = files.provider()
        defer { g_object_unref(provider) }
        gdk_clipboard_set_content(
            gtk_widget_get_clipboard(widget), provider.assumingMemoryBound(to: GdkContentProvider.self))
    }
}

extension Handle where Kind == DropTarget {
    /// A new drop target (for `addController`) taking copies of files (a file list, which is
    /// also how links arrive from browsers and file managers) or text.
    public static func forLocations() -> Self { Self(UnsafeMutableRawPointer(cp_drop_target_new_for_locations()!)) }

    /// Connects `body` to "drop", with what was dropped as strings (each file's URI, or the
    /// text) once it has been read; `body` says whether it took the drop. A file list the
    /// desktop's document portal cannot hand over is read from the text/uri-list offered with it.
    public func onDrop(_ body: @escaping ([String]) -> Bool) -> SignalConnection {
        SignalConnection.connect(
            raw, "drop",
            pointerDoubles: { drop, _, _ in
                guard let drop, GObjectCast.isInstance(drop, of: gdk_drop_get_type()) else { return false }
                cp_drop_read_locations(
                    OpaquePointer(drop),
                    { strings, data in
                        let reader = CallbackData.take(data, as: DropReader.self)
                        var dropped: [String] = []
                        var index = 0
                        while let string = strings?[index] {
                            dropped.append(String(cString: string))
                            index += 1
                        }
                        return !dropped.isEmpty && reader.body(dropped) ? 1 : 0
                    }, CallbackData.retain(DropReader(body)))
                return true
            })
    }
}

/// What a drop's strings are handed to once read.
private final class DropReader {
    let body: ([String]) -> Bool
    init(_ body: @escaping ([String]) -> Bool) { self.body = body }
}
