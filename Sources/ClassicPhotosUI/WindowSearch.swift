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
/// "All Folders" beside the entry (Alt+A while the bar is shown) searches every folder the index knows instead
/// (`SearchEverywhere`, told by `onEverywhere`).
@MainActor
final class WindowSearch {
    private let filtering: PhotoListFilter
    private let window: Widget<ApplicationWindow>
    private let bar: Widget<SearchBar>
    private let entry: Widget<SearchEntry>
    private var action: ObjectRef<GObject>?
    private var everywhereAction: ObjectRef<GObject>?
    /// Whether every folder the index knows is searched, not the list.
    private(set) var everywhere = false
    private var connections: [SignalConnection] = []
    private let keys = Handle<KeyController>.make()
    /// Whether the bar is wanted (it hides while the viewer is open).
    private var isOpen = false
    private var viewerOpen = false
    /// The words in the entry while the bar is hidden for the viewer.
    private var hiddenText: String?
    /// When the last key changed the words (GLib's monotonic clock), for the trace.
    private var typedAt = g_get_monotonic_time()
    /// Puts the photo selected back in view once the list is whole again.
    var onEnded: (() -> Void)?
    /// Enter in the entry: the first photo found selected, the keys on the list.
    var onActivate: (() -> Void)?
    /// The words to find in every folder (and when they were typed); "" for none yet.
    var onEverywhere: ((String, Int) -> Void)?
    /// The search over every folder ended (the list from before to come back).
    var onEverywhereEnded: (() -> Void)?
    /// The bar opened (before any word narrows the list).
    var onBegan: (() -> Void)?

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
        let all = ToggleAction.make("search-everywhere", false) { [unowned self] on in setEverywhere(on) }
        everywhereAction = all.action
        connections.append(all.connection)
        window.addAction(all.action)
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
                // (GTK empties the entry as the bar hides for the viewer: no change of words.)
                guard isOpen, !viewerOpen else { return }
                if everywhere {
                    onEverywhere?(entry.text, typedAt)
                } else {
                    filtering.setSearch(entry.text, typedAt: typedAt)
                }
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
        onBegan?()
        isOpen = true
        if let action { ToggleAction.setState(action, true) }
        bar.isSearching = true
        entry.grabFocus()
        // Still on screen (the bar closing a moment ago): it takes the keys now.
        if entry.isMapped { Trace.shared.emit(.searchOpen) }
        filtering.prepareSearch()
        if !entry.text.isEmpty, !everywhere { filtering.setSearch(entry.text) }
    }

    /// Searches every folder the index knows (on), or the list again (off).
    private func setEverywhere(_ on: Bool) {
        guard on != everywhere else { return }
        everywhere = on
        if let everywhereAction { ToggleAction.setState(everywhereAction, on) }
        // The switch (clicked, or Alt+A) takes the keys from the entry: they go back to it.
        if isOpen { entry.grabFocusToTypeOn() }
        if on {
            if !isOpen { begin() }
            // The list's own search stands aside: the results are what the words found.
            filtering.setSearch("")
            onEverywhere?(entry.text, g_get_monotonic_time())
        } else {
            onEverywhereEnded?()
            if isOpen { filtering.setSearch(entry.text) }
        }
    }

    /// Another list was opened while every folder was searched: the search ends, that list stays.
    func everywhereLeft() {
        everywhere = false
        if let everywhereAction { ToggleAction.setState(everywhereAction, false) }
        end()
    }

    /// Ends the search: every photo back, the bar hidden.
    func end() {
        guard isOpen else { return }
        isOpen = false
        if everywhere {
            everywhere = false
            if let everywhereAction { ToggleAction.setState(everywhereAction, false) }
            onEverywhereEnded?()
        }
        if let action { ToggleAction.setState(action, false) }
        bar.isSearching = false
        entry.text = ""
        filtering.setSearch("")
        onEnded?()
    }

    /// The viewer opened or closed: the bar hides while it is open (the search stays).
    func viewerOpened(_ open: Bool) {
        window.setActionEnabled("search", !open)
        window.setActionEnabled("search-everywhere", !open)
        guard isOpen else {
            viewerOpen = open
            return
        }
        if open {
            // GTK's bar empties its entry as it hides: the words are kept, and put back.
            viewerOpen = true
            hiddenText = entry.text
            bar.isSearching = false
        } else {
            bar.isSearching = true
            if let hiddenText, entry.text != hiddenText { entry.text = hiddenText }
            hiddenText = nil
            viewerOpen = false
        }
    }
}
