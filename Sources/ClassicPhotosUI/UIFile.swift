import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit

/// The app's GResource (`data/resources`, embedded at build time) and the GtkBuilder files in it.
@MainActor
enum AppResourceBundle {
    /// The resource base path: the application ID as a path.
    static let basePath = "/io/github/classicphotos/ClassicPhotos"
    private static var registered = false

    /// Makes the resources visible to GTK (`resource://` paths, builders, the style sheet and
    /// help overlay the application looks for). Call before the application starts; later
    /// calls do nothing.
    static func register() {
        guard !registered else { return }
        registered = true
        guard let data = Data(base64Encoded: EmbeddedResources.base64) else {
            preconditionFailure("the embedded GResource is not Base64")
        }
        let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count))! }
        defer { g_bytes_unref(bytes) }
        var error: UnsafeMutablePointer<GError>?
        guard let resource = g_resource_new_from_data(bytes, &error) else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "?"
            preconditionFailure("the embedded GResource does not load: \(message)")
        }
        g_resources_register(resource)
        g_resource_unref(resource)
    }
}

/// A widget tree described by one of the app's GtkBuilder files, with its objects reached by
/// ID as typed handles. A missing ID or an object of another class than asked is a mistake in
/// the app, not in anything a person does, and stops it at once.
@MainActor
final class UIFile {
    private let builder: ObjectRef<GObject>
    let name: String

    /// Builds `ui/<name>.ui` from the app's resources: every object in it, or only those named
    /// `only` (with what they hold), for a file that describes several variants of a thing.
    init(_ name: String, only ids: [String]? = nil) {
        AppResourceBundle.register()
        self.name = name
        let path = "\(AppResourceBundle.basePath)/ui/\(name).ui"
        if let ids {
            do {
                builder = try Handle<Builder>.make(resource: path, only: ids)
            } catch {
                preconditionFailure("\(name).ui does not build: \(error.message)")
            }
        } else {
            builder = Handle<Builder>.make(resource: path)
        }
        // A button showing only an icon is said by its tooltip's words, not "GtkImage".
        Handle<Builder>(builder).nameControls()
    }

    /// The object `id`, which must be a `Kind`.
    func object<Kind: GObjectKind>(_ id: String, as kind: Kind.Type = Kind.self) -> Handle<Kind> {
        guard let object = Handle<Builder>(builder).object(id) else {
            preconditionFailure("\(name).ui has no object “\(id)”")
        }
        guard let handle = object.checked(as: kind) else {
            preconditionFailure("“\(id)” in \(name).ui is not a \(Kind.self)")
        }
        return handle
    }

    /// The widget `id`, which must be a `Kind`.
    func widget<Kind: WidgetKind>(_ id: String, as kind: Kind.Type = Kind.self) -> Widget<Kind> {
        object(id, as: kind)
    }
}
