import CGtk
import GLibKit
import GtkKit
import PhotoPipeline

/// A photo's marks, small: its stars (★★★), or a cross for a rejected photo, a dot in the
/// colour of its label, and in a row its tags. In a row it stands beside the name; over a grid cell's picture and in
/// the viewer it is a dark pill, legible on any photo. It is made only for a photo that has
/// marks (most have none, and GTK makes up to 200 rows at once).
@MainActor
final class MarksBadge {
    let root: Widget<Box>
    private let text: Widget<Label>
    private let dot: Widget<Box>
    private var tags: Widget<Label>?
    private var dotColour: String?
    private var rejected = false
    /// Whether it says "Rejected" in words beside the cross (a row has the room).
    private let wordy: Bool

    /// A badge for a row (`osd` false) or over a picture (`osd` true).
    init(osd: Bool, wordy: Bool) {
        self.wordy = wordy
        root = Widget<Box>.make(GTK_ORIENTATION_HORIZONTAL, spacing: 6)
        root.addCSSClass("marks-badge")
        if osd { root.addCSSClass("osd") }
        root.setVerticalAlign(GTK_ALIGN_CENTER)
        text = Widget<Label>.make()
        text.addCSSClass("marks-stars")
        root.append(text)
        dot = Widget<Box>.make(GTK_ORIENTATION_HORIZONTAL, spacing: 0)
        dot.addCSSClass("mark-label")
        dot.setSizeRequest(width: 10, height: 10)
        dot.setVerticalAlign(GTK_ALIGN_CENTER)
        root.append(dot)
        if wordy {
            let tags = Widget<Label>.make()
            tags.addCSSClass("marks-tags")
            tags.addCSSClass("dim-label")
            tags.ellipsize(atChars: 40)
            root.append(tags)
            self.tags = tags
        }
    }

    /// Shows `marks`; hidden when there are none.
    func show(_ marks: PhotoMarks) {
        let showsTags = tags != nil && !marks.tags.isEmpty
        root.isVisible = !marks.isEmpty && (marks.rating != 0 || marks.label != nil || showsTags)
        tags?.isVisible = showsTags
        if showsTags { tags?.setText(Self.tagsText(marks.tags)) }
        text.setText(Self.words(for: marks, wordy: wordy))
        text.isVisible = marks.rating != 0
        if marks.isRejected != rejected {
            rejected = marks.isRejected
            if rejected { root.addCSSClass("rejected") } else { root.removeCSSClass("rejected") }
        }
        let colour = marks.label.map(Self.colourClass)
        if colour != dotColour {
            if let dotColour { dot.removeCSSClass(dotColour) }
            if let colour { dot.addCSSClass(colour) }
            dotColour = colour
        }
        dot.isVisible = colour != nil
        if let label = marks.label { dot.setTooltip(Self.labelName(label)) }
    }

    /// Tags as a row shows them ("Paris · Family"; a path by its last level).
    static func tagsText(_ tags: [String]) -> String {
        tags.map { $0.split(separator: "|").last.map(String.init) ?? $0 }.joined(separator: " · ")
    }

    /// The stars as they are drawn, or the reject's cross.
    static func words(for marks: PhotoMarks, wordy: Bool) -> String {
        if marks.isRejected { return wordy ? "✕ " + tr("Rejected") : "✕" }
        return String(repeating: "★", count: marks.stars)
    }

    /// The style class of a label's colour (`label-red`); a label by another name (given by
    /// another app) is drawn grey.
    static func colourClass(_ label: String) -> String {
        PhotoMarks.labels.contains(label) ? "label-" + label.lowercased() : "label-other"
    }

    /// A label's name in the user's language.
    static func labelName(_ label: String) -> String {
        switch label {
        case "Red": tr("Red")
        case "Yellow": tr("Yellow")
        case "Green": tr("Green")
        case "Blue": tr("Blue")
        case "Purple": tr("Purple")
        default: label
        }
    }

    /// The marks in words, for a screen reader or a tooltip ("3 stars, Red label").
    static func description(of marks: PhotoMarks) -> String? {
        var parts: [String] = []
        if marks.isRejected {
            parts.append(tr("Rejected"))
        } else if marks.stars > 0 {
            parts.append(String(format: ntr("%d star", "%d stars", marks.stars), marks.stars))
        }
        if let label = marks.label { parts.append(String(format: tr("%@ label"), labelName(label))) }
        if !marks.tags.isEmpty { parts.append(marks.tags.joined(separator: ", ")) }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
}

/// A row's or a cell's marks: the badge, made for the first photo that has any and placed by
/// `place`, and the style class that dims a rejected photo's picture on `tile`.
@MainActor
final class MarksSlot {
    private(set) var shown = PhotoMarks.none
    private var badge: MarksBadge?
    private let osd: Bool
    private let place: (MarksBadge) -> Void

    init(osd: Bool, place: @escaping (MarksBadge) -> Void) {
        self.osd = osd
        self.place = place
    }

    func show(_ marks: PhotoMarks, on tile: Widget<Box>) {
        guard marks != shown else { return }
        if marks.isRejected != shown.isRejected {
            if marks.isRejected { tile.addCSSClass("rejected") } else { tile.removeCSSClass("rejected") }
        }
        shown = marks
        if badge == nil, !marks.isEmpty {
            let made = MarksBadge(osd: osd, wordy: !osd)
            place(made)
            badge = made
        }
        badge?.show(marks)
    }
}
