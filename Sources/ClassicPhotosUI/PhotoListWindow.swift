import CGLib
import CGtk
import CPhotoListModel
import Foundation
import GLibKit
import PhotoPipeline

/// The main window: a libadwaita header bar (title, source and photo count, activity, Open…
/// and the main menu), the photo list, a status page when there is no list to show, and toasts.
///
/// It turns GTK's signals into pipeline calls (rows bound, scrolling began / ended, visible rows,
/// window hidden, memory warnings), and each photo snapshot the pipeline pushes into the row
/// widget bound to that photo, if any. Rows are found by the photo's identity, never by
/// position.
@MainActor
final class PhotoListWindow {
    let toplevel: Widget<ApplicationWindow>
    /// The list model: one photo identity per row.
    let store: ObjectRef<GObject>
    let selection: Handle<SingleSelection>
    let list: Widget<ListView>
    let scrolled: Widget<ScrolledWindow>
    private let spinner: Widget<Spinner>
    let headerBar: Widget<HeaderBar>
    /// The photo viewer, over the list (see PhotoListWindow+Viewer).
    var viewer: PhotoViewer!
    private let windowTitle: Widget<WindowTitle>
    /// The list, or the status page instead of it (loading, empty, failed).
    private let stack: Widget<Stack>
    private let statusPage: Widget<StatusPage>
    private let statusButtons: Widget<Box>
    private let toasts: Widget<ToastOverlay>
    let processor: PhotoProcessor
    private let sourceLoader: PhotoSourceLoader
    private var scrollMonitor: ScrollActivityMonitor!
    private var rowWidgets: [UnsafeMutableRawPointer: PhotoRowWidget] = [:]
    /// The widget bound to each photo that has one.
    private var boundWidgets: [PhotoID: PhotoRowWidget] = [:]
    var connections: [SignalConnection] = []
    private var surfaceConnections: [SignalConnection] = []
    /// Photos that failed since the last toast said so.
    private var newFailures: Set<PhotoID> = []
    private var failureToast: MainLoopSource?
    private let memoryMonitor: ObjectRef<GObject>?
    /// The sources shown, as given on the command line (kept for Retry).
    private(set) var sources: [any PhotoSource] = []
    private var loading: SourceFeed?
    private var busyPhotos = 0
    /// A photo to select once the list has been laid out (a single picture was opened).
    private var pendingSelection: Int?
    /// Whether the list is to take the keyboard focus when its first rows arrive (once for each
    /// list opened).
    private var focusWhenFilled = false
    private var alert: Alert?
    private var shownTraced = false
    private var lastVisible: Range<Int> = 0..<0
    private var firstFrame: SignalConnection?

    /// Called once the window has closed (its work cancelled).
    var onClosed: (() -> Void)?
    private var isClosed = false
    private var spinnerShowsBusy: Bool?
    /// The failed count the subtitle shows, and its pending refresh.
    private var failedInSubtitle = 0
    private var subtitleRefresh: MainLoopSource?
    let settings: AppSettings
    /// The folder shown, when the list is one folder: watched, and sorted (see +Folder).
    var shownFolder: ShownFolder?
    /// The order folders are shown in (the main menu's choice).
    var photoOrder: PhotoOrder
    /// Counts the lists shown, so that work for an earlier one is recognised.
    private(set) var listGeneration = 0
    /// Whether every source of the list has been read.
    var loadingFinished: Bool { loading == nil }
    /// A file chooser or location dialog while one is open: what holds it, and its handlers.
    var dialog: (owner: AnyObject, connections: [SignalConnection])?
    /// What the photo actions (trash, rotate, …) keep between a request and its answer.
    let photoActions = PhotoActionState()

    /// The window, for the viewer (its host's window), About and the diagnostics.
    var window: Widget<ApplicationWindow> { toplevel }
    /// The list view, for the diagnostics' check that it is freed with the window.
    var listView: OpaquePointer { list.opaque }

