import GtkKit
import PhotoPipeline

/// What a screen reader says of a row of the list or a cell of the grid: the photo's name, and
/// what a sighted person sees on it or learns from its tooltip (marks, a video's length, when it
/// was taken, whether it is still loading or why it failed) and where it stands in the list.
@MainActor
struct TileSpeech: Equatable {
    var name: String
    var description: String

    /// The words for a photo at `number` (from 1) of `count` photos; `taken` is its date as
    /// EXIF writes it, where known.
    static func photo(_ snapshot: PhotoSnapshot, number: Int?, of count: Int, taken: String?) -> TileSpeech {
        let failed = snapshot.state == .failed
        let image = failed ? nil : snapshot.image
        let parts = [
            MarksBadge.description(of: snapshot.marks ?? .none),
            VideoBadge.description(seconds: image?.videoSeconds, live: image?.isMotion == true),
            Self.taken(taken),
            state(snapshot.state, failure: snapshot.failure),
            number.map {
                String(format: tr("photo %1$@ of %2$@"), Localization.number($0), Localization.number(count))
            },
        ]
        return TileSpeech(name: snapshot.displayName, description: parts.compactMap { $0 }.joined(separator: ", "))
    }

    /// The words for a sub-folder; `summary` says what it holds once counted ("3 folders, 12 photos").
    static func folder(name: String, summary: String?) -> TileSpeech {
        TileSpeech(name: name, description: summary.map { tr("folder") + ", " + $0 } ?? tr("folder"))
    }

    /// What a screen reader says of a photo in the viewer after its name: its alt text where
    /// it has one (`altText`: its sidecar's or its own, as read), else its caption, else when
    /// it was taken.
    static func words(for info: ImageInfo?, altText: String? = nil) -> String? {
        if let text = altText ?? info?.details?.altText ?? info?.details?.caption {
            return DisplayText.line(text, limit: 2000)
        }
        return taken(info?.details?.dateTaken ?? info?.date)
    }

    /// "taken 4 July 2021, 18:30", from a date as EXIF writes it.
    static func taken(_ exif: String?) -> String? {
        exif.flatMap { DateTaken($0)?.formatted(tr("%-d %B %Y, %H:%M")) }.map { String(format: tr("taken %@"), $0) }
    }

    /// What is said of a photo's progress.
    static func state(_ state: PhotoState, failure: PhotoFailure?) -> String {
        switch state {
        case .new: tr("loading")
        case .downloaded: tr("downloaded")
        case .filtered: tr("sepia")
        case .failed: String(format: tr("failed: %@"), failure?.localizedSummary ?? tr("could not be loaded"))
        }
    }
}

/// Puts a tile's speech on the list's own item around it, the widget GTK focuses and a screen
/// reader lands on: GTK 4.8 gives a list item no name of its own (a grid cell is heard as
/// "GtkListItemWidget"). It is set only when it changes; the thumbnail inside is kept out of
/// what screen readers see, as the item says what it shows.
@MainActor
final class TileVoice {
    private var said: (speech: TileSpeech, item: UnsafeMutableRawPointer)?

    func say(_ speech: TileSpeech, from root: Widget<Box>) {
        guard let item = root.parent, said.map({ $0.speech != speech || $0.item != item.raw }) ?? true else { return }
        said = (speech, item.raw)
        item.setAccessibleLabel(speech.name, description: speech.description)
    }
}
