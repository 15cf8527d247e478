import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// Where a long view is while it scrolls, floating over its top as phone galleries show it:
/// the folder of a tree's photo, or the month when the view is sorted by date taken
/// (`ui/window.ui`'s `place`). It shows while the view scrolls and fades a moment after.
@MainActor
final class PlaceLabel {
    private let label: Widget<Label>
    private var shown: String?
    private lazy var hiding = Debounce.onMainActor { [weak self] in self?.hide() }

    /// How long the label stays once the scrolling ended.
    static let lingerMilliseconds: UInt32 = 900

    init(label: Widget<Label>) {
        self.label = label
    }

    /// Shows `text` (nil: nothing to say here, the label goes).
    func show(_ text: String?) {
        hiding.cancel()
        guard let text else { return hide() }
        if text != shown {
            shown = text
            label.setText(text)
            Trace.shared.emit(.viewPlace(text: text))
        }
        label.isVisible = true
    }

    /// The scrolling ended: the label goes a moment later.
    func scrollEnded() {
        guard shown != nil else { return }
        hiding.schedule(afterMilliseconds: Self.lingerMilliseconds)
    }

    private func hide() {
        hiding.cancel()
        shown = nil
        label.isVisible = false
    }

    /// The month of a date taken as the index keeps it ("2021-07-04 18:30:05"), in the user's
    /// language ("July 2021"); nil where it is no such date.
    static func month(of taken: String) -> String? {
        // TRANSLATORS: a month and its year, floating over the list while it scrolls: a
        // g_date_time_format() format (%B is the month's name, %Y the year)
        DateTaken(taken)?.formattedMonth(tr("%B %Y"))
    }
}