    init(application: Handle<Application>, settings: AppSettings, http: HTTPClient) {
        self.settings = settings
        photoOrder = settings.photoOrder
        // Limits come from the settings; the decoding memory is one budget for the whole app.
        let limits = settings.limits
        DecodeMemoryBudget.shared.capacity = limits.decodeMemoryBytes
        let fetcher = PhotoFetcher(limits: limits, http: http)
        processor = PhotoProcessor(fetcher: fetcher, thumbnails: .standard, remoteThumbnails: .remote)
        sourceLoader = PhotoSourceLoader(fetcher: fetcher)

        toplevel = Widget(application: application)
        toplevel.setTitle(AppInfo.displayName)
        let remembered = settings.window
        toplevel.defaultSize = (max(360, remembered.width), max(360, remembered.height))
        if remembered.maximized { toplevel.maximize() }
        toplevel.setIconName(AppInfo.applicationID)

        // The content, from ui/window.ui; the list's model and factory are set here.
        let ui = UIFile("window")
        headerBar = ui.widget("header-bar")
        windowTitle = ui.widget("title")
        windowTitle.setTitle(AppInfo.displayName)
        spinner = ui.widget("spinner")
        // A model of photo identities (items are made only for the rows bound), one photo
        // selectable, shown through a factory.
        store = ObjectRef(takingOpaque: cp_photo_list_model_new())
        let factory = Handle<SignalListItemFactory>.make()
        selection = .make(over: store)
        list = ui.widget("list")
        list.setModel(selection, factory: factory) // the list view owns both from here
        scrolled = ui.widget("scrolled")
        // Instead of the list while there is none: loading, empty or failed, with what to do.
        statusPage = ui.widget("status")
        statusButtons = ui.widget("status-buttons")
        stack = ui.widget("stack")
        // The photo viewer opens over the list, in an overlay of its own.
        let viewerArea = ui.widget("viewer-area", as: Overlay.self)
        toasts = ui.widget("toasts")
        toplevel.setContent(toasts)

        memoryMonitor = g_memory_monitor_dup_default().map { ObjectRef(takingOpaque: $0) }

        connectFactory(factory)
        installViewer(in: viewerArea)
        connectWindow()
        addActions()
        addPhotoActions(from: ui)
        acceptDrops(on: toasts)
        processor.onPhotoChanged = { [unowned self] snapshot in
            if let row = boundWidgets[snapshot.id] { show(snapshot, in: row) }
            viewer.photoUpdated(snapshot)
            // A photo failed, or one may have stopped failing (Retry): the count in the title.
            if snapshot.state == .failed || failedInSubtitle > 0 { scheduleSubtitle() }
            if snapshot.state == .failed, !snapshot.isBusy { photoFailed(snapshot.id) }
        }
        processor.onActivityChanged = { [unowned self] busy in
            busyPhotos = busy
            refreshSpinner()
        }
        scrollMonitor = ScrollActivityMonitor(scrolledWindow: scrolled, keyTarget: toplevel)
        scrollMonitor.onBegan = { [unowned self] source in
            Trace.shared.emit(.scrollBegin(via: source))
            processor.scrollBegan()
            refreshSpinner()
        }
        scrollMonitor.onEnded = { [unowned self] in
            let visible = visibleRows()
            lastVisible = visible
            Trace.shared.emit(.scrollEnd(first: visible.lowerBound, last: visible.upperBound - 1))
            processor.scrollEnded(visible: visible)
            refreshSpinner()
        }
    }

    // MARK: Loading sources

    /// Reads `sources` one after another (off the main thread) and shows their photos as
    /// one list, in the order given.
    func open(_ sources: [any PhotoSource]) {
        self.sources = sources
        listGeneration += 1
        forgetFolder()
        let order = photoOrder
        let sources = sources.map { $0.ordered(by: order) }
        settings.lastSources = sources.map(\.location.absoluteString)
        loading?.cancel()
        viewer.close(animated: false)
        viewer.cancelAll()
        processor.replaceList()
        cp_photo_list_model_splice(store.opaque, 0, g_list_model_get_n_items(store.opaque), nil, 0)
        pendingSelection = nil
        focusWhenFilled = true
        failedInSubtitle = 0
        showStatus(.loading)
        windowTitle.setTitle(Self.title(of: sources))
        setSubtitle(tr("Loading…"))
        var failures: [PhotoSourceError] = []
        loading = SourceFeed(loader: sourceLoader, sources: sources) { [unowned self] event in
            switch event {
            case .started(_, let location):
                Trace.shared.emit(.sourceStart(url: location.absoluteString))
            case .batch(_, let batch):
                folderBatchArrived(batch)
                if !batch.entries.isEmpty { append(batch) }
            case .finished(_, let location, let rows):
                Trace.shared.emit(.sourceLoaded(url: location.absoluteString, rows: rows))
            case .failed(_, let location, let error):
                Trace.shared.emit(
                    .sourceFailed(url: location.absoluteString, error: StatusText.sentence(error, in: .english)))
                failures.append(error)
            }
            if event.isLast(of: sources.count) { finishedLoading(failures: failures) }
        }
        refreshSpinner()
    }

