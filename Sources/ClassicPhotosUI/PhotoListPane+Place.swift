import CGLib
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// Where the view is kept: the photo selected, the one a source named brought into view once
/// the list is laid out (and followed as its folder fills in around it), a folder returned
/// from, and the place kept through a reorder that keeps the photo in view.
extension PhotoListPane {
    // MARK: Selection and focus

    func select(_ position: Int) {
        selection.selectOnly(position)
    }

    /// Selects the photo at `position` and scrolls it into view.
    func reveal(_ position: Int) {
        selection.selectOnly(position)
        scrollTo(position)
    }

    /// Selects the photo at `position` now and scrolls it into view once moves pause (the
    /// viewer paging over the list), or `revealNow()`. Scrolling at every key of a held arrow
    /// would suspend the queues the viewer's photos load in (a scroll holds work back until it
    /// ends) and bind rows nobody sees.
    func revealSoon(_ position: Int) {
        selection.selectOnly(position)
        revealing = photos.id(at: position)
        revealPause.schedule(afterMilliseconds: 250)
    }

    /// Scrolls to the photo `revealSoon` was given, if it has not yet and it is still listed.
    func revealNow() {
        revealPause.cancel()
        guard let id = revealing else { return }
        revealing = nil
        if let position = photos.position(of: id) { scrollTo(position) }
    }

    /// Selects the photo at `position`, scrolls it into view once the list is laid out, and
    /// then has it shown (the picture the user opened).
    func selectWhenLaidOut(_ position: Int) {
        selection.selectOnly(position)
        pendingSelection = position
        Trace.shared.emit(.listSelect(row: position, id: photos.id(at: position), name: photos.name(at: position)))
        // Scrolled once the list has a size: before its first layout there is nowhere to go.
        MainLoop.onMainActor(priority: G_PRIORITY_DEFAULT_IDLE) { [weak self] in self?.scrollToPendingSelection() }
    }

    /// The photo the user opened (`selectWhenLaidOut`) moved to `position` as others came in
    /// around it: it is still the one brought into view and shown, unless another has been
    /// chosen since (a click, or paging in the viewer).
    func follow(_ id: PhotoID, to position: Int) {
        if pendingSelection != nil {
            selectWhenLaidOut(position)
        } else if selection.ids == [id] {
            Trace.shared.emit(.listSelect(row: position, id: id, name: photos.name(at: position)))
            scrollTo(position)
        }
    }

    func forgetPendingSelection() {
        pendingSelection = nil
        pendingReveal = nil
    }

    /// Selects the row at `position` and brings it into view once the list is laid out (a
    /// folder returned from).
    func revealWhenLaidOut(_ position: Int) {
        selection.selectOnly(position)
        pendingReveal = position
        revealPending()
    }

    func scrollToPendingSelection() {
        guard let position = pendingSelection, position < photos.count else { return }
        // GTK 4.8 forgets a scroll asked for before the list's first layout (the list then
        // showed its top, now and then, when the idle came first); the adjustment's "changed",
        // at that layout, calls this again.
        guard let adjustment = scrolled.verticalAdjustment, adjustment.pageSize > 0, adjustment.upper > 0 else {
            return
        }
        pendingSelection = nil
        scrollTo(position)
        onPendingSelectionShown?(position)
    }

    func grabFocus() {
        switch mode {
        case .list: list.grabFocus()
        case .grid: grid.grabFocus()
        }
    }

    func revealPending() {
        guard let position = pendingReveal, let adjustment = scrolled.verticalAdjustment, adjustment.pageSize > 0
        else { return }
        pendingReveal = nil
        guard position < photos.count else { return }
        scrollTo(position)
        keysPending = photos.id(at: position)
        giveKeysSoon(to: photos.id(at: position))
    }

    /// GTK 4.8's list keeps the row the keys act from (Enter, the arrows) apart from the
    /// selection, and moves it only as a row takes the focus: a photo the app selected and
    /// scrolled to (a search ended, a list brought back) left Enter opening the row the keys
    /// were on before. Once the photo's row is bound (after the frame lays it out), and if the
    /// keys are in the list, its row takes them.
    func giveKeysSoon(to id: PhotoID) {
        MainLoop.onMainActor(priority: G_PRIORITY_DEFAULT_IDLE) { [weak self] in
            guard let self, keysPending == id, let row = boundTiles[id]?.root.parent else { return }
            keysPending = nil
            let view = mode == .list ? list.hasFocus : grid.hasFocus
            guard view || tiles.values.contains(where: { $0.root.parent?.hasFocus == true }) else { return }
            if selection.first.map({ photos.id(at: $0) }) == id { row.grabFocus() }
        }
    }

    func scrollTo(_ position: Int) {
        switch mode {
        case .list: list.scrollTo(position)
        case .grid: grid.scrollTo(position)
        }
    }

    /// Where the view stands before a reorder that keeps the photo in view (see
    /// `PhotoListEdit.reorder`): the photo selected, if on screen, keeps its place on screen;
    /// else, at the top of the list, the view shows the top of the new order (a sort chosen,
    /// or the dates of a folder just opened came in) and stays put; else the photo at the top
    /// of the view keeps its place. The selection follows its photos by itself.
    func placeBeforeReorder() -> KeptPlace {
        let visible = visibleRows()
        let selected = selection.first
        guard let adjustment = scrolled.verticalAdjustment else { return .nowhere }
        if selected.map({ !visible.contains($0) }) ?? true, adjustment.value <= 0 { return .top }
        guard !visible.isEmpty else { return .nowhere }
        let anchorPosition = if let selected, visible.contains(selected) { selected } else { visible.lowerBound }
        let columns = columns
        let rowHeight = rowHeight(columns: columns) ?? 0
        return .photo(
            photos.id(at: anchorPosition), offset: Double(anchorPosition / columns) * rowHeight - adjustment.value,
            columns: columns, rowHeight: rowHeight)
    }

    /// After a reorder that kept the photo in view: the rows left in place show their new
    /// photos, or the photo kept in view goes back to its place on screen.
    func keepPlace(_ change: PhotoListChange) {
        let kept = keptPlace
        keptPlace = nil
        if change.rowsInPlace { return bindRowsInPlace() }
        guard case .photo(let id, let offset, let columns, let rowHeight) = kept,
            let adjustment = scrolled.verticalAdjustment
        else { return }
        // Once the view has laid out its rows in the new order: until then GTK 4.8 knows no
        // row's height (a whole list reordered is one of rows never measured), and ignores a
        // scroll there with a warning ("failed to scroll to given position").
        let place = { [unowned self] in
            guard let position = photos.position(of: id) else { return }
            adjustment.value = Double(position / columns) * rowHeight - offset
        }
        guard let clock = scrolled.frameClock else { return place() }
        placing = clock.connect("after-paint") { [unowned self] in
            placing = nil
            place()
        }
    }
}

/// Where a view stood before a reorder that keeps the photo in view.
enum KeptPlace: Equatable {
    /// At the top of the list, nothing selected on screen: it stays put.
    case top
    /// The photo at `offset` logical pixels below the top of the view stays there.
    case photo(PhotoID, offset: Double, columns: Int, rowHeight: Double)
    /// No place to keep (nothing laid out yet).
    case nowhere
}
