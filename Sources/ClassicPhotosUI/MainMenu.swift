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
        // Sort By: the key, then the direction, as radio items of two stateful actions.
        let sort = g_menu_new()!
        let keys = g_menu_new()!
        for (label, key) in [("_Name", "name"), ("Date _Taken", "date-taken"), ("Date _Modified", "date-modified"), ("_Size", "size")] {
            g_menu_append(keys, label, "win.sort-by::\(key)")
        }
        g_menu_append_section(sort, nil, UnsafeMutableRawPointer(keys).assumingMemoryBound(to: GMenuModel.self))
        g_object_unref(UnsafeMutableRawPointer(keys))
        let directions = g_menu_new()!
        g_menu_append(directions, "_Ascending", "win.sort-direction::ascending")
        g_menu_append(directions, "_Descending", "win.sort-direction::descending")
        g_menu_append_section(sort, nil, UnsafeMutableRawPointer(directions).assumingMemoryBound(to: GMenuModel.self))
        g_object_unref(UnsafeMutableRawPointer(directions))
        g_menu_append_submenu(open, "_Sort By", UnsafeMutableRawPointer(sort).assumingMemoryBound(to: GMenuModel.self))
        g_object_unref(UnsafeMutableRawPointer(sort))
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
