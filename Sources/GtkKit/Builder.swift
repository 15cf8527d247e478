import CGLib
import CGtk
import Foundation
import GLibKit

// GtkBuilder files from the app's GResource, and the objects in them by ID.

extension Handle where Kind == Builder {
    /// A builder holding every object of the file at `path` in the registered resources, as the
    /// reference that keeps them alive. A file that does not build stops the app (GTK's own
    /// check: the files are the app's, not anything a person chose).
    public static func make(resource path: String) -> ObjectRef<GObject> {
        ObjectRef(takingOpaque: gtk_builder_new_from_resource(path))
    }

    /// A builder holding only the objects `ids` of the file at `path` (with what they hold),
    /// for a file that describes several variants of a thing.
    public static func make(resource path: String, only ids: [String]) throws(GLibError) -> ObjectRef<GObject> {
        let builder = ObjectRef(takingOpaque: gtk_builder_new())
        var names: [UnsafePointer<CChar>?] = ids.map { UnsafePointer(strdup($0)) } + [nil]
        defer { names.forEach { free(UnsafeMutableRawPointer(mutating: $0)) } }
        _ = try withGError { error in gtk_builder_add_objects_from_resource(builder.opaque, path, &names, error) }
        return builder
    }

    /// Names its controls that GTK 4.8 would leave to be called by their class names (buttons
    /// showing only an icon, entries) after their tooltips or placeholders, for screen readers.
    public func nameControls() { cp_builder_name_controls(opaque) }

    /// The object `id`, whatever its class (`checked(as:)` says whether it is the one wanted);
    /// nil if the file has none.
    public func object(_ id: String) -> Handle<AnyGObject>? {
        gtk_builder_get_object(opaque, id).map { Handle<AnyGObject>(UnsafeMutableRawPointer($0)) }
    }
}
