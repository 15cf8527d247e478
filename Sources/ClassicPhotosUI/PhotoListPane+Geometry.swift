import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// Where the photos are on screen: the columns of the view, the height of its rows, the
/// positions in view, and the photo under a point. Rows (and a grid's rows of cells) are all
/// as tall, so all of it follows from the scrolled window's adjustment.
extension PhotoListPane {
    /// Cells in a row: 1 in the list; in the grid, as many as GTK fits: the view's width over
    /// a cell's least width, measured as GTK measures it (with the grid's own padding around
    /// each cell), or worked out before any cell is made.
    var columns: Int {
        guard mode == .grid else { return 1 }
        let width = Int(grid.width)
        guard width > 0 else { return 1 }
        let cell = shownTiles.lazy.compactMap { $0.root.parent?.minimumWidth }.first { $0 > 0 }
        return min(Self.maxColumns, max(1, width / Int(cell ?? PhotoGridCell.width(for: cellSize))))
    }

    /// The most cells a row of the grid has (GTK's own default, 7, is too few for small
    /// squares on a wide window).
    static let maxColumns = 64

    /// The height of one row of the view, from the adjustment; at least a row's requested height
    /// in the list. While rows are being added the adjustment still has the height of the list
    /// before, and its upper bound over the new count would make every row tiny.
    func rowHeight(columns: Int) -> Double? {
        let count = photos.count
        guard count > 0, let adjustment = scrolled.verticalAdjustment, adjustment.upper > 0 else { return nil }
        let rows = (count + columns - 1) / columns
        let floor = mode == .list ? Double(PhotoRowWidget.height) : Double(cellSize)
        return max(adjustment.upper / Double(rows), floor)
    }

    /// Positions that intersect the viewport: whole rows of cells, from the adjustment and the
    /// (uniform) row height. GTK binds rows beyond the viewport, so bound ones are not the
    /// visible ones.
    func visibleRows() -> Range<Int> {
        let columns = columns
        let count = photos.count
        guard let adjustment = scrolled.verticalAdjustment, adjustment.pageSize > 0,
            let rowHeight = rowHeight(columns: columns)
        else { return 0..<0 }
        let (page, value) = (adjustment.pageSize, adjustment.value)
        let first = max(0, Int((value / rowHeight).rounded(.down)))
        // A row counts when at least one pixel of it is inside the viewport.
        let last = Int(((value + page) / rowHeight - 0.5 / rowHeight).rounded(.up))
        let lower = min(count, first * columns)
        return lower..<max(lower, min(count, last * columns))
    }

    /// Where to bring the grid back in step, when GTK 4.8 shows none of its cells where its
    /// adjustment says the view is (`visible`); nil when it does.
    ///
    /// GTK 4.8's grid keeps the rows it has no cells for as spans of estimated height. Just
    /// after a switch from the list (its columns and row heights newly known, cells made at
    /// the top and around the photo kept in view), End can leave it with its adjustment at
    /// rows it has made no cells for, and nothing lays it out otherwise: the window showed an
    /// empty grid until the next scroll, and the photos it should have shown were never loaded.
    /// Asking it to scroll to a photo makes it place its cells around that photo again: the
    /// one with the keyboard focus (where End went), else the first the adjustment says.
    func realignment(for visible: Range<Int>) -> Int? {
        guard mode == .grid, !visible.isEmpty, grid.isMapped, let page = scrolled.verticalAdjustment?.pageSize
        else { return nil }
        var focused: Int?
        for (item, tile) in tiles where tile is PhotoGridCell {
            let position = Handle<ListItem>(checking: item).position
            guard position < photos.count else { continue }
            if tile.root.parent?.hasFocus == true { focused = position }
            guard tile.root.isMapped, visible.contains(position), let frame = tile.root.frame(in: scrolled),
                frame.height > 0,
                frame.y + frame.height > 0, Double(frame.y) < page
            else { continue }
            return nil // a cell the adjustment says is on screen is
        }
        return focused ?? visible.lowerBound
    }

    /// The photo under (`x`, `y`) in the view's coordinates, if any.
    /// The middle of the row or cell at `position` in the view's coordinates (where it would be,
    /// if it is not on screen).
    func point(of position: Int) -> (x: Double, y: Double)? {
        let columns = columns
        guard let adjustment = scrolled.verticalAdjustment, let rowHeight = rowHeight(columns: columns) else {
            return nil
        }
        let (row, column) = (position / columns, position % columns)
        let width = Double(mode == .list ? list.width : grid.width)
        return ((Double(column) + 0.5) * width / Double(columns), (Double(row) + 0.5) * rowHeight - adjustment.value)
    }

    func position(atX x: Double, y: Double) -> Int? {
        let columns = columns
        guard let adjustment = scrolled.verticalAdjustment, let rowHeight = rowHeight(columns: columns) else {
            return nil
        }
        let row = Int(((adjustment.value + y) / rowHeight).rounded(.down))
        let column = mode == .list ? 0 : Int((x / (Double(grid.width) / Double(columns))).rounded(.down))
        let position = row * columns + min(max(0, column), columns - 1)
        return row >= 0 && (0..<photos.count).contains(position) ? position : nil
    }
}
