import CGtk
import GLibKit
import GtkKit
import PhotoPipeline

/// A video's length, small: "▶ 1:05". Beside the name in a row, a dark pill over the picture's
/// lower right corner in a grid cell. Made for the first video a row or cell shows (most
/// folders have none), hidden for photos.
@MainActor
final class VideoBadge {
    private var label: Widget<Label>?
    private var shown: Int?
    private let osd: Bool
    private let place: (Widget<Label>) -> Void

    init(osd: Bool, place: @escaping (Widget<Label>) -> Void) {
        self.osd = osd
        self.place = place
    }

    /// Shows a video's length in seconds, or "Live" for a motion photo; hidden for a photo
    /// (or a video not yet read).
    func show(seconds: Int?, live: Bool = false) {
        let wanted = live ? -1 : seconds
        guard wanted != shown else { return }
        shown = wanted
        if label == nil, wanted != nil {
            let made = Widget<Label>.make()
            made.addCSSClass("video-badge")
            if osd { made.addCSSClass("osd") } else { made.addCSSClass("dim-label") }
            made.setVerticalAlign(osd ? GTK_ALIGN_END : GTK_ALIGN_CENTER)
            made.canTarget = false
            place(made)
            label = made
        }
        guard let label else { return }
        label.isVisible = wanted != nil
        if live {
            label.setText(tr("Live"))
        } else if let seconds {
            label.setText("▶ " + Self.length(seconds))
        }
    }

    /// A length as players write it: "0:07", "1:05", "1:02:03".
    static func length(_ seconds: Int) -> String {
        let (hours, rest) = max(0, seconds).quotientAndRemainder(dividingBy: 3600)
        let (minutes, secs) = rest.quotientAndRemainder(dividingBy: 60)
        let tail = (secs < 10 ? "0" : "") + String(secs)
        guard hours > 0 else { return "\(minutes):\(tail)" }
        return "\(hours):\(minutes < 10 ? "0" : "")\(minutes):\(tail)"
    }

    /// What a screen reader says of a video of `seconds` ("video, 1:05").
    static func description(seconds: Int?, live: Bool = false) -> String? {
        if live { return tr("motion photo") }
        return seconds.map { String(format: tr("video, %@"), length($0)) }
    }
}
