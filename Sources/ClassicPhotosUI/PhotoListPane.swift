import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// How the photos are shown: a list of rows, or a grid of squares.
enum PhotoViewMode: String, CaseIterable {
    case list, grid
}

/// The view of the window: the list or the grid, both bound to the list's model through one
/// selection, in one scrolled window (the one shown is its child; the other is unbound and
/// waits), scrolling (the scroll-activity monitor, visible rows and cells) and what the
/// processor is told of them.
///
/// It reads the list, never changes it. Each photo snapshot the processor pushes goes into the
/// row or cell bound to that photo, if any: they are found by the photo's identity, never by
/// position.
@MainActor
final class PhotoListPane {
    let list: Widget<GridView>
    let grid: Widget<GridView>
    let scrolled: Widget<ScrolledWindow>
    /// The photos selected, in either view.
    let selection: PhotoSelection
    /// What keeps the selection, the factories and the view taken out of the window alive.
    private let owned: [ObjectRef<GObject>]
    let listFactory: Handle<SignalListItemFactory>
    let gridFactory: Handle<SignalListItemFactory>
    let photos: any PhotoListReading
    let processor: PhotoProcessor
    var scrollMonitor: ScrollActivityMonitor!
    /// The rows and cells made, by their list item.
    private(set) var tiles: [UnsafeMutableRawPointer: any PhotoTile] = [:]
    /// The row or cell bound to each photo that has one.
    var boundTiles: [PhotoID: any PhotoTile] = [:]
    private var connections: [SignalConnection] = []
    /// The window, whose width says how many columns the grid may have.
    let window: Widget<ApplicationWindow>
    /// The grid's most columns, as last set (see `fitColumns`).
    var columnLimit = 0
    /// The window's width that is not the grid's (the details panel beside it).
    var widthBeside: () -> Int32 = { 0 }
    /// `fitColumns` at the next turn, after the last of a run of changes to the window's size.
    lazy var fitting = Debounce.onMainActor { [weak self] in self?.fitColumns() }
    /// A switch of view under way (see `show`): the view asked for, bound but not yet in the
    /// window, and the photo to keep in view; or the view taken out, not yet let go of.
    var switching: (view: PhotoViewMode, anchor: Int?, source: MainLoopSource)?
    var releasing: (view: PhotoViewMode, source: MainLoopSource)?
    /// The view's layout read once GTK has finished it (see `settleSoon`).
    private var settling: MainLoopSource?
    /// A reordered list's place, kept once GTK has laid the new order out (see `keepPlace`).
    var placing: SignalConnection?
    /// Where the view stood before the reorder being applied (see `placeBeforeReorder`).
    var keptPlace: KeptPlace?
    /// The list, observed for the reorders that keep the photo in view.
    private let shownList: PhotoList
    private var listObservation: Int?
    private var lastVisible: Range<Int> = 0..<0
    /// The view shown, and the side of the grid's squares (logical pixels).
    var mode: PhotoViewMode = .list
    var cellSize: Int32 = PhotoGridCell.defaultSize
    /// Cells to a row as last told to the processor and traced.
    private var shownLayout: (mode: PhotoViewMode, columns: Int, size: Int32)?
    /// A photo to select and show in the viewer once the list has been laid out (a single
    /// picture was opened).
    var pendingSelection: Int?
    /// A photo to bring into view once the view just shown has been laid out (forgotten when
    /// the person moves the view first).
    var pendingReveal: Int?
    /// The photo whose row is to take the keys once it is bound (see `giveKeys(to:)`).
    var keysPending: PhotoID?
    /// The person moved through the photos while a switch of view was under way: the view put
    /// in keeps the photo they moved to in view.
    var movedWhileSwitching = false
    /// How many times in a row the grid was brought back in step at a scroll's end (`realignment`).
    var realignments = 0
    /// The photo the viewer moved to, brought into view behind it once paging pauses.
    var revealing: PhotoID?
    lazy var revealPause = Debounce.onMainActor { [weak self] in self?.revealNow() }
    /// Touchpad pinch-free zooming: Ctrl and the wheel's movement not yet turned into a step.
    var zoomDelta = 0.0
    /// The frame the list last changed in, until a frame has laid the change out (see
    /// `holdScrollUntilLaidOut`).
    var changedInFrame: Int?
    /// A row was activated (a click, or Enter on the focused row).
    var onActivate: ((Int) -> Void)?
    /// The selection moved.
    var onSelectionChanged: (() -> Void)?
    /// The picture opened is shown in the viewer once its row is in view.
    var onPendingSelectionShown: ((Int) -> Void)?
    /// The view or the grid's size changed (thumbnails are then decoded for the new size).
    var onLayoutChanged: (() -> Void)?
    /// Where the view is, for the label floating over it while it scrolls: the words for the
    /// photo at a position (nil: nothing to say, as for a list that is one folder by name).
    var placeText: ((Int) -> String?)?
    private let placeLabel: PlaceLabel
    /// What each sub-folder shown holds, counted as its row is first shown.
    let folderCounts: FolderCounts
    /// A drag begins on a photo: the files it carries out of the window (nil: none).
    var onDrag: ((PhotoID) -> OfferedFiles?)?
    /// What is known of a photo without opening it, in words, for its tooltip (see `PhotoTile`).
    var photoDetails: ((PhotoID, PhotoEntry) -> String?)?
    /// The date a photo was taken as EXIF writes it, where known; with `ask`, it is looked for
    /// when not (`refreshSpeech(of:)` is then told when it has come).
    var takenDate: ((PhotoID, PhotoEntry, _ ask: Bool) -> String?)?
    /// Every bound row's or cell's speech said again after the list's rows moved or its count changed.
    lazy var respeaking = Debounce.onMainActor { [weak self] in self?.refreshSpeech() }
    /// Each row's or cell's drag handler, by its list item.
    private var drags: [UnsafeMutableRawPointer: SignalConnection] = [:]

