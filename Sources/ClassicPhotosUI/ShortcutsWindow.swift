import CGLib
import CGtk
import Foundation

/// The Keyboard Shortcuts window (Ctrl+?), built from a description of every shortcut.
@MainActor
enum ShortcutsWindow {
    private static let shortcuts: [(group: String, entries: [(accelerator: String, title: String)])] = [
        ("Photos", [
            ("<Control>o", "Open pictures or a photo list"),
            ("<Control><Shift>o", "Open a folder"),
            ("<Control>l", "Open a photo list from the web"),
            ("F5", "Reload"),
        ]),
        ("List", [
            ("Page_Up Page_Down", "Scroll a screen at a time"),
            ("Home End", "Go to the first or last photo"),
        ]),
        ("Photo Viewer", [
            ("Return", "Open the photo viewer on the focused photo"),
            ("Left Right", "Previous or next photo"),
            ("Home End", "First or last photo"),
            ("plus minus", "Zoom in or out"),
            ("0", "Fit to the window"),
            ("1", "Zoom to 100 %"),
            ("<Control>c", "Copy the photo"),
            ("<Control>s", "Save the photo as…"),
            ("s", "Switch between sepia and the original"),
            ("<Alt>Return", "Show the photo's properties"),
            ("F11", "Fullscreen"),
            ("Escape", "Leave fullscreen, or close the viewer"),
        ]),
        ("General", [
            ("<Control>question", "Keyboard shortcuts"),
            ("<Control>w", "Close the window"),
            ("<Control>q", "Quit"),
        ]),
    ]

    static func present(over parent: UnsafeMutablePointer<GtkWindow>?) {
        let builder = gtk_builder_new_from_string(description, -1)!
        defer { g_object_unref(UnsafeMutableRawPointer(builder)) }
        guard let object = gtk_builder_get_object(builder, "shortcuts") else { return }
        let window: UnsafeMutablePointer<GtkWindow> = UnsafeMutableRawPointer(object).assumingMemoryBound(to: GtkWindow.self)
        if let parent { gtk_window_set_transient_for(window, parent) }
        gtk_window_present(window)
    }

    /// The GtkBuilder description of the window.
    private static var description: String {
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
        }
        let groups = shortcuts.map { group in
            let entries = group.entries.map { entry in
                """
                <child><object class="GtkShortcutsShortcut">
                  <property name="accelerator">\(escaped(entry.accelerator))</property>
                  <property name="title">\(escaped(entry.title))</property>
                </object></child>
                """
            }.joined()
            return """
                <child><object class="GtkShortcutsGroup">
                  <property name="title">\(escaped(group.group))</property>\(entries)
                </object></child>
                """
        }.joined()
        return """
            <interface>
              <object class="GtkShortcutsWindow" id="shortcuts">
                <property name="modal">1</property>
                <child><object class="GtkShortcutsSection">
                  <property name="section-name">shortcuts</property>
                  <property name="max-height">12</property>\(groups)
                </object></child>
              </object>
            </interface>
            """
    }
}
