import CGLib
import CGtk
import GLibKit
import GtkKit
import PhotoPipeline

/// The window's search: Ctrl+F (or the magnifier in the header bar) shows a search bar under
/// it; each word typed narrows the list, the grid and the viewer's paging to the photos whose
/// names, sub-folders or tags hold it (`PhotoListFilter`'s search, with the filter's marks
/// besides). Enter goes to the first photo found; Escape in the entry, or Ctrl+F again, ends
/// the search: every photo is back, and the one selected stays in view. While the viewer is open the bar hides, and the search stays.
@MainActor
final class WindowSearch {
    private let filtering: PhotoListFilter
    private let window: Widget<ApplicationWindow>
    private let bar: Widget<SearchBar>
    private let entry: Widget<SearchEntry>
    private var action: ObjectRef<GObject>?
    private var connections: [SignalConnection] = []
    private let keys = Handle<KeyController>.make()
    /// Whether the bar is wanted (it hides while the viewer is open).
    private var isOpen = false
    private var viewerOpen = false
    /// When the last key changed the words (GLib's monotonic clock), for the trace.
    private var typedAt = g_get_monotonic_time()
    /// Puts the photo selected back in view once the list is whole again.
    var onEnded: (() -> Void)?
    /// Enter in the entry: the first photo found selected, the keys on the list.
    var onActivate: (() -> Void)?

    static let acceleratorsByAction: [(String, [String])] = [("win.search", ["<Control>f"])]

    init(ui: UIFile, window: Widget<ApplicationWindow>, filtering: PhotoListFilter) {
        self.window = window
        self.filtering = filtering
        bar = ui.widget("search-bar")
        entry = ui.widget("search-entry")
        bar.connect(entry: entry)
        // Each key narrows at once: matching 100,000 names takes a few milliseconds, off the
        // main thread, and a key that comes meanwhile stops it.
        entry.setSearchDelay(milliseconds: 0)
        let made = ToggleAction.make("search", false) { [unowned self] on in on ? begin() : end() }
        action = made.action
        connections.append(made.connection)
        window.addAction(made.action)
        // Escape with the keys on the list (after Enter) ends the search too; the entry's own
        // Escape comes first while it has them.
        connections.append(
            keys.onKeyPressed { [unowned self] keyval, _, _ in
                guard keyval == UInt32(GDK_KEY_Escape), isOpen, !viewerOpen else { return false }
                end()
                return true
            })
        window.addController(keys)
        connections += [
            entry.connect("changed") { [unowned self] in typedAt = g_get_monotonic_time() },
            entry.connect("search-changed") { [unowned self] in
                guard isOpen else { return }
                filtering.setSearch(entry.text, typedAt: typedAt)
            },
            entry.connect("activate") { [unowned self] in onActivate?() },
            // GTK gives the entry the keys once it is on screen (the frame after the bar opens).
            entry.connect("map") { [unowned self] in if isOpen { Trace.shared.emit(.searchOpen) } },
            // Escape in the entry: GTK hides the bar; the search ends with it.
            bar.onNotify("search-mode-enabled") { [unowned self] in
                if !bar.isSearching, isOpen, !viewerOpen { end() }
            },
        ]
    }

    private func begin() {
        isOpen = true
        if let action { ToggleAction.setState(action, true) }
        bar.isSearching = true
        entry.grabFocus()
        // Still on screen (the bar closing a moment ago): it takes the keys now.
        if entry.isMapped { Trace.shared.emit(.searchOpen) }
        filtering.prepareSearch()
        if !entry.text.isEmpty { filtering.setSearch(entry.text) }
    }

    /// Ends the search: every photo back, the bar hidden.
    func end() {
        guard isOpen else { return }
        isOpen = false
        if let action { ToggleAction.setState(action, false) }
        bar.isSearching = false
        entry.text = ""
        filtering.setSearch("")
        onEnded?()
    }

    /// The viewer opened or closed: the bar hides while it is open (the search stays).
    func viewerOpened(_ open: Bool) {
        viewerOpen = open
        window.setActionEnabled("search", !open)
        bar.isSearching = isOpen && !open
    }
}
