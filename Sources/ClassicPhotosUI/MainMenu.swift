import CGLib
import GLibKit

/// The primary menu of the header bar (`ui/main-menu.ui`): what to open and how to sort it,
/// then the app's own entries.
@MainActor
enum MainMenu {
    static func model() -> ObjectRef<GObject> {
        let file = UIFile("main-menu")
        // A reference of its own: the builder's goes with the file.
        return withExtendedLifetime(file) { ObjectRef(retaining: file.object("main-menu", as: MenuModel.self).pointer(as: GObject.self)) }
    }
}
