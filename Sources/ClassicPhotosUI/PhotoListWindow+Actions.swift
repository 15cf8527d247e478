import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The window's actions (`win.*`): Open…, Open Folder…, Open Location…, Reload, Close, and
/// Retry for every failed photo; the folder shown's sort and sub-folders chosen, and where a
/// photo of it is, for the label over the view.
extension PhotoListWindow {
    /// Keyboard accelerators of the window actions, set once for the application.
    static let acceleratorsByAction: [(String, [String])] = [
        ("win.open", ["<Control>o"]),
        ("win.open-folder", ["<Control><Shift>o"]),
        ("win.open-location", ["<Control>l"]),
        ("win.reload", ["F5"]),
        ("win.close", ["<Control>w"]),
        ("win.view-mode::list", ["<Control>1", "<Control>KP_1"]),
        ("win.view-mode::grid", ["<Control>2", "<Control>KP_2"]),
        ("win.zoom-in", ["<Control>plus", "<Control>equal", "<Control>KP_Add"]),
        ("win.zoom-out", ["<Control>minus", "<Control>KP_Subtract"]),
        ("win.zoom-reset", ["<Control>0", "<Control>KP_0"]),
        ("win.go-back", ["<Alt>Left", "<Alt>KP_Left"]),
        ("win.go-up", ["<Alt>Up", "<Alt>KP_Up"]),
    ]

    /// The actions that change the view, which the viewer's own keys take while it is open.
    static let viewActions = ["view-mode", "zoom-in", "zoom-out", "zoom-reset", "go-back", "go-up"]

    func addActions() {
        addAction("open") { [unowned self] in chooseFiles(folders: false) }
        addAction("open-folder") { [unowned self] in chooseFiles(folders: true) }
        addAction("open-location") { [unowned self] in askForLocation() }
        addAction("reload") { [unowned self] in
            if !sources.isEmpty { open(sources) }
        }
        addAction("close") { [unowned self] in toplevel.close() }
        addAction("retry-failed") { [unowned self] in processor.retryFailed() }
        let descending = settings.photoOrder.descending
        addChoice("sort-by", settings.sortsByRating ? "rating" : photoOrder.key.rawValue) { [unowned self] value in
            let descending = settings.photoOrder.descending
            if value == "rating" {
                sortChosen(.byName, byRating: descending)
                return true
            }
            guard let key = PhotoOrder.Key(rawValue: value) else { return false }
            sortChosen(PhotoOrder(key: key, descending: descending))
            return true
        }
        addChoice("sort-direction", descending ? "descending" : "ascending") { [unowned self] value in
            guard value == "ascending" || value == "descending" else { return false }
            if filter.filtering.byRating != nil {
                sortChosen(.byName, byRating: value == "descending")
            } else {
                sortChosen(PhotoOrder(key: photoOrder.key, descending: value == "descending"))
            }
            return true
        }
        addChoice("view-mode", pane.mode.rawValue) { [unowned self] value in
            guard let mode = PhotoViewMode(rawValue: value) else { return false }
            pane.show(mode)
            return true
        }
        addToggle("include-subfolders", includeSubfolders) { [unowned self] include in
            includeSubfoldersChosen(include)
        }
        addAction("go-back") { [unowned self] in goBack() }
        addAction("go-up") { [unowned self] in goUp() }
        addAction("zoom-in") { [unowned self] in pane.stepCellSize(1) }
        addAction("zoom-out") { [unowned self] in pane.stepCellSize(-1) }
        addAction("zoom-reset") { [unowned self] in pane.setCellSize(PhotoGridCell.defaultSize) }
        addChoice("slideshow-interval", "5") { [unowned self] value in
            guard let seconds = UInt32(value), [3, 5, 10].contains(seconds) else { return false }
            viewer.slideshow.interval = seconds
            return true
        }
    }

    /// A stateful action with a string state, shown as radio items; `body` applies a new value
    /// and says whether it was taken.
    private func addChoice(_ name: String, _ initial: String, _ body: @escaping (String) -> Bool) {
        let (action, connection) = ChoiceAction.make(name, initial, body)
        connections.append(connection)
        toplevel.addAction(action)
    }

    /// A stateful action with a boolean state, shown as a check item; `body` applies a new value.
    private func addToggle(_ name: String, _ initial: Bool, _ body: @escaping (Bool) -> Void) {
        let (action, connection) = ToggleAction.make(name, initial, body)
        connections.append(connection)
        toplevel.addAction(action)
    }

    /// Turns the view's actions on or off: they act while the viewer is closed, and the size's
    /// only on the grid.
    func refreshViewActions(viewerOpen: Bool) {
        // Tab stays among the viewer's controls and the header bar's, not the photos behind.
        pane.scrolled.canFocus = !viewerOpen
        for name in Self.viewActions {
            let applies =
                switch name {
                case "view-mode": true
                case "go-back": !history.isEmpty || everywhere.showingResults
                case "go-up": parentFolder != nil
                default: pane.mode == .grid
                }
            toplevel.setActionEnabled(name, !viewerOpen && applies)
        }
        filter.viewerOpened(viewerOpen)
        search.viewerOpened(viewerOpen)
    }

