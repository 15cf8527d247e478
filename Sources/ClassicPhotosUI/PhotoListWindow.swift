/// The main window: header bar with the activity spinner, and the photo list.
///
/// It turns GTK's signals into pipeline calls (rows bound, scrolling began / ended, visible rows,
/// window hidden, memory warnings) and the pipeline's results into updates of that row alone.
import CGLib
import CGtk
import Foundation
import GLibKit
import PhotoPipeline

@MainActor
final class PhotoListWindow {
    let window: UnsafeMutablePointer<GtkWindow>
    let store: ObjectRef<GObject>
    let listView: OpaquePointer
    private let scrolled: OpaquePointer
    private let spinner: UnsafeMutablePointer<GtkWidget>
    private let subtitle: UnsafeMutablePointer<GtkWidget>
    private let emptyState: UnsafeMutablePointer<GtkWidget>
    private let processor: PhotoProcessor
    private let listLoader: PhotoSourceLoader
    private var scrollMonitor: ScrollActivityMonitor!
    private var rowWidgets: [UnsafeMutableRawPointer: PhotoRowWidget] = [:]
    /// The widget bound to each row that has one.
    private var boundWidgets: [Int: PhotoRowWidget] = [:]
    private var connections: [SignalConnection] = []
    private var surfaceConnections: [SignalConnection] = []
    private let placeholder = AppResources.texture(named: "placeholder")
    private let failed = AppResources.texture(named: "failed")
    private let memoryMonitor: ObjectRef<GObject>?
    private var source: URL?
    private var loading: Cancellable?
    private var loadedEntries: [PhotoEntry] = []
    private var alert: Alert?
    private var shownTraced = false
    private var lastVisible: Range<Int> = 0..<0
    private var firstFrame: SignalConnection?

    init(application: UnsafeMutablePointer<GtkApplication>) {
        let fetcher = PhotoFetcher()
        processor = PhotoProcessor(fetcher: fetcher)
        listLoader = PhotoSourceLoader(fetcher: fetcher)

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

        // The list: a GListStore of one small item per photo, shown through a factory.
        store = ObjectRef(takingOpaque: g_list_store_new(gtk_string_object_get_type())!)
        let factory = gtk_signal_list_item_factory_new()!
        let selection = gtk_no_selection_new(g_object_ref(store.pointer).map { OpaquePointer($0) })!
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
        processor.onRecordChanged = { [unowned self] row in reloadRow(row) }
        scrollMonitor = ScrollActivityMonitor(scrolledWindow: scrolledWidget, keyTarget: widget(window))
        scrollMonitor.onBegan = { [unowned self] source in
            Trace.shared.emit("scroll.begin", ["via": .string(source.rawValue)])
            processor.scrollBegan()
            refreshSpinner()
        }
        scrollMonitor.onEnded = { [unowned self] in
            let visible = visibleRows()
            lastVisible = visible
            Trace.shared.emit("scroll.end", ["first": .int(visible.lowerBound), "last": .int(visible.upperBound - 1)])
            processor.scrollEnded(visible: visible)
            refreshSpinner()
        }
    }

    // MARK: Loading a list

    /// Loads the photo list at `url` (off the main thread) and shows it.
    func open(_ url: URL) {
        source = url
        loading?.cancel()
        gtk_label_set_text(gtkCast(emptyState), "Loading photos…")
        gtk_widget_set_visible(emptyState, 1)
        setSubtitle(url.lastPathComponent)
        Trace.shared.emit("source.start", ["url": .string(url.absoluteString)])
        loadedEntries = []
        loading = listLoader.load([PhotoSources.source(for: url)]) { [weak self] event in
            guard let self, source == url else { return }
            switch event {
            case .started: return
            case .batch(_, let batch): loadedEntries += batch.entries; return
            case .finished: show(loadedEntries, from: url)
            case .failed(_, _, let error):
                Trace.shared.emit("source.failed", ["url": .string(url.absoluteString), "error": .string(error.description)])
                gtk_label_set_text(gtkCast(emptyState), "No photos")
                showError(title: "Oops!", message: error.description) { [weak self] in self?.open(url) }
            }
            loading = nil
            loadedEntries = []
            refreshSpinner()
        }
        refreshSpinner()
    }

