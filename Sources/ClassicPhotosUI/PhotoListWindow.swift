import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The main window: a libadwaita header bar (title, source and photo count, activity, Open…
/// and the main menu), the photo list, a status page when there is no list to show, toasts,
/// and the photo viewer over the list.
///
/// It composes rooms that each own their state and read the list: the list's model
/// (`PhotoListFeed`: the sources read, a folder kept up to date and sorted, and the only
/// thing that edits the list), the work on its photos (`PhotoProcessor`), the view
/// (`PhotoListPane`), what the window says (`WindowStatus`), the viewer (`PhotoViewer`) and
/// the photo actions (`PhotoActions`). What is left here is opening sources (mounting their
/// shares first), what the window does as the model tells of its steps, the window's own
/// state, and closing.
@MainActor
final class PhotoListWindow {
    let toplevel: Widget<ApplicationWindow>
    /// The list's model, and the list shown.
    let feed: PhotoListFeed
    let photos: PhotoList
    let processor: PhotoProcessor
    let pane: PhotoListPane
    let status: WindowStatus
    /// Which photos of the list are shown (the funnel in the header bar).
    let filter: WindowFilter
    let search: WindowSearch
    /// The search over every folder the index knows (see PhotoListWindow+Search).
    let everywhere = SearchEverywhere()
    /// The details panel, beside or under the photos.
    let details: WindowDetails
    /// The photos' alt text, for the details panel and the viewer.
    let altTexts = AltTexts()
    let headerBar: Widget<HeaderBar>
    /// The main menu's popover.
    private let mainMenu: Widget<Popover>?
    /// The photo viewer, over the list (see PhotoListWindow+Viewer).
    var viewer: PhotoViewer!
    /// The compare view, over the list like the viewer (see PhotoListWindow+Viewer).
    var compare: PhotoCompare!
    /// The photo actions (trash, rotate, print, …), once the viewer is in place.
    var photoActions: PhotoActions!
    var connections: [SignalConnection] = []
    private var surfaceConnections: [SignalConnection] = []
    private let memoryMonitor: ObjectRef<GObject>?
    /// The sources shown, as given on the command line (kept for Retry).
    private(set) var sources: [any PhotoSource] = []
    /// The mounting of the shares the sources being opened are on.
    private var mounting: Cancellable?
    /// How many of the sources being opened failed to mount after a dialog asked the user (a
    /// password cancelled or refused): with nothing else to show, the window's status says so,
    /// with Retry, and no alert repeats it over the dialog just closed.
    private var mountsAnswered = 0
    /// The sources that could not be read (or mounted) of those being opened.
    private var failures: [PhotoSourceError] = []
    /// Whether the list is to take the keyboard focus when its first rows arrive (once for each
    /// list opened).
    private var focusWhenFilled = false
    private var shownTraced = false
    private var firstFrame: SignalConnection?

    /// Called once the window has closed (its work cancelled).
    var onClosed: (() -> Void)?
    private var isClosed = false
    let settings: AppSettings
    /// The order folders are shown in (the main menu's choice).
    var photoOrder: PhotoOrder { feed.order }
    /// Whether folders show every picture beneath them (the main menu's Include Sub-folders, or
    /// `--recursive`) rather than their sub-folders as items.
    var includeSubfolders: Bool {
        didSet { toplevel.setActionState("include-subfolders", includeSubfolders) }
    }
    /// Whether every source of the list has been read.
    var loadingFinished: Bool { !feed.isLoading }
    /// What was shown before each sub-folder opened (its sources), the latest last.
    var history: [[any PhotoSource]] = []
    /// The link of a sub-folder or photo to select once the list holds it (the folder left by
    /// Back or Up, the photo a search over every folder began from).
    var linkToSelect: String?
    /// A file chooser or location dialog while one is open: what holds it, and its handlers.
    var dialog: (owner: AnyObject, connections: [SignalConnection])?

    /// The window, for the viewer (its host's window), About and the diagnostics.
    var window: Widget<ApplicationWindow> { toplevel }
    /// The list view, for the diagnostics' check that it is freed with the window.
    var listView: OpaquePointer { pane.list.opaque }

    init(application: Handle<Application>, settings: AppSettings, http: HTTPClient) {
        self.settings = settings
        includeSubfolders = settings.includeSubfolders
        // Limits come from the settings; the decoding memory is one budget for the whole app.
        let limits = settings.limits
        DecodeMemoryBudget.shared.capacity = limits.decodeMemoryBytes
        let fetcher = PhotoFetcher(limits: limits, http: http)
        feed = PhotoListFeed(
            loader: PhotoSourceLoader(fetcher: fetcher), order: settings.sortsByRating ? .byName : settings.photoOrder)
        photos = feed.list
        processor = PhotoProcessor(list: photos, fetcher: fetcher, thumbnails: .standard, remoteThumbnails: .remote)

        toplevel = Widget(application: application)
        toplevel.setTitle(AppInfo.displayName)
        let remembered = settings.window
        toplevel.defaultSize = (max(360, remembered.width), max(360, remembered.height))
        if remembered.maximized { toplevel.maximize() }
        toplevel.setIconName(AppInfo.applicationID)

        // The content, from ui/window.ui; the list's model and factory are set by the pane.
        let ui = UIFile("window")
        headerBar = ui.widget("header-bar")
        // GTK 4.8 leaves the keyboard inside the main menu once one of its sub-menus has been
        // open (every key and shortcut lost until a click): it goes back to the photos.
        mainMenu = ui.widget("main-menu-button", as: MenuButton.self).popover
        pane = PhotoListPane(
            ui: ui, photos: photos, folderCounts: feed.folderCounts, processor: processor, keyTarget: toplevel)
        // The view and the grid's size as last chosen.
        pane.setCellSize(settings.gridSize)
        pane.show(settings.viewMode, immediately: true)
        status = WindowStatus(ui: ui, parent: toplevel, photos: photos, processor: processor)
        filter = WindowFilter(ui: ui, window: toplevel, photos: photos, processor: processor)
        search = WindowSearch(ui: ui, window: toplevel, filtering: filter.filtering)
        details = WindowDetails(ui: ui, window: toplevel, processor: processor, fetcher: fetcher)
        if settings.sortsByRating { filter.filtering.order(byRating: settings.photoOrder.descending) }
        toplevel.setContent(status.toasts)
        memoryMonitor = g_memory_monitor_dup_default().map { ObjectRef(takingOpaque: $0) }

        // The photo viewer opens over the list, in an overlay of its own.
        installViewer(in: ui.widget("viewer-area", as: Overlay.self))
        photoActions = PhotoActions(
            ui: ui, window: toplevel, feed: feed, processor: processor, pane: pane, viewer: viewer, status: status)
        compare = PhotoCompare(host: self, processor: processor, photos: photos)
        ui.widget("viewer-area", as: Overlay.self).addOverlay(compare.root)
        photoActions.compare = compare
        pane.onSelectionChanged = { [unowned self] in
            photoActions.refresh()
            details.selectionChanged()
        }
        details.selectedPhoto = { [unowned self] in
            pane.selection.first.flatMap { $0 < photos.count ? photos.id(at: $0) : nil }
        }
        details.onLayoutChanged = { [unowned self] in pane.fitColumnsSoon() }
        details.showToast = { [unowned self] message in showToast(message) }
        // The panel's photo is the one the photo actions act on (the viewer's, or the selected).
        details.panel.onShowInFiles = { [unowned self] in photoActions.showInFiles() }
        pane.widthBeside = { [unowned self] in details.widthTaken }
        pane.onLayoutChanged = { [unowned self] in viewLayoutChanged() }
        pane.onDrag = { [unowned self] id in photoActions.dragOffer(for: id) }
        pane.photoDetails = { [unowned self] id, entry in
            let details = feed.details(of: id, link: entry.link)
            Trace.shared.emit(.rowTooltip(row: photos.position(of: id) ?? -1, id: id, text: details ?? ""))
            return details
        }
        details.panel.altTexts = altTexts
        details.panel.writesIntoPhotos = { PhotoActions.writesMarksIntoPhotos }
        altTexts.onFailed = { [unowned self] message in showToast(message) }
        pane.takenDate = { [unowned self] id, entry, ask in feed.dateTaken(of: id, link: entry.link, ask: ask) }
        // The display's colours changed (the setting): the pictures shown are made again in them.
        DisplayColours.shared.observe { [weak self] in
            self?.pane.redrawPictures()
            self?.viewer.displayColoursChanged()
        }
        pane.placeText = { [unowned self] position in placeText(at: position) }
        feed.onEvent = { [unowned self] event in feedEvent(event) }
        status.isSearching = { [unowned self] in filter.filtering.isSearching }
        search.onEnded = { [unowned self] in
            if let position = pane.selection.first { pane.revealWhenLaidOut(position) }
            pane.grabFocus()
        }
        installSearchEverywhere()
        search.onActivate = { [unowned self] in
            guard photos.count > photos.firstPhoto else { return }
            pane.reveal(pane.selection.first ?? photos.firstPhoto)
            pane.grabFocus()
        }
        filter.onChanged = { [unowned self] in
            let filtering = filter.filtering
            status.marksBeingRead = filtering.isReading && (filtering.filter.isOn || filtering.byRating != nil)
        }
        photos.observe { [unowned self] change in
            // Rows came, went or moved: the status page and the count, and what is on screen.
            if change.reshaped, change.edit != .append, change.edit != .replaceAll { status.listChanged() }
            // Many rows came back (a filter or a search ended): the one selected in view again.
            if change.placeLost, let position = pane.selection.first { pane.revealWhenLaidOut(position) }
            pane.updateVisibleRows()
        }
        connectWindow()
        addActions()
        refreshViewActions(viewerOpen: false)
        acceptDrops(on: status.toasts)
    }

    // MARK: Loading sources

    /// Reads `sources` one after another (off the main thread) and shows their photos as
    /// one list, in the order given.
    func open(_ sources: [any PhotoSource]) {
        everywhere.listOpened(sources)
        self.sources = sources
        let (order, recursive) = (photoOrder, includeSubfolders)
        let sources = sources.map { $0.ordered(by: order).includingSubfolders(recursive) }
        // A search's results are not what the app opens with next time.
        if !everywhere.showingResults { settings.lastSources = sources.map(\.location.absoluteString) }
        feed.clear()
        pane.forgetPendingSelection()
        // (A search's results leave the keys in the search entry, to type on.)
        focusWhenFilled = !everywhere.showingResults
        status.loadingBegan(sources)
        mounting?.cancel()
        mounting = nil
        mountsAnswered = 0
        let remote = sources.indices.filter { sources[$0] is RemoteSource }
        guard !remote.isEmpty else { return read(sources, failures: []) }
        // Shares are mounted first (a password asked for where one is wanted), then read.
        let cancellable = Cancellable()
        mounting = cancellable
        var waiting = remote.count
        var refused: [Int: PhotoSourceError] = [:]
        for index in remote {
            let location = sources[index].location.absoluteString
            var asked = false
            let ask: @MainActor () -> Void = {
                asked = true
                Trace.shared.emit(.mountAsk(url: location))
            }
            ShareMounting.mount(location, parent: window, cancellable: cancellable, asked: ask) { [weak self] error in
                guard let self, !cancellable.isCancelled else { return }
                if let error {
                    let failure = PhotoSourceError.mountFailed(location: location, detail: error.message)
                    Trace.shared.emit(.sourceFailed(url: location, error: StatusText.sentence(failure, in: .english)))
                    refused[index] = failure
                    if asked { mountsAnswered += 1 }
                }
                waiting -= 1
                guard waiting == 0 else { return }
                mounting = nil
                let mounted = sources.indices.filter { refused[$0] == nil }.map { sources[$0] }
                read(mounted, failures: refused.keys.sorted().compactMap { refused[$0] })
            }
        }
    }

    /// Reads `sources` (shares mounted), after `failures` of others that could not be.
    private func read(_ sources: [any PhotoSource], failures: [PhotoSourceError]) {
        self.failures = failures
        guard !sources.isEmpty else { return finishedLoading() }
        feed.read(sources)
    }

    /// What the list's model tells of.
    private func feedEvent(_ event: PhotoListFeed.Event) {
        switch event {
        case .rowsArrived(let selected):
            everywhere.rowsArrived(count: photos.count)
            status.showStatus(nil)
            if focusWhenFilled {
                // As in any file list, the keys (arrows, Page Down, End) move through the rows
                // from the start, not only once a click has put the focus there: without this
                // the focus stays on the header bar's first button.
                focusWhenFilled = false
                pane.grabFocus()
            }
            // Rows appear after the next layout; the adjustment's `changed` then starts visible rows.
            if let selected { pane.selectWhenLaidOut(selected) }
        case .aheadMoved(let id, let position):
            pane.follow(id, to: position)
        case .sourceFailed(let location, let error):
            Trace.shared.emit(
                .sourceFailed(url: location.absoluteString, error: StatusText.sentence(error, in: .english)))
            failures.append(error)
        case .loaded:
            finishedLoading()
        case .watchLimitReached(let watched, let folders):
            showToast(
                String(
                    format: tr("Only %1$@ of %2$@ folders are watched for changes: the system's limit is reached"),
                    watched.formatted(), folders.formatted()))
        case .factsArrived(let id):
            pane.refreshTooltip(of: id)
            pane.refreshSpeech(of: id)
        case .dateArrived(let id):
            pane.refreshSpeech(of: id)
        case .needsReading:
            open(sources)
        case .marksChanged(let ids):
            // (A sidecar changed: its alt text is read again when next shown.)
            altTexts.forget(ids)
            for id in ids { processor.marksChanged(id) }
        }
    }

    /// Selects the sub-folder at `folder` once the list being loaded holds it.
    func selectWhenLoaded(folder: URL) {
        var link = folder.standardizedFileURL.absoluteString
        if !link.hasSuffix("/") { link += "/" }
        linkToSelect = link
    }

    private func finishedLoading() {
        if let link = linkToSelect, let id = photos.id(forLink: link), let position = photos.position(of: id) {
            pane.revealWhenLaidOut(position)
        }
        linkToSelect = nil
        filter.filtering.listLoaded()
        refreshViewActions(viewerOpen: viewer.isShown)
        status.isLoading = false
        if photos.count == 0 {
            status.showStatus(failures.isEmpty ? everywhere.showingResults ? .noResults : .empty : .failed(failures))
        }
        status.refreshSubtitle()
        everywhere.listLoaded(shown: photos.count)
        if !failures.isEmpty, photos.count > 0 || failures.count > mountsAnswered {
            let sources = self.sources
            status.showError(title: StatusText.alertTitle, message: StatusText.alertMessage(failures)) {
                [weak self] in self?.open(sources)
            }
        }
    }

    // MARK: Window state

    private func connectWindow() {
        connections.append(toplevel.connect("map") { [unowned self] in windowMapped() })
        connections.append(toplevel.connect("unmap") { [unowned self] in processor.windowHidden(true) })
        connections.append(
            toplevel.onCloseRequest { [unowned self] in
                close()
                onClosed?()
                return false
            })
        if let mainMenu {
            connections.append(
                mainMenu.connect("closed") { [unowned self] in
                    // The item chosen acts first; then the keys go back to the viewer, or the
                    // photos (GTK 4.8 may leave them in the closed menu, where none of the
                    // window's keys work).
                    MainLoop.onMainActor { [weak self] in
                        guard let self else { return }
                        if compare.isOpen {
                            compare.grabFocus()
                        } else if viewer.isShown {
                            viewer.grabFocus()
                        } else {
                            pane.grabFocus()
                        }
                    }
                })
        }
        if let monitor = memoryMonitor {
            connections.append(
                SignalConnection.connect(
                    monitor.pointer, "low-memory-warning",
                    int: { [unowned self] level in
                        Trace.shared.emit(.memoryLow(level: Int(level)))
                        processor.memoryWarning()
                        viewer.memoryWarning()
                    }))
        }
    }

    /// The box thumbnails are made for, in device pixels: a row's square (its height, 80 logical
    /// pixels) or a grid cell's whole photo (its side), times the display's scale.
    private var thumbnailFrame: ThumbnailFrame {
        let scale = Int(max(1, toplevel.scaleFactor))
        return pane.mode == .list
            ? .square(Int(PhotoRowWidget.height) * scale) : .whole(Int(pane.cellSize) * scale)
    }

    /// Another view, or the grid's squares another size: remembered, and thumbnails are decoded
    /// for it from now on.
    private func viewLayoutChanged() {
        settings.viewMode = pane.mode
        settings.gridSize = pane.cellSize
        processor.setThumbnailFrame(thumbnailFrame)
        refreshViewActions(viewerOpen: viewer?.isShown ?? false)
    }

    private func windowMapped() {
        // Thumbnails are decoded for the display's scale.
        processor.thumbnailFrame = thumbnailFrame
        processor.windowHidden(false)
        guard let surface = toplevel.surface else { return }
        surfaceConnections = [
            // Minimised windows keep their queues suspended until shown again.
            surface.onNotify("state") { [unowned self] in processor.windowHidden(surface.isMinimized) }
        ]
        // Moved to a display with another scale factor: thumbnails are decoded again for it.
        surfaceConnections.append(
            toplevel.onNotify("scale-factor") { [unowned self] in
                processor.setThumbnailFrame(thumbnailFrame)
            })
        // Every painted frame, for the benchmark's frame intervals; off unless asked for.
        if Trace.shared.isEnabled, AppConfiguration.current.testSwitches.traceFrames,
            let clock = toplevel.frameClock
        {
            surfaceConnections.append(clock.connect("after-paint") { Trace.shared.emit(.framePainted) })
        }
        if !shownTraced, firstFrame == nil, let clock = toplevel.frameClock {
            firstFrame = clock.connect("after-paint") { [unowned self] in
                shownTraced = true
                Trace.shared.emit(.windowShown)
                firstFrame = nil // GLib keeps the closure alive until this emission returns
            }
        }
    }

    /// A notice at the bottom of the window that hides by itself, with an optional button.
    func showToast(_ title: String, button: (label: String, action: String)? = nil) {
        status.showToast(title, button: button)
    }

    /// The "Oops!" alert: a modal message with the reason, and Retry when it can help.
    func showError(title: String, message: String, retry: (() -> Void)?) {
        status.showError(title: title, message: message, retry: retry)
    }

    /// Remembers the window's size and maximised state for the next window.
    private func rememberWindowState() {
        if toplevel.isMaximized {
            settings.window = (settings.window.width, settings.window.height, true)
        } else {
            settings.window = (toplevel.width, toplevel.height, false)
        }
    }

    /// Cancels all work and lets go of every signal handler (the window is closing).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        rememberWindowState()
        // The list emptied first, so tearing the window down binds no rows on the way out.
        feed.close()
        viewer.shutDown()
        compare.shutDown()
        processor.shutDown()
        pane.close()
        status.close()
        filter.close()
        details.close()
        altTexts.close()
        photoActions.close()
        connections.removeAll()
        surfaceConnections.removeAll()
        dialog = nil
        firstFrame = nil
    }
}