    init(
        ui: UIFile, photos: PhotoList, folderCounts: FolderCounts, processor: PhotoProcessor,
        keyTarget: Widget<ApplicationWindow>
    ) {
        self.photos = photos
        self.folderCounts = folderCounts
        shownList = photos
        self.processor = processor
        window = keyTarget
        // A model of photo identities (items are made only for the rows bound), one photo
        // selectable, shown through a factory for each view.
        selection = PhotoSelection(photos: photos)
        listFactory = .make()
        gridFactory = .make()
        list = ui.widget("list")
        grid = Handle<GridView>.make()
        grid.addCSSClass("photo-grid")
        grid.setAccessibleName(tr("Photo Grid"))
        grid.setMaxColumns(8) // until the window has a width (see `fitColumns`)
        owned = [
            ObjectRef(takingOpaque: listFactory.opaque), ObjectRef(takingOpaque: gridFactory.opaque), list.retained(),
            grid.retained(),
        ]
        list.show(selection.model, factory: listFactory)
        // A click selects, as in the file manager (Ctrl and Shift add to it, a band drawn over
        // empty space selects what it covers); a double click or Enter opens the photo.
        for rubberband in [list.setRubberband, grid.setRubberband] { rubberband(true) }
        scrolled = ui.widget("scrolled")
        placeLabel = PlaceLabel(label: ui.widget("place"))
        connectFactory(listFactory) { PhotoRowWidget() }
        connectFactory(gridFactory) { [unowned self] in PhotoGridCell(side: cellSize) }
        processor.observePhotos { [unowned self] snapshot in
            if let tile = boundTiles[snapshot.id] { show(snapshot, in: tile) }
        }
        // A reorder that keeps the photo in view: where the view stands is read before, and
        // kept after.
        photos.viewsStayPut = { [unowned self] in keptPlace == .top }
        listObservation = photos.observe(
            willApply: { [unowned self] edit in
                if case .reorder(_, keepingInView: true) = edit { keptPlace = placeBeforeReorder() }
            },
            didApply: { [unowned self] change in
                if change.keptInView { keepPlace(change) }
                // What each row says of its place ("photo 3 of 16").
                respeaking.schedule(afterMilliseconds: 200)
            })
        folderCounts.onCounted = { [unowned self] link in
            guard let id = photos.id(forLink: link), let tile = boundTiles[id], let position = photos.position(of: id)
            else { return }
            show(processor.snapshot(at: position), in: tile)
        }
        for view in [list.checked(as: AnyWidget.self)!, grid.checked(as: AnyWidget.self)!] {
            connections.append(
                view.connect(
                    "activate", int: { [unowned self] position in onActivate?(Int(UInt32(bitPattern: position))) }))
        }
        selection.onChanged = { [unowned self] in onSelectionChanged?() }
        if let adjustment = scrolled.verticalAdjustment {
            // Upper or page size changed: first layout, a resize, a new list, another view.
            connections.append(adjustment.connect("changed") { [unowned self] in settleSoon() })
            // Scrolled: where the view is now floats over it.
            connections.append(adjustment.connect("value-changed") { [unowned self] in showPlace() })
        }
        connections.append(contentsOf: zoomByWheel())
        // A wider or narrower window holds more or fewer columns.
        for property in ["default-width", "maximized", "fullscreened"] {
            connections.append(window.onNotify(property) { [unowned self] in fitColumnsSoon() })
        }
        scrollMonitor = ScrollActivityMonitor(scrolledWindow: scrolled, keyTarget: keyTarget)
        scrollMonitor.onBegan = { [unowned self] source in
            Trace.shared.emit(.scrollBegin(via: source))
            self.processor.scrollBegan()
        }
        scrollMonitor.onUserMove = { [unowned self] in
            // End pressed just after Ctrl+2 goes to the end, not back to where the list was.
            pendingReveal = nil
            if switching != nil { movedWhileSwitching = true }
        }
        scrollMonitor.onEnded = { [unowned self] in
            let visible = visibleRows()
            if realignments < 3, let position = realignment(for: visible) {
                // The scroll ends once GTK has placed the grid's cells again.
                realignments += 1
                scrollTo(position)
                return scrollMonitor.goOn()
            }
            realignments = 0
            placeLabel.scrollEnded()
            if traceLayout() { self.processor.columnsChanged(columns, visible: visible) }
            lastVisible = visible
            Trace.shared.emit(.scrollEnd(first: visible.lowerBound, last: visible.upperBound - 1))
            self.processor.scrollEnded(visible: visible)
            askDates(in: visible)
        }
    }