    private func finishedLoading(failures: [PhotoSourceError]) {
        loading = nil
        folderLoaded()
        let count = processor.photos.count
        if count == 0 { showStatus(failures.isEmpty ? .empty : .failed(failures)) }
        refreshSubtitle()
        refreshSpinner()
        if !failures.isEmpty {
            let sources = self.sources
            showError(title: StatusText.alertTitle, message: StatusText.alertMessage(failures)) { [weak self] in
                self?.open(sources)
            }
        }
    }

    private static func title(of sources: [any PhotoSource]) -> String {
        guard sources.count == 1, let source = sources.first else {
            return String(format: ntr("%@ source", "%@ sources", sources.count), Localization.number(sources.count))
        }
        return DisplayText.line(source.location.lastPathComponent)
    }

    /// Adds a batch of photos at the end of the list.
    private func append(_ batch: PhotoSourceBatch) {
        let added = processor.append(batch.entries)
        var ids = added.map { guint64(processor.photos.id(at: $0).rawValue) }
        ids.withUnsafeMutableBufferPointer {
            cp_photo_list_model_splice(store.opaque, guint(added.lowerBound), 0, $0.baseAddress, guint($0.count))
        }
        showStatus(nil)
        if focusWhenFilled {
            // As in any file list, the keys (arrows, Page Down, End) move through the rows from
            // the start, not only once a click has put the focus there: without this the focus
            // stays on the header bar's first button.
            focusWhenFilled = false
            list.grabFocus()
        }
        if let selected = batch.selected { select(added.lowerBound + selected) }
        // Rows appear after the next layout; the adjustment's `changed` then starts visible rows.
        updateVisibleRows()
    }

    /// Selects the photo at `position` and scrolls it into view (the picture the user opened).
    private func select(_ position: Int) {
        selection.selected = position
        pendingSelection = position
        Trace.shared.emit(
            .listSelect(
                row: position, id: processor.photos.id(at: position),
                name: processor.photos.name(at: position)))
        // Scrolled once the list has a size: before its first layout there is nowhere to go.
        MainLoop.perform(priority: G_PRIORITY_DEFAULT_IDLE) { [weak self] in
            MainActor.assumeIsolated { self?.scrollToPendingSelection() }
        }
    }

    private func scrollToPendingSelection() {
        guard let position = pendingSelection, position < processor.photos.count else { return }
        // GTK 4.8 forgets a scroll asked for before the list's first layout (the list then
        // showed its top, now and then, when the idle came first); the adjustment's "changed",
        // at that layout, calls this again.
        guard let adjustment = scrolled.verticalAdjustment, adjustment.pageSize > 0, adjustment.upper > 0 else {
            return
        }
        pendingSelection = nil
        list.scrollTo(position)
        // The picture opened shows in the viewer, its folder in the list behind.
        viewer.open(at: position)
    }

    // MARK: Rows

    /// How many row widgets the list has made (for diagnostics).
    var rowWidgetCount: Int { rowWidgets.count }

    private func connectFactory(_ factory: Handle<SignalListItemFactory>) {
        connections.append(
            factory.connectItem("setup") { [unowned self] item in
                let row = PhotoRowWidget()
                row.onRetry = { [unowned self] id in processor.retry(id) }
                rowWidgets[item.raw] = row
                item.setChild(row.root)
            })
        connections.append(
            factory.connectItem("bind") { [unowned self] item in
                guard let row = rowWidgets[item.raw], let photo = item.item else { return }
                let id = PhotoID(rawValue: UInt64(cp_photo_item_get_id(photo)))
                let position = item.position
                guard processor.photos.position(of: id) == position else { return }
                boundWidgets[id] = row
                processor.rowBound(position)
                let snapshot = processor.snapshot(at: position)
                Trace.shared.emit(.rowShown(row: position, id: id, name: snapshot.name))
                show(snapshot, in: row)
            })
        connections.append(
            factory.connectItem("unbind") { [unowned self] item in
                guard let widget = rowWidgets[item.raw] else { return }
                // The row keeps showing what it showed: GTK 4.8 unbinds and binds again every row
                // between the old and the new selected one when the selection moves (End from the
                // top of a 10,000-row list rebinds all 200 rows it has just bound, to the same
                // photos), and a row bound again to its photo then changes nothing. Bound to
                // another photo, it changes what differs; torn down, it lets go of its texture.
                if let id = widget.photo, boundWidgets[id] === widget { boundWidgets.removeValue(forKey: id) }
            })
        connections.append(
            factory.connectItem("teardown") { [unowned self] item in
                rowWidgets.removeValue(forKey: item.raw)
            })
    }

