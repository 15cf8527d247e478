import Foundation
import GtkKit
import PhotoPipeline

/// Straightening by a line: with Level on (L), a drag across the photo draws a line along what
/// should be level (a horizon) or upright (a wall's edge), and the photo turns to make it so.
extension PhotoEditor {
    func beginLevel(atX x: Double, y: Double) {
        guard !saving else { return }
        levelLine = ((x, y), (x, y))
        canvas.setLine(from: (x, y), to: (x, y))
        canvas.grabFocus()
    }

    func continueLevel(dx: Double, dy: Double) {
        guard let line = levelLine else { return }
        levelLine = (line.from, (line.from.x + dx, line.from.y + dy))
        canvas.setLine(from: line.from, to: levelLine?.to)
    }

    /// The line drawn: the photo turns by it (one step of Undo), and Level goes off. A line
    /// shorter than 20 points is taken for a slip, and changes nothing.
    func endLevel() {
        guard let line = levelLine else { return }
        levelLine = nil
        canvas.setLine(from: nil, to: nil)
        levelButton.isActive = false
        let dx = line.to.x - line.from.x, dy = line.to.y - line.from.y
        guard (dx * dx + dy * dy).squareRoot() >= 20 else { return }
        straightenStepOpen = false
        straighten(to: Levelling.angle(current: state.straighten, lineDX: dx, lineDY: dy))
        straightenStepOpen = false
    }
}
