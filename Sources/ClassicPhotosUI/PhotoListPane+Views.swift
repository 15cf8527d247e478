import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The view shown and the grid's size: the list or the grid in the scrolled window, the
/// squares' side (Ctrl and the wheel, or a pinch-free two-finger scroll, step it), and as many
/// columns as the window's width holds.
extension PhotoListPane {
    /// The view shown.
    var view: Widget<AnyWidget> {
        switch mode {
        case .list: list.checked(as: AnyWidget.self)!
        case .grid: grid.checked(as: AnyWidget.self)!
        }
    }

    /// Shows the photos as `mode`, keeping the selected photo (or the first on screen) in view.
    ///
    /// GTK makes and binds the new view's rows (up to 200 in the list, 30 rows of cells in the
    /// grid), lays them out, and tears down the old view's: together, 50–70 ms of one turn of
    /// the main loop on any big folder. So the switch takes three turns, none long enough to be
    /// felt: now the view put in is given the list (out of the window, it makes no rows yet);
    /// at the next turn it takes the other's place, making and binding its rows; once the
    /// frame that lays them out is drawn, the view taken out lets go of its own. `immediately`:
    /// all at once (the window not yet shown).
    func show(_ mode: PhotoViewMode, immediately: Bool = false) {
        // Whatever an earlier switch left to do is done first.
        if let releasing {
            self.releasing = nil
            release(releasing.view)
        }
        if let switching {
            self.switching = nil
            guard switching.view != mode else {
                if immediately { putIn(mode, anchor: switching.anchor) } else { self.switching = switching }
                return
            }
            // Taken back before it was made: the view asked for first lets go of the list.
            release(switching.view)
        }
        guard mode != self.mode else { return }
        let visible = visibleRows()
        let anchor = selection.first.flatMap { visible.contains($0) ? $0 : nil } ?? visible.first
        switch mode {
        case .grid: grid.show(selection.model, factory: gridFactory)
        case .list: list.show(selection.model, factory: listFactory)
        }
        if immediately {
            let previous = self.mode
            putIn(mode, anchor: anchor)
            release(previous)
            return
        }
        movedWhileSwitching = false
        switching = (
            mode, anchor,
            MainLoopSource.onMainActor(.idle) { [weak self] in
                self?.switching = nil
                self?.putIn(mode, anchor: anchor)
                return .remove
            }
        )
    }

    /// The view `mode`, bound already, put in the window in place of the other, which lets go
    /// of its rows once a frame has been drawn.
    private func putIn(_ mode: PhotoViewMode, anchor: Int?) {
        let previous = self.mode
        self.mode = mode
        switch mode {
        case .grid: scrolled.setChild(grid)
        case .list: scrolled.setChild(list)
        }
        // A key that moved the old view meanwhile moved its selection: that photo is kept.
        pendingReveal = movedWhileSwitching ? selection.first ?? anchor : anchor
        movedWhileSwitching = false
        grabFocus() // the keys go on moving through the photos
        onLayoutChanged?()
        // Read once laid out (after the frame): the adjustment tells of a new layout only when
        // its size changes, and a few photos fit both views without scrolling (the grid was
        // then never traced, nor its columns told to the processor).
        MainLoop.onMainActor(priority: G_PRIORITY_DEFAULT_IDLE) { [weak self] in self?.updateVisibleRows() }
        releasing = (
            previous,
            MainLoopSource.onMainActor(.idle, priority: G_PRIORITY_DEFAULT_IDLE) { [weak self] in
                self?.releasing = nil
                self?.release(previous)
                return .remove
            }
        )
    }

    /// The view `mode`, out of the window, lets go of the list and its rows (each row's unbind
    /// forgets it only where no row of the view shown has taken its photo).
    private func release(_ mode: PhotoViewMode) {
        switch mode {
        case .grid: grid.show(nil, factory: gridFactory)
        case .list: list.show(nil, factory: listFactory)
        }
    }