    /// Puts `snapshot` in `row`; a failed photo's status line (its short reason) is traced.
    private func show(_ snapshot: PhotoSnapshot, in row: PhotoRowWidget) {
        let status = row.show(snapshot)
        if snapshot.state == .failed, let position = processor.photos.position(of: snapshot.id) {
            Trace.shared.emit(.rowStatus(row: position, id: snapshot.id, text: status))
        }
    }

    /// Rows that intersect the viewport, from the adjustment and the (uniform) row height.
    /// GtkListView binds rows beyond the viewport, so bound rows are not the visible ones.
    func visibleRows() -> Range<Int> {
        let count = Int(g_list_model_get_n_items(store.opaque))
        guard count > 0, let adjustment = scrolled.verticalAdjustment else { return 0..<0 }
        let (upper, page, value) = (adjustment.upper, adjustment.pageSize, adjustment.value)
        guard upper > 0, page > 0 else { return 0..<0 }
        // Rows are at least their requested height. While rows are being added the adjustment
        // still has the height of the list before, and upper / count alone would make every row
        // tiny and the visible range tens of thousands of rows long.
        let rowHeight = max(upper / Double(count), Double(PhotoRowWidget.height))
        let first = max(0, Int((value / rowHeight).rounded(.down)))
        // A row counts when at least one pixel of it is inside the viewport.
        let last = min(count, Int(((value + page) / rowHeight - 0.5 / rowHeight).rounded(.up)))
        return first..<max(first, last)
    }

    func updateVisibleRows() {
        guard !scrollMonitor.isScrolling else { return }
        let visible = visibleRows()
        if visible != lastVisible {
            lastVisible = visible
            Trace.shared.emit(.viewVisible(first: visible.lowerBound, last: visible.upperBound - 1))
        }
        processor.visibleRowsChanged(visible)
        refreshSpinner()
    }

    // MARK: Window state