    /// How many row widgets the list has made (for diagnostics).
    var rowWidgetCount: Int { tiles.count }

    // MARK: Rows

    private func connectFactory(_ factory: Handle<SignalListItemFactory>, make: @escaping () -> any PhotoTile) {
        connections.append(
            factory.connectItem("setup") { [unowned self] item in
                let tile = make()
                tile.onRetry = { [unowned self] id in processor.retry(id) }
                tile.folderSummary = { [unowned self] entry in folderCounts.summary(of: entry) }
                tile.photoDetails = { [unowned self] id, entry in photoDetails?(id, entry) }
                tiles[item.raw] = tile
                item.setChild(tile.root)
                // Photos dragged out go to the file manager, a mail, a browser.
                let drag = Handle<DragSource>.make()
                drags[item.raw] = drag.onPrepare { [unowned self, unowned tile] _, _ in
                    tile.photo.flatMap { onDrag?($0) }
                }
                tile.root.addController(drag)
            })
        connections.append(
            factory.connectItem("bind") { [unowned self] item in
                guard let tile = tiles[item.raw], let photo = item.item else { return }
                bind(tile, to: PhotoList.id(ofItem: photo), at: item.position)
            })
        connections.append(
            factory.connectItem("unbind") { [unowned self] item in
                guard let tile = tiles[item.raw] else { return }
                // The row keeps showing what it showed: GTK 4.8 unbinds and binds again every row
                // between the old and the new selected one when the selection moves (End from the
                // top of a 10,000-row list rebinds all 200 rows it has just bound, to the same
                // photos), and a row bound again to its photo then changes nothing. Bound to
                // another photo, it changes what differs; torn down, it lets go of its texture.
                if let id = tile.photo, boundTiles[id] === tile { boundTiles.removeValue(forKey: id) }
            })
        connections.append(
            factory.connectItem("teardown") { [unowned self] item in
                tiles.removeValue(forKey: item.raw)
                drags.removeValue(forKey: item.raw)
            })
    }

    /// Shows the photo `id` at `position` in `tile`, as GTK's bind asks.
    private func bind(_ tile: any PhotoTile, to id: PhotoID, at position: Int) {
        boundTiles[id] = tile
        if id == keysPending { giveKeysSoon(to: id) }
        processor.rowBound(position)
        let snapshot = processor.snapshot(at: position)
        let kind: RowKind =
            snapshot.entry.isFolder
            ? .folder : snapshot.entry.isVideo ? .video : snapshot.image?.isMotion == true ? .motion : .photo
        Trace.shared.emit(.rowShown(row: position, id: id, name: snapshot.name, kind: kind))
        show(snapshot, in: tile)
    }

    /// The tooltip of the row or cell showing `id`, if any, asked for again (what it tells
    /// has come).
    func refreshTooltip(of id: PhotoID) {
        boundTiles[id]?.root.refreshTooltip()
    }

    /// After a reorder with rows in place (`PhotoListEdit.reorder`): GTK kept each row with
    /// its item, which now stands for the photo at the row's position; each row whose photo
    /// changed is shown again, as a bind would.
    func bindRowsInPlace() {
        var bound: [PhotoID: any PhotoTile] = [:]
        for (raw, tile) in tiles where (tile is PhotoGridCell) == (mode == .grid) {
            let item = Handle<ListItem>(checking: raw)
            guard let photo = item.item else { continue }
            let id = PhotoList.id(ofItem: photo)
            bound[id] = tile
            if tile.photo != id { bind(tile, to: id, at: item.position) }
        }
        boundTiles = bound
    }

