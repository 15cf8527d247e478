import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The list view of the window: the rows bound to the list's model, the selection, scrolling
/// (the scroll-activity monitor, visible rows) and what the processor is told of them.
///
/// It reads the list, never changes it. Each photo snapshot the processor pushes goes into the
/// row widget bound to that photo, if any: rows are found by the photo's identity, never by
/// position.
@MainActor
final class PhotoListPane {
    let list: Widget<ListView>
    let scrolled: Widget<ScrolledWindow>
    let selection: Handle<SingleSelection>
    private let photos: any PhotoListReading
    private let processor: PhotoProcessor
    private var scrollMonitor: ScrollActivityMonitor!
    private var rowWidgets: [UnsafeMutableRawPointer: PhotoRowWidget] = [:]
    /// The widget bound to each photo that has one.
    private var boundWidgets: [PhotoID: PhotoRowWidget] = [:]
    private var connections: [SignalConnection] = []
    private var lastVisible: Range<Int> = 0..<0
    /// A photo to select and show in the viewer once the list has been laid out (a single
    /// picture was opened).
    private var pendingSelection: Int?
    /// A row was activated (a click, or Enter on the focused row).
    var onActivate: ((Int) -> Void)?
    /// The selection moved.
    var onSelectionChanged: (() -> Void)?
    /// The picture opened is shown in the viewer once its row is in view.
    var onPendingSelectionShown: ((Int) -> Void)?

    init(ui: UIFile, photos: PhotoList, processor: PhotoProcessor, keyTarget: Widget<ApplicationWindow>) {
        self.photos = photos
        self.processor = processor
        // A model of photo identities (items are made only for the rows bound), one photo
        // selectable, shown through a factory.
        let factory = Handle<SignalListItemFactory>.make()
        selection = .make(over: photos.model)
        list = ui.widget("list")
        list.setModel(selection, factory: factory) // the list view owns both from here
        list.setSingleClickActivate(true)
        scrolled = ui.widget("scrolled")
        connectFactory(factory)
        processor.observePhotos { [unowned self] snapshot in
            if let row = boundWidgets[snapshot.id] { show(snapshot, in: row) }
        }
        connections.append(
            list.connect("activate", int: { [unowned self] position in onActivate?(Int(UInt32(bitPattern: position))) })
        )
        connections.append(selection.onNotify("selected") { [unowned self] in onSelectionChanged?() })
        if let adjustment = scrolled.verticalAdjustment {
            // Upper or page size changed: first layout, a resize, a new list.
            connections.append(
                adjustment.connect("changed") { [unowned self] in
                    updateVisibleRows()
                    if pendingSelection != nil { scrollToPendingSelection() }
                })
        }
        scrollMonitor = ScrollActivityMonitor(scrolledWindow: scrolled, keyTarget: keyTarget)
        scrollMonitor.onBegan = { [unowned self] source in
            Trace.shared.emit(.scrollBegin(via: source))
            self.processor.scrollBegan()
        }
        scrollMonitor.onEnded = { [unowned self] in
            let visible = visibleRows()
            lastVisible = visible
            Trace.shared.emit(.scrollEnd(first: visible.lowerBound, last: visible.upperBound - 1))
            self.processor.scrollEnded(visible: visible)
        }
    }

    /// How many row widgets the list has made (for diagnostics).
    var rowWidgetCount: Int { rowWidgets.count }

    // MARK: Rows

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
                let id = PhotoList.id(ofItem: photo)
                let position = item.position
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
        if snapshot.state == .failed, let position = photos.position(of: snapshot.id) {
            Trace.shared.emit(.rowStatus(row: position, id: snapshot.id, text: status))
        }
    }

    // MARK: What is on screen

    /// Rows that intersect the viewport, from the adjustment and the (uniform) row height.
    /// GtkListView binds rows beyond the viewport, so bound rows are not the visible ones.
    func visibleRows() -> Range<Int> {
        let count = photos.count
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
    }

    /// The row under `y` (in the list's coordinates), if any.
    func position(atY y: Double) -> Int? {
        let count = photos.count
        guard count > 0, let adjustment = scrolled.verticalAdjustment else { return nil }
        let position = Int((adjustment.value + y) / max(1, adjustment.upper / Double(count)))
        return (0..<count).contains(position) ? position : nil
    }

    /// Runs `change` (which reorders the list) keeping the photo at the top of the view, or
    /// the one selected if on screen, in its place on screen, and the selection on its photo.
    func keepingPlace(_ change: () -> Void) {
        let visible = visibleRows()
        let selected = selection.selected
        let anchorPosition = if let selected, visible.contains(selected) { selected } else { visible.lowerBound }
        let adjustment = scrolled.verticalAdjustment
        let rowHeight = adjustment.map { $0.upper / Double(max(1, photos.count)) } ?? 0
        let anchor: (id: PhotoID, offset: Double)? =
            if visible.isEmpty || adjustment == nil { nil } else {
                (photos.id(at: anchorPosition), Double(anchorPosition) * rowHeight - adjustment!.value)
            }
        let selectedID = selected.flatMap { $0 < photos.count ? photos.id(at: $0) : nil }
        change()
        if let selectedID, let position = photos.position(of: selectedID) { selection.selected = position }
        if let anchor, let adjustment, let position = photos.position(of: anchor.id) {
            adjustment.value = Double(position) * rowHeight - anchor.offset
        }
    }

    // MARK: Selection and focus

    func select(_ position: Int) {
        selection.selected = position
    }

    /// Selects the photo at `position` and scrolls it into view.
    func reveal(_ position: Int) {
        selection.selected = position
        list.scrollTo(position)
    }

    /// Selects the photo at `position`, scrolls it into view once the list is laid out, and
    /// then has it shown (the picture the user opened).
    func selectWhenLaidOut(_ position: Int) {
        selection.selected = position
        pendingSelection = position
        Trace.shared.emit(.listSelect(row: position, id: photos.id(at: position), name: photos.name(at: position)))
        // Scrolled once the list has a size: before its first layout there is nowhere to go.
        MainLoop.perform(priority: G_PRIORITY_DEFAULT_IDLE) { [weak self] in
            MainActor.assumeIsolated { self?.scrollToPendingSelection() }
        }
    }

    func forgetPendingSelection() { pendingSelection = nil }

    private func scrollToPendingSelection() {
        guard let position = pendingSelection, position < photos.count else { return }
        // GTK 4.8 forgets a scroll asked for before the list's first layout (the list then
        // showed its top, now and then, when the idle came first); the adjustment's "changed",
        // at that layout, calls this again.
        guard let adjustment = scrolled.verticalAdjustment, adjustment.pageSize > 0, adjustment.upper > 0 else {
            return
        }
        pendingSelection = nil
        list.scrollTo(position)
        onPendingSelectionShown?(position)
    }

    func grabFocus() { list.grabFocus() }

    /// Lets go of every signal handler (the window is closing).
    func close() {
        scrollMonitor.invalidate()
        connections.removeAll()
        onActivate = nil
        onSelectionChanged = nil
        onPendingSelectionShown = nil
    }
}