    private func connectWindow() {
        if let adjustment = scrolled.verticalAdjustment {
            // Upper or page size changed: first layout, a resize, a new list.
            connections.append(
                adjustment.connect("changed") { [unowned self] in
                    updateVisibleRows()
                    if pendingSelection != nil { scrollToPendingSelection() }
                })
        }
        connections.append(toplevel.connect("map") { [unowned self] in windowMapped() })
        connections.append(toplevel.connect("unmap") { [unowned self] in processor.windowHidden(true) })
        connections.append(
            toplevel.onCloseRequest { [unowned self] in
                close()
                onClosed?()
                return false
            })
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

    private func windowMapped() {
        // Thumbnails are decoded for the display's scale: 80 logical pixels, 160 on HiDPI.
        processor.maxPixelSize = Int(PhotoRowWidget.height) * Int(max(1, toplevel.scaleFactor))
        processor.windowHidden(false)
        guard let surface = toplevel.surface else { return }
        surfaceConnections = [
            // Minimised windows keep their queues suspended until shown again.
            surface.onNotify("state") { [unowned self] in processor.windowHidden(surface.isMinimized) }
        ]
        // Moved to a display with another scale factor: thumbnails are decoded again for it.
        surfaceConnections.append(
            toplevel.onNotify("scale-factor") { [unowned self] in
                processor.setThumbnailSize(Int(PhotoRowWidget.height) * Int(max(1, toplevel.scaleFactor)))
            })
        // Every painted frame, for the benchmark's frame intervals; off unless asked for.
        if Trace.shared.isEnabled, ProcessInfo.processInfo.environment["CLASSIC_PHOTOS_TRACE_FRAMES"] == "1",
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

    private func refreshSpinner() {
        let busy = loading != nil || busyPhotos > 0
        // Called on every change of activity; GTK work (a tooltip set queries the display) only
        // when busy-ness itself changed.
        guard busy != spinnerShowsBusy else { return }
        spinnerShowsBusy = busy
        // Only the spinning changes (an idle spinner draws nothing): showing or hiding it would
        // resize the header bar, and this runs during the list's layout too (from the
        // adjustment's `changed`), which left the header bar unallocated for that frame.
        spinner.isSpinning = busy
        // A stopped spinner can stay on screen as a still frame; transparent, it cannot.
        spinner.opacity = busy ? 1 : 0
        spinner.setTooltip(busy ? tr("Loading") : nil)
    }

    private func setSubtitle(_ text: String) {
        windowTitle.setSubtitle(text)
        Trace.shared.emit(.windowSubtitle(text: text))
    }

    /// The subtitle once the list is in (the title names the source): how many photos, and how
    /// many of those shown so far could not be loaded ("16 photos, 3 failed").
    func refreshSubtitle() {
        subtitleRefresh = nil
        guard loading == nil else { return }
        let count = processor.photos.count
        failedInSubtitle = processor.failedCount
        let photos = String(format: ntr("%@ photo", "%@ photos", count), Localization.number(count))
        let failed = failedInSubtitle
        setSubtitle(
            failed > 0
                ? String(
                    format: ntr("%1$@, %2$@ failed", "%1$@, %2$@ failed", failed), photos, Localization.number(failed))
                : photos)
    }

    /// Refreshes the subtitle a moment later: photos that fail one after another update it once.
    private func scheduleSubtitle() {
        guard subtitleRefresh == nil else { return }
        subtitleRefresh = MainLoopSource(.timeout(milliseconds: 250)) { [weak self] in
            MainActor.assumeIsolated { self?.refreshSubtitle() }
            return .remove
        }
    }

    /// What the window shows instead of the list (its words are `StatusText`'s).
    enum Status: Equatable {
        /// The sources are being read, and no photo has arrived yet.
        case loading
        /// Every source was read, and none holds a picture.
        case empty
        /// No photo could be shown: why each source that failed did.
        case failed([PhotoSourceError])
    }

    /// Shows the status page for `status`, or the list (nil).
    func showStatus(_ status: Status?) {
        guard let status else {
            stack.showPage("list")
            return
        }
        let (icon, title, description) = StatusText.page(status)
        statusPage.setIconName(icon)
        statusPage.setTitle(title)
        statusPage.setDescription(markup: description.map(Self.markupEscaped))
        statusButtons.isVisible = status != .loading
        stack.showPage("status")
    }

    /// `text` safe to show where markup is read (status page descriptions are).
    private static func markupEscaped(_ text: String) -> String {
        let escaped = g_markup_escape_text(text, -1)!
        defer { g_free(escaped) }
        return String(cString: escaped)
    }

    /// Counts a failed photo; a moment after the last of a run of failures, one toast says how
    /// many, with Retry (rows failing one after another make one notice, not a pile of them).
    private func photoFailed(_ id: PhotoID) {
        guard newFailures.insert(id).inserted else { return }
        failureToast = MainLoopSource(.timeout(milliseconds: 1_000)) { [weak self] in
            MainActor.assumeIsolated { self?.reportFailures() }
            return .remove
        }
    }

    private func reportFailures() {
        guard !newFailures.isEmpty else { return }
        let count = newFailures.count
        newFailures = []
        failureToast = nil
        showToast(
            String(
                format: ntr("%@ photo could not be loaded", "%@ photos could not be loaded", count),
                Localization.number(count)),
            button: (tr("_Retry"), "win.retry-failed"))
    }

    /// A notice at the bottom of the window that hides by itself (a libadwaita toast), with an
    /// optional button.
    func showToast(_ title: String, button: (label: String, action: String)? = nil) {
        Trace.shared.emit(.noticeShown(text: title))
        toasts.addToast(markup: Self.markupEscaped(title), button: button)
    }

    // MARK: Errors

    /// The "Oops!" alert: a modal message with the reason, and Retry when it can help.
    func showError(title: String, message: String, retry: (() -> Void)?) {
        alert = Alert(parent: toplevel, title: title, message: message, retryable: retry != nil) {
            [weak self] retried in
            self?.alert = nil
            if retried { retry?() }
        }
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
        loading?.cancel()
        loading = nil
        forgetFolder()
        // Empty the list first, so tearing the window down binds no rows on the way out.
        cp_photo_list_model_splice(store.opaque, 0, g_list_model_get_n_items(store.opaque), nil, 0)
        viewer.shutDown()
        processor.shutDown()
        scrollMonitor.invalidate()
        connections.removeAll()
        surfaceConnections.removeAll()
        dialog = nil
        photoActions.open = nil
        photoActions.connections.removeAll()
        removeRowMenu()
        failureToast = nil
        subtitleRefresh = nil
        firstFrame = nil
    }
}
