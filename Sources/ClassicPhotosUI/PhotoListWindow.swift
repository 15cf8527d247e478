import CGLib
import CGtk
import CPhotoListModel
import Foundation
import GLibKit
import PhotoPipeline

/// The main window: header bar with the activity spinner, and the photo list.
///
/// It turns GTK's signals into pipeline calls (rows bound, scrolling began / ended, visible rows,
/// window hidden, memory warnings), and each photo snapshot the pipeline pushes into the row
/// widget bound to that photo, if any. Rows are found by the photo's identity, never by
/// position.
@MainActor
final class PhotoListWindow {
    let window: UnsafeMutablePointer<GtkWindow>
    /// The list model: one photo identity per row.
    let store: ObjectRef<GObject>
    private let selection: OpaquePointer
    let listView: OpaquePointer
    private let scrolled: OpaquePointer
    private let spinner: UnsafeMutablePointer<GtkWidget>
    private let subtitle: UnsafeMutablePointer<GtkWidget>
    private let emptyState: UnsafeMutablePointer<GtkWidget>
    private let processor: PhotoProcessor
    private let sourceLoader: PhotoSourceLoader
    private var scrollMonitor: ScrollActivityMonitor!
    private var rowWidgets: [UnsafeMutableRawPointer: PhotoRowWidget] = [:]
    /// The widget bound to each photo that has one.
    private var boundWidgets: [PhotoID: PhotoRowWidget] = [:]
    private var connections: [SignalConnection] = []
    private var surfaceConnections: [SignalConnection] = []
    private let placeholder = AppResources.texture(named: "placeholder")
    private let failed = AppResources.texture(named: "failed")
    private let memoryMonitor: ObjectRef<GObject>?
    /// The sources shown, as given on the command line (kept for Retry).
    private var sources: [any PhotoSource] = []
    private var loading: SourceFeed?
    private var busyPhotos = 0
    /// A photo to select once the list has been laid out (a single picture was opened).
    private var pendingSelection: Int?
    private var alert: Alert?
    private var shownTraced = false
    private var lastVisible: Range<Int> = 0..<0
    private var firstFrame: SignalConnection?