    private func addAction(_ name: String, _ body: @escaping () -> Void) {
        let action = ObjectRef(takingOpaque: g_simple_action_new(name, nil)!)
        connections.append(SignalConnection.connect(action.pointer, "activate", pointer: { _ in body() }))
        toplevel.addAction(action)
    }

    // MARK: Folders within folders

    /// Opens the sub-folder at `url` in this window; Back returns to what was shown.
    func openFolder(_ url: URL) {
        history.append(sources)
        open([PhotoSources.source(for: url)])
    }

    /// The folder the one shown is in, when the list is one folder (and not the root).
    var parentFolder: URL? {
        guard let folder = shownFolder?.standardizedFileURL, folder.path != "/", !folder.path.isEmpty else {
            return nil
        }
        return folder.deletingLastPathComponent()
    }

    /// Back (Alt+Left): what was shown before the last folder opened, with the folder left
    /// selected in it.
    func goBack() {
        // From a search's results: the list the search began from.
        if everywhere.showingResults { return search.end() }
        guard let previous = history.popLast() else { return }
        let left = shownFolder
        open(previous)
        if let left { selectWhenLoaded(folder: left) }
    }

    /// Up (Alt+Up): the folder the one shown is in, with the folder left selected.
    func goUp() {
        guard let parent = parentFolder, let left = shownFolder else { return }
        history.append(sources)
        open([PhotoSources.source(for: parent)])
        selectWhenLoaded(folder: left)
    }

    // MARK: Open… and Open Folder…

    /// The desktop's file chooser (a portal where there is one): pictures and photo lists, or
    /// folders. Several may be chosen; they open as one list.
    private func chooseFiles(folders: Bool) {
        let object = Handle<FileChooserNative>.make(
            title: folders ? tr("Open Folder") : tr("Open Pictures or a Photo List"), parent: window,
            action: folders ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER : GTK_FILE_CHOOSER_ACTION_OPEN,
            accept: tr("_Open"), cancel: tr("_Cancel"))
        let chooser = Handle<FileChooserNative>(object)
        chooser.selectsMultiple = true
        if !folders {
            // Camera RAW files (image/x-dcraw) are shown through their previews.
            chooser.addFilter(
                tr("Pictures and photo lists"), pictures: true, mimeTypes: ["image/x-dcraw"], patterns: ["*.plist"])
            chooser.addFilter(tr("Pictures"), pictures: true, mimeTypes: ["image/x-dcraw"])
            chooser.addFilter(tr("Photo lists"), patterns: ["*.plist"])
        }
        let response = chooser.connect(
            "response",
            int: { [unowned self] response in
                let uris = response == GTK_RESPONSE_ACCEPT.rawValue ? chooser.chosenURIs : []
                dialog = nil
                if !uris.isEmpty { open(uris.map { PhotoSources.source(for: $0) }) }
            })
        dialog = (object, [response])
        chooser.show()
    }

    // MARK: Open Location…

    /// Asks for the address of a photo list on the web, or of a folder or photo on a network
    /// share (`ui/open-location.ui`).
    private func askForLocation() {
        let ui = UIFile("open-location")
        let prompt = ui.widget("dialog", as: MessageDialog.self)
        let address = ui.widget("address", as: Entry.self)
        prompt.setTransientFor(window)
        let response = prompt.onResponse { [unowned self] chosen in
            let text = address.text.trimmingCharacters(in: .whitespaces)
            dialog = nil
            guard chosen == "open", !text.isEmpty else { return }
            guard let url = URL(string: text), url.isWebAddress || RemoteLocation.isRemote(url) else {
                showToast(String(format: tr("“%@” is neither a web address nor one of a network share"), text))
                return
            }
            open([PhotoSources.source(for: url)])
        }
        dialog = (ui, [response])
        prompt.present()
    }

    // MARK: The folder shown

    /// Where the photo at `position` is, for the label floating over a long view while it
    /// scrolls: its month when the folder is sorted by date taken, its folder in a tree.
    func placeText(at position: Int) -> String? {
        guard let order = feed.folderOrder, let folder = feed.shownFolder, position < photos.count else { return nil }
        let entry = photos.entry(at: position)
        guard !entry.isFolder else { return nil }
        if order.key == .dateTaken, let taken = feed.dateTaken(of: photos.id(at: position), link: entry.link),
            let month = PlaceLabel.month(of: taken)
        {
            return month
        }
        guard feed.showsTree else { return nil }
        return entry.subfolder.map { DisplayText.line(String($0)) } ?? folder.lastPathComponent
    }

    /// The one folder the list shows, on this computer or a share, if it shows one.
    var shownFolder: URL? { feed.shownFolder }

    /// Include Sub-folders chosen in the menu: remembered, and the folder shown read again.
    func includeSubfoldersChosen(_ include: Bool) {
        guard include != includeSubfolders else { return }
        includeSubfolders = include
        settings.includeSubfolders = include
        if feed.folderOrder != nil || sources.contains(where: { $0.includesSubfolders }) { open(sources) }
    }

    /// The sort chosen in the menu: remembered, and applied to the folder shown; `byRating`
    /// (most stars first, or fewest): the photos shown by their stars, over `order`.
    func sortChosen(_ order: PhotoOrder, byRating: Bool? = nil) {
        if let byRating { settings.sortByRating(mostFirst: byRating) } else { settings.photoOrder = order }
        filter.filtering.order(byRating: byRating)
        feed.sort(by: order)
    }
}