    /// Puts `snapshot` in `tile`; a failed photo's status line (its short reason, and whether
    /// it offers Retry) is traced.
    private func show(_ snapshot: PhotoSnapshot, in tile: any PhotoTile) {
        let marksBefore = tile.photo == snapshot.id ? tile.shownMarks : .none
        let status = tile.show(snapshot)
        speak(snapshot, in: tile)
        if snapshot.state == .failed, let position = photos.position(of: snapshot.id) {
            Trace.shared.emit(
                .rowStatus(
                    row: position, id: snapshot.id, text: status, retry: snapshot.failure?.retryHelps ?? true))
        }
        let marks = tile.shownMarks
        if marks != marksBefore, let position = photos.position(of: snapshot.id) {
            Trace.shared.emit(
                .rowMarks(
                    row: position, id: snapshot.id, rating: marks.rating, label: marks.label ?? "", tags: marks.tags))
        }
    }

    /// Shows every bound row or cell again (the display's colours changed: their textures
    /// are made again).
    func redrawPictures() {
        for (id, tile) in boundTiles {
            guard let position = photos.position(of: id) else { continue }
            show(processor.snapshot(at: position), in: tile)
        }
    }

    // MARK: What is on screen

    /// Traces the view's layout when it changed since last time; says whether it did (the
    /// processor is then told the new columns).
    private func traceLayout() -> Bool {
        let columns = columns
        let layout = (mode, columns, mode == .list ? PhotoRowWidget.height : cellSize)
        guard shownLayout.map({ $0 != layout }) ?? true else { return false }
        shownLayout = layout
        Trace.shared.emit(.viewMode(mode: mode.rawValue, columns: columns, size: Int(layout.2)))
        return true
    }

    func updateVisibleRows() {
        fitColumns()
        let layoutChanged = traceLayout()
        guard !scrollMonitor.isScrolling else {
            // Remembered; the end of the scroll decides.
            if layoutChanged { processor.columnsChanged(columns, visible: lastVisible) }
            return
        }
        let visible = visibleRows()
        if visible != lastVisible {
            lastVisible = visible
            Trace.shared.emit(.viewVisible(first: visible.lowerBound, last: visible.upperBound - 1))
        }
        if layoutChanged {
            processor.columnsChanged(columns, visible: visible)
        } else {
            processor.visibleRowsChanged(visible)
        }
        askDates(in: visible)
    }

    /// Reads the view's new layout, and scrolls where a scroll waits for one, once GTK has
    /// finished laying the view out.
    ///
    /// The adjustment's "changed" is emitted from inside the view's own size allocation (GTK
    /// 4.8 configures the adjustment between measuring the rows and placing them). Nothing
    /// that moves the view's anchor may run there: a new `max-columns` or a `scroll_to` makes
    /// and drops rows at once, and GTK 4.8's grid then places its cells against spans whose
    /// sizes no longer add up and aborts (`gtk_grid_view_size_allocate: assertion failed:
    /// (row_height >= 0)`, list → grid on 500 photos and more). So this waits for the turn
    /// after the frame, before the next one.
    private func settleSoon() {
        guard settling == nil else { return }
        settling = MainLoopSource.onMainActor(.idle, priority: G_PRIORITY_HIGH_IDLE) { [weak self] in
            guard let self else { return .remove }
            settling = nil
            updateVisibleRows()
            if pendingSelection != nil { scrollToPendingSelection() }
            if pendingReveal != nil { revealPending() }
            return .remove
        }
    }

    /// While the view scrolls, the words for the photo at its top float over it, when the view
    /// is long enough (three screens and more) for them to help.
    private func showPlace() {
        guard scrollMonitor.isScrolling, let placeText else { return }
        let visible = visibleRows()
        guard !visible.isEmpty, photos.count >= 3 * visible.count else { return placeLabel.show(nil) }
        placeLabel.show(placeText(visible.lowerBound))
    }

    /// Lets go of every signal handler (the window is closing).
    func close() {
        revealPause.cancel()
        scrollMonitor.invalidate()
        connections.removeAll()
        onActivate = nil
        onSelectionChanged = nil
        onPendingSelectionShown = nil
        onLayoutChanged = nil
        onDrag = nil
        drags.removeAll()
        fitting.cancel()
        switching = nil
        releasing = nil
        settling = nil
        placing = nil
        if let listObservation { shownList.stopObserving(listObservation) }
        shownList.viewsStayPut = nil
        selection.close()
    }
}
