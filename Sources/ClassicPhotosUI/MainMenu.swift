import CGLib
import GLibKit

/// The primary menu of the header bar: what to open, and the app's own entries.
enum MainMenu {
    static func model() -> ObjectRef<GObject> {
        let menu = g_menu_new()!
        let open = g_menu_new()!
        g_menu_append(open, "_Open…", "win.open")
        g_menu_append(open, "Open _Location…", "win.open-location")
        g_menu_append(open, "_Reload", "win.reload")
        g_menu_append_section(menu, nil, UnsafeMutableRawPointer(open).assumingMemoryBound(to: GMenuModel.self))
        g_object_unref(UnsafeMutableRawPointer(open))
        let app = g_menu_new()!
        g_menu_append(app, "_Clear Cache", "app.clear-cache")
        g_menu_append(app, "_Keyboard Shortcuts", "app.shortcuts")
        g_menu_append(app, "_About Classic Photos", "app.about")
        g_menu_append_section(menu, nil, UnsafeMutableRawPointer(app).assumingMemoryBound(to: GMenuModel.self))
        g_object_unref(UnsafeMutableRawPointer(app))
        return ObjectRef(takingOpaque: menu)
    }
}