    private func show(_ entries: [PhotoEntry], from url: URL) {
        processor.setEntries(entries)
        let items = entries.map { gtk_string_object_new($0.name) }
        var pointers: [gpointer?] = items.map { UnsafeMutableRawPointer($0) }
        let old = g_list_model_get_n_items(store.opaque)
        pointers.withUnsafeMutableBufferPointer { g_list_store_splice(store.opaque, 0, old, $0.baseAddress, guint($0.count)) }
        items.forEach { g_object_unref(UnsafeMutableRawPointer($0)) }
        gtk_widget_set_visible(emptyState, entries.isEmpty ? 1 : 0)
        gtk_label_set_text(gtkCast(emptyState), "No photos")
        setSubtitle(entries.count == 1 ? "1 photo" : "\(entries.count) photos")
        Trace.shared.emit("source.loaded", ["url": .string(url.absoluteString), "rows": .int(entries.count)])
        // Rows appear after the next layout; the adjustment's `changed` then starts visible rows.
        updateVisibleRows()
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
            guard let item, let row = rowWidgets[item] else { return }
            let position = Int(gtk_list_item_get_position(OpaquePointer(item)))
            guard processor.records.indices.contains(position) else { return }
            boundWidgets[position] = row
            processor.rowBound(position)
            Trace.shared.emit("row.shown", ["row": .int(position), "name": .string(processor.records[position].name)])
            row.show(processor.records[position], working: processor.isBusy(position),
                     placeholder: placeholder, failed: failed)
        }))
        connections.append(SignalConnection.connect(factory, "unbind", pointer: { [unowned self] item in
            guard let item, let widget = rowWidgets[item] else { return }
            if let row = widget.row, boundWidgets[row] === widget { boundWidgets.removeValue(forKey: row) }
            widget.clear()
        }))
        connections.append(SignalConnection.connect(factory, "teardown", pointer: { [unowned self] item in
            guard let item else { return }
            rowWidgets.removeValue(forKey: item)
        }))
    }

    /// Re-shows one row, if it has a widget: only that row's widget is touched.
    ///
    /// Emitting `items-changed` for the row is not used: GTK 4.8's list view answers any
    /// items-changed by binding all of its row widgets again. Measured on a 60-row list (where
    /// every row has a widget): with the same item, 58 binds and a median 23 ms of main-loop
    /// time per change; replacing the item in the store, 250–400 ms.
    private func reloadRow(_ row: Int) {
        guard processor.records.indices.contains(row) else { return }
        if let widget = boundWidgets[row] {
            widget.show(processor.records[row], working: processor.isBusy(row), placeholder: placeholder, failed: failed)
        }
        refreshSpinner()
    }

    /// Rows that intersect the viewport, from the adjustment and the (uniform) row height.
    /// GtkListView binds rows beyond the viewport, so bound rows are not the visible ones.
    func visibleRows() -> Range<Int> {
        let count = Int(g_list_model_get_n_items(store.opaque))
        guard count > 0, let adjustment = gtk_scrolled_window_get_vadjustment(scrolled) else { return 0..<0 }
        let upper = gtk_adjustment_get_upper(adjustment), page = gtk_adjustment_get_page_size(adjustment)
        let value = gtk_adjustment_get_value(adjustment)
        guard upper > 0, page > 0 else { return 0..<0 }
        let rowHeight = upper / Double(count)
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
            Trace.shared.emit("view.visible", ["first": .int(visible.lowerBound), "last": .int(visible.upperBound - 1)])
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
                Trace.shared.emit("memory.low", ["level": .int(Int(level))])
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
                Trace.shared.emit("window.shown")
                firstFrame = nil // GLib keeps the closure alive until this emission returns
            }
        }
    }

    private func refreshSpinner() {
        let busy = loading != nil || processor.hasBusyRows
        // Only the spinning changes (an idle spinner draws nothing): showing or hiding it would
        // resize the header bar, and this runs during the list's layout too (from the
        // adjustment's `changed`), which left the header bar unallocated for that frame.
        gtk_spinner_set_spinning(gtkCast(spinner), busy ? 1 : 0)
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
        g_list_store_remove_all(store.opaque)
        processor.shutDown()
        scrollMonitor.invalidate()
        connections.removeAll()
        surfaceConnections.removeAll()
        firstFrame = nil
    }
}