    init(application: UnsafeMutablePointer<GtkApplication>) {
        let fetcher = PhotoFetcher()
        processor = PhotoProcessor(fetcher: fetcher)
        sourceLoader = PhotoSourceLoader(fetcher: fetcher)

        window = gtkCast(gtk_application_window_new(application)!)
        gtk_window_set_title(window, AppInfo.displayName)
        gtk_window_set_default_size(window, 480, 720)
        gtk_window_set_icon_name(window, AppInfo.applicationID)

        // Header bar: title and subtitle, and the network activity indicator.
        let header = gtk_header_bar_new()!
        let titles = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_widget_set_valign(titles, GTK_ALIGN_CENTER)
        let title = gtk_label_new(AppInfo.displayName)!
        gtk_widget_add_css_class(title, "title")
        subtitle = gtk_label_new(nil)
        gtk_widget_add_css_class(subtitle, "subtitle")
        gtk_widget_set_visible(subtitle, 0)
        gtk_box_append(gtkCast(titles), title)
        gtk_box_append(gtkCast(titles), subtitle)
        gtk_header_bar_set_title_widget(gtkCast(header), titles)
        spinner = gtk_spinner_new()
        gtk_header_bar_pack_end(gtkCast(header), spinner)
        gtk_window_set_titlebar(window, header)

        // The list: a model of photo identities (items are made only for the rows bound), one
        // photo selectable, shown through a factory.
        store = ObjectRef(takingOpaque: cp_photo_list_model_new())
        let factory = gtk_signal_list_item_factory_new()!
        selection = gtk_single_selection_new(OpaquePointer(g_object_ref(store.pointer)))
        gtk_single_selection_set_autoselect(selection, 0)
        gtk_single_selection_set_can_unselect(selection, 1)
        gtk_single_selection_set_selected(selection, GTK_INVALID_LIST_POSITION)
        listView = gtkCast(gtk_list_view_new(gtkCast(selection), gtkCast(factory))!)
        gtk_widget_add_css_class(widget(listView), "photo-list")
        let scrolledWidget = gtk_scrolled_window_new()!
        scrolled = OpaquePointer(scrolledWidget)
        gtk_scrolled_window_set_policy(scrolled, GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_child(scrolled, widget(listView))
        gtk_widget_set_vexpand(scrolledWidget, 1)

        emptyState = gtk_label_new("Loading photos…")
        gtk_widget_add_css_class(emptyState, "dim-label")
        gtk_widget_add_css_class(emptyState, "title-2")
        let overlay = gtk_overlay_new()!
        gtk_overlay_set_child(OpaquePointer(overlay), scrolledWidget)
        gtk_overlay_add_overlay(OpaquePointer(overlay), emptyState)
        gtk_widget_set_halign(emptyState, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(emptyState, GTK_ALIGN_CENTER)
        gtk_widget_set_can_target(emptyState, 0)
        gtk_window_set_child(window, overlay)

        memoryMonitor = g_memory_monitor_dup_default().map { ObjectRef(takingOpaque: $0) }

        connectFactory(UnsafeMutableRawPointer(factory)) // the list view owns the factory (transfer full)
        connectWindow()
        processor.onPhotoChanged = { [unowned self] snapshot in
            if let row = boundWidgets[snapshot.id] { show(snapshot, in: row) }
        }
        processor.onActivityChanged = { [unowned self] busy in
            busyPhotos = busy
            refreshSpinner()
        }
        scrollMonitor = ScrollActivityMonitor(scrolledWindow: scrolledWidget, keyTarget: widget(window))
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
        loading?.cancel()
        processor.replaceList()
        cp_photo_list_model_splice(store.opaque, 0, g_list_model_get_n_items(store.opaque), nil, 0)
        pendingSelection = nil
        gtk_label_set_text(gtkCast(emptyState), "Loading photos…")
        gtk_widget_set_visible(emptyState, 1)
        setSubtitle(Self.title(of: sources))
        var failures: [String] = []
        loading = SourceFeed(loader: sourceLoader, sources: sources) { [unowned self] event in
            switch event {
            case .started(_, let location):
                Trace.shared.emit(.sourceStart(url: location.absoluteString))
            case .batch(_, let batch):
                append(batch)
            case .finished(_, let location, let rows):
                Trace.shared.emit(.sourceLoaded(url: location.absoluteString, rows: rows))
            case .failed(_, let location, let error):
                Trace.shared.emit(.sourceFailed(url: location.absoluteString, error: error.description))
                failures.append(error.description)
            }
            if event.isLast(of: sources.count) { finishedLoading(failures: failures) }
        }
        refreshSpinner()
    }

    private func finishedLoading(failures: [String]) {
        loading = nil
        let count = processor.photos.count
        gtk_label_set_text(gtkCast(emptyState), "No photos")
        gtk_widget_set_visible(emptyState, count == 0 ? 1 : 0)
        setSubtitle(Self.title(of: sources) + " — " + (count == 1 ? "1 photo" : "\(count) photos"))
        refreshSpinner()
        if !failures.isEmpty {
            let sources = self.sources
            showError(title: "Oops!", message: failures.joined(separator: "\n\n")) { [weak self] in self?.open(sources) }
        }
    }

    private static func title(of sources: [any PhotoSource]) -> String {
        guard sources.count == 1, let source = sources.first else { return "\(sources.count) sources" }
        return source.location.lastPathComponent
    }

    /// Adds a batch of photos at the end of the list.
    private func append(_ batch: PhotoSourceBatch) {
        let added = processor.append(batch.entries)
        var ids = added.map { guint64(processor.photos.id(at: $0).rawValue) }
        ids.withUnsafeMutableBufferPointer {
            cp_photo_list_model_splice(store.opaque, guint(added.lowerBound), 0, $0.baseAddress, guint($0.count))
        }
        gtk_widget_set_visible(emptyState, 0)
        if let selected = batch.selected { select(added.lowerBound + selected) }
        // Rows appear after the next layout; the adjustment's `changed` then starts visible rows.
        updateVisibleRows()
    }

    /// Selects the photo at `position` and scrolls it into view (the picture the user opened).
    private func select(_ position: Int) {
        gtk_single_selection_set_selected(selection, guint(position))
        pendingSelection = position
        Trace.shared.emit(.listSelect(row: position, id: processor.photos.id(at: position),
                                      name: processor.photos.name(at: position)))
        // Scrolled once the list has a size: before its first layout there is nowhere to go.
        MainLoop.perform(priority: G_PRIORITY_DEFAULT_IDLE) { [weak self] in
            MainActor.assumeIsolated { self?.scrollToPendingSelection() }
        }
    }

    private func scrollToPendingSelection() {
        guard let position = pendingSelection, position < processor.photos.count else { return }
        pendingSelection = nil
        gtk_widget_activate_action_variant(widget(listView), "list.scroll-to-item", g_variant_new_uint32(guint32(position)))
    }

    // MARK: Rows

    /// How many row widgets the list has made (for diagnostics).
    var rowWidgetCount: Int { rowWidgets.count }

    private func connectFactory(_ factory: UnsafeMutableRawPointer) {
        connections.append(SignalConnection.connect(factory, "setup", pointer: { [unowned self] item in
            let row = PhotoRowWidget()
            rowWidgets[item!] = row
            gtk_list_item_set_child(OpaquePointer(item), row.root)
        }))
        connections.append(SignalConnection.connect(factory, "bind", pointer: { [unowned self] item in
            guard let item, let row = rowWidgets[item],
                  let photo = gtk_list_item_get_item(OpaquePointer(item)) else { return }
            let id = PhotoID(rawValue: UInt64(cp_photo_item_get_id(OpaquePointer(photo))))
            let position = Int(gtk_list_item_get_position(OpaquePointer(item)))
            guard processor.photos.position(of: id) == position else { return }
            boundWidgets[id] = row
            processor.rowBound(position)
            let snapshot = processor.snapshot(at: position)
            Trace.shared.emit(.rowShown(row: position, id: id, name: snapshot.name))
            show(snapshot, in: row)
        }))
        connections.append(SignalConnection.connect(factory, "unbind", pointer: { [unowned self] item in
            guard let item, let widget = rowWidgets[item] else { return }
            if let id = widget.photo, boundWidgets[id] === widget { boundWidgets.removeValue(forKey: id) }
            widget.clear()
        }))
        connections.append(SignalConnection.connect(factory, "teardown", pointer: { [unowned self] item in
            guard let item else { return }
            rowWidgets.removeValue(forKey: item)
        }))
    }

    /// Puts `snapshot` in `row`; a failed photo's status line (its short reason) is traced.
    private func show(_ snapshot: PhotoSnapshot, in row: PhotoRowWidget) {
        let status = row.show(snapshot, placeholder: placeholder, failed: failed)
        if snapshot.state == .failed, let position = processor.photos.position(of: snapshot.id) {
            Trace.shared.emit(.rowStatus(row: position, id: snapshot.id, text: status))
        }
    }

    /// Rows that intersect the viewport, from the adjustment and the (uniform) row height.
    /// GtkListView binds rows beyond the viewport, so bound rows are not the visible ones.
    func visibleRows() -> Range<Int> {
        let count = Int(g_list_model_get_n_items(store.opaque))
        guard count > 0, let adjustment = gtk_scrolled_window_get_vadjustment(scrolled) else { return 0..<0 }
        let upper = gtk_adjustment_get_upper(adjustment), page = gtk_adjustment_get_page_size(adjustment)
        let value = gtk_adjustment_get_value(adjustment)
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

    private func updateVisibleRows() {
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
        if let adjustment = gtk_scrolled_window_get_vadjustment(scrolled) {
            // Upper or page size changed: first layout, a resize, a new list.
            connections.append(SignalConnection.connect(adjustment, "changed") { [unowned self] in updateVisibleRows() })
        }
        connections.append(SignalConnection.connect(window, "map") { [unowned self] in windowMapped() })
        connections.append(SignalConnection.connect(window, "unmap") { [unowned self] in processor.windowHidden(true) })
        connections.append(SignalConnection.connectReturning(window, "close-request", { [unowned self] in
            close()
            return false
        }))
        if let monitor = memoryMonitor {
            connections.append(SignalConnection.connect(monitor.pointer, "low-memory-warning", int: { [unowned self] level in
                Trace.shared.emit(.memoryLow(level: Int(level)))
                processor.memoryWarning()
            }))
        }
    }

    private func windowMapped() {
        // Thumbnails are decoded for the display's scale: 80 logical pixels, 160 on HiDPI.
        processor.maxPixelSize = Int(PhotoRowWidget.height) * Int(max(1, gtk_widget_get_scale_factor(widget(window))))
        processor.windowHidden(false)
        guard let surface = gtk_native_get_surface(OpaquePointer(window)) else { return }
        surfaceConnections = [
            // Minimised windows keep their queues suspended until shown again.
            SignalConnection.connect(UnsafeMutableRawPointer(surface), "notify::state", pointer: { [unowned self] _ in
                let minimized = (gdk_toplevel_get_state(surface).rawValue & GDK_TOPLEVEL_STATE_MINIMIZED.rawValue) != 0
                processor.windowHidden(minimized)
            }),
        ]
        if !shownTraced, firstFrame == nil, let clock = gtk_widget_get_frame_clock(widget(window)) {
            firstFrame = SignalConnection.connect(UnsafeMutableRawPointer(clock), "after-paint") { [unowned self] in
                shownTraced = true
                Trace.shared.emit(.windowShown)
                firstFrame = nil // GLib keeps the closure alive until this emission returns
            }
        }
    }

    private func refreshSpinner() {
        let busy = loading != nil || busyPhotos > 0
        // Only the spinning changes (an idle spinner draws nothing): showing or hiding it would
        // resize the header bar, and this runs during the list's layout too (from the
        // adjustment's `changed`), which left the header bar unallocated for that frame.
        gtk_spinner_set_spinning(gtkCast(spinner), busy ? 1 : 0)
        // A stopped spinner can stay on screen as a still frame; transparent, it cannot.
        gtk_widget_set_opacity(spinner, busy ? 1 : 0)
        gtk_widget_set_tooltip_text(spinner, busy ? "Loading" : nil)
    }

    private func setSubtitle(_ text: String) {
        gtk_label_set_text(gtkCast(subtitle), text)
        gtk_widget_set_visible(subtitle, text.isEmpty ? 0 : 1)
    }

    // MARK: Errors

    /// The "Oops!" alert: a modal message with the reason, and Retry when it can help.
    func showError(title: String, message: String, retry: (() -> Void)?) {
        alert = Alert(parent: window, title: title, message: message, retryable: retry != nil) { [weak self] retried in
            self?.alert = nil
            if retried { retry?() }
        }
    }

    /// Cancels all work and lets go of every signal handler (the window is closing).
    func close() {
        loading?.cancel()
        loading = nil
        // Empty the list first, so tearing the window down binds no rows on the way out.
        cp_photo_list_model_splice(store.opaque, 0, g_list_model_get_n_items(store.opaque), nil, 0)
        processor.shutDown()
        scrollMonitor.invalidate()
        connections.removeAll()
        surfaceConnections.removeAll()
        firstFrame = nil
    }
}