    /// The rows or cells of the view shown (the one taken out may keep its own for a moment).
    var shownTiles: [any PhotoTile] {
        tiles.values.filter { ($0 is PhotoGridCell) == (mode == .grid) }
    }

    /// Makes the grid's squares `side` logical pixels (clamped to the sizes offered). Like a
    /// scroll, it suspends the queues until the cells on screen settle.
    func setCellSize(_ side: Int32) {
        let side = min(max(side, PhotoGridCell.sizes.first!), PhotoGridCell.sizes.last!)
        guard side != cellSize else { return }
        let visible = visibleRows()
        let anchor = selection.first.flatMap { visible.contains($0) ? $0 : nil } ?? visible.first
        cellSize = side
        guard mode == .grid else { return }
        scrollMonitor.noteMovement(.zoom)
        for case let cell as PhotoGridCell in tiles.values { cell.setSide(side) }
        fitColumns()
        updateVisibleRows() // the new columns, remembered until the zoom's scroll ends
        pendingReveal = anchor
        onLayoutChanged?()
    }

    /// Lets the grid have as many columns as the window's width holds, and no more. GTK 4.8's
    /// grid keeps `max-columns` × 30 cells made and bound whatever the width: at 64 columns that
    /// was 1,920 cells, about a second of the main loop when a big list arrived, and slower
    /// frames while scrolling.
    func fitColumns() {
        guard mode == .grid else { return }
        let width = Int(max(window.width, window.defaultSize.width) - widthBeside())
        guard width > 0 else { return }
        let cell = shownTiles.lazy.compactMap { $0.root.parent?.minimumWidth }.first { $0 > 0 }
        let limit = min(Self.maxColumns, max(1, width / Int(cell ?? PhotoGridCell.width(for: cellSize))))
        guard limit != columnLimit else { return }
        columnLimit = limit
        grid.setMaxColumns(limit)
    }

    /// `fitColumns` once the window has its new size.
    func fitColumnsSoon() {
        fitting.schedule(afterMilliseconds: 0)
    }

    /// One size larger (`steps` 1) or smaller (-1), among the sizes offered.
    func stepCellSize(_ steps: Int) {
        let sizes = PhotoGridCell.sizes
        let index = sizes.lastIndex { $0 <= cellSize } ?? 0
        setCellSize(sizes[min(max(0, index + steps), sizes.count - 1)])
    }

    /// Ctrl and the wheel (or two fingers on a touchpad) over the grid make its squares larger
    /// or smaller, a step for each notch.
    func zoomByWheel() -> [SignalConnection] {
        let scroll = Handle<ScrollController>.make(GTK_EVENT_CONTROLLER_SCROLL_VERTICAL)
        scroll.setPropagationPhase(GTK_PHASE_CAPTURE)
        let connection = scroll.onScroll { [unowned self] _, dy in
            if changedInFrame != nil, changedInFrame == scrolled.frameClock?.frameCounter {
                return true // see holdScrollUntilLaidOut
            }
            changedInFrame = nil
            guard mode == .grid, scroll.currentModifiers.rawValue & GDK_CONTROL_MASK.rawValue != 0 else {
                return false
            }
            zoomDelta += dy
            if abs(zoomDelta) >= 1 {
                stepCellSize(zoomDelta < 0 ? 1 : -1)
                zoomDelta = 0
            }
            return true // the grid does not scroll
        }
        scrolled.addController(scroll)
        return [connection, holdScrollUntilLaidOut()]
    }

    /// Between a change of the list and the next frame, which lays the change out, the wheel
    /// does not scroll. GTK 4.8 knows no height for the rows a change brought until then; a
    /// scroll there finds no row at the place it asks for and is dropped with a warning
    /// ("GtkGridView failed to scroll to given position"), as when a list of 12,000 came in
    /// under a turning wheel. A notch lost for a frame (16 ms) goes unnoticed.
    private func holdScrollUntilLaidOut() -> SignalConnection {
        SignalConnection.connect(
            selection.model.raw, "items-changed",
            uints: { [unowned self] _, _, _ in changedInFrame = scrolled.frameClock?.frameCounter })
    }
}
