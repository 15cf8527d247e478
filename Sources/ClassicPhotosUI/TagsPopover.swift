import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The tags popover (`ui/tags.ui`, Ctrl+T): the tags of the photos acted on, a row each with
/// a button that takes it away from all of them, and an entry that adds one to all of them. As the user
/// types, the tags already known (the index's, most used first) that match are offered below;
/// Enter adds what was typed, or the offer chosen with the arrow keys or a click. It stays open
/// for the next tag; Escape or a click outside closes it.
@MainActor
final class TagsPopover {
    let popover: Widget<Popover>
    private let ui = UIFile("tags")
    private let title: Widget<Label>
    private let tagsBox: Widget<Box>
    private let noTags: Widget<Label>
    private let entry: Widget<Entry>
    private let offers: Widget<Box>
    private var connections: [SignalConnection] = []
    private var tagConnections: [SignalConnection] = []
    private var offerConnections: [SignalConnection] = []
    /// The tags shown: each with how many of the photos have it.
    private var held: [(tag: String, count: Int)] = []
    /// How many photos the popover acts on.
    private var photoCount = 0
    /// The tags known, the most used first, for the offers.
    private var known: [String] = []
    /// The most offers shown at once.
    private static let mostOffers = 6

    /// Adds a tag to the photos acted on, or takes one away.
    var onAdd: ((String) -> Void)?
    var onRemove: ((String) -> Void)?
    /// The popover closed (the keys go back to the photos).
    var onClosed: (() -> Void)?

    init() {
        popover = ui.widget("popover")
        title = ui.widget("title")
        tagsBox = ui.widget("tags")
        noTags = ui.widget("none")
        entry = ui.widget("entry")
        offers = ui.widget("offers")
        popover.addCSSClass("tags-popover")
        connections.append(entry.connect("activate") { [unowned self] in add(entry.text) })
        connections.append(entry.connect("changed") { [unowned self] in showOffers() })
        connections.append(
            popover.connect("show") { [unowned self] in
                Trace.shared.emit(.tagsPopover(shown: true, tags: held.map(\.tag)))
            })
        connections.append(
            popover.connect("hide") { [unowned self] in
                Trace.shared.emit(.tagsPopover(shown: false, tags: held.map(\.tag)))
                onClosed?()
            })
    }

    /// Fills the popover for `count` photos, of which those whose marks are known have `marks`,
    /// offering `known` tags as the user types.
    func show(marks: [PhotoMarks], count: Int, known: [String]) {
        photoCount = count
        self.known = known
        var counts: [String: Int] = [:]
        var order: [String] = []
        for tags in marks.map(\.tags) {
            for tag in tags {
                if counts[tag] == nil { order.append(tag) }
                counts[tag, default: 0] += 1
            }
        }
        held = order.map { ($0, counts[$0] ?? 0) }
        title.setText(
            count == 1
                ? tr("Tags")
                : String(format: ntr("Tags of %@ photo", "Tags of %@ photos", count), Localization.number(count)))
        entry.text = ""
        showTags()
        showOffers()
    }

    /// More tags known (read off the main thread after the popover opened).
    func offer(_ known: [String]) {
        self.known = known
        showOffers()
    }

    func focusEntry() { entry.grabFocus() }

    private func showTags() {
        tagConnections.removeAll()
        tagsBox.removeAll()
        for (tag, count) in held {
            let row = Widget<Box>.make(GTK_ORIENTATION_HORIZONTAL, spacing: 6)
            let name = Widget<Label>.make(Self.shown(tag))
            name.addCSSClass("tag-name")
            name.setHorizontalExpand(true)
            name.setXAlign(0)
            name.ellipsize(atChars: 36)
            row.append(name)
            // On some of the photos only: said so, in lighter type.
            if count < photoCount {
                let some = Widget<Label>.make(
                    // TRANSLATORS: beside a tag in the tags popover: how many of the photos
                    // acted on have it ("1 of 3")
                    String(
                        format: tr("%1$@ of %2$@"), Localization.number(count), Localization.number(photoCount)))
                some.addCSSClass("dim-label")
                row.append(some)
            }
            let button = Widget<Button>.make(iconName: "window-close-symbolic")
            button.addCSSClass("flat")
            button.addCSSClass("circular")
            let text = String(format: tr("Take “%@” away"), tag)
            button.setTooltip(text)
            button.setAccessibleLabel(text, description: "")
            tagConnections.append(button.connect("clicked") { [unowned self] in remove(tag) })
            row.append(button)
            tagsBox.append(row)
        }
        tagsBox.isVisible = !held.isEmpty
        noTags.isVisible = held.isEmpty
        if popover.isVisible { popover.present() }
    }

    /// The known tags that match what is typed (those beginning with it first), not held by
    /// every photo already.
    private func showOffers() {
        offerConnections.removeAll()
        offers.removeAll()
        let typed = entry.text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !typed.isEmpty else {
            offers.isVisible = false
            return
        }
        let everywhere = Set(held.filter { $0.count >= photoCount }.map(\.tag))
        let candidates = known.filter { !everywhere.contains($0) }
        let starting = candidates.filter { $0.lowercased().hasPrefix(typed) }
        let containing = candidates.filter { !$0.lowercased().hasPrefix(typed) && $0.lowercased().contains(typed) }
        let chosen = (starting + containing).prefix(Self.mostOffers)
        for tag in chosen {
            let label = Widget<Label>.make(Self.shown(tag))
            label.setXAlign(0)
            let button = Widget<Button>.make(child: label)
            button.addCSSClass("flat")
            button.addCSSClass("tag-offer")
            offerConnections.append(button.connect("clicked") { [unowned self] in add(tag) })
            offers.append(button)
        }
        offers.isVisible = !chosen.isEmpty
        if popover.isVisible { popover.present() }
    }

    /// A tag as the popover writes it: the levels of a path with arrows between them.
    private static func shown(_ tag: String) -> String { tag.replacingOccurrences(of: "|", with: " › ") }

    /// Adds `text` as a tag (in the spelling of a known tag that differs only in case).
    private func add(_ text: String) {
        guard var tag = PhotoMarks.unique([text]).first else { return }
        if let same = known.first(where: { $0.caseInsensitiveCompare(tag) == .orderedSame }) { tag = same }
        onAdd?(tag)
        if let index = held.firstIndex(where: { $0.tag == tag }) {
            held[index].count = photoCount
        } else {
            held.append((tag, photoCount))
        }
        if !known.contains(tag) { known.insert(tag, at: 0) }
        entry.text = ""
        showTags()
        entry.grabFocus()
    }

    private func remove(_ tag: String) {
        onRemove?(tag)
        held.removeAll { $0.tag == tag }
        showTags()
        entry.grabFocus()
    }
}
