import CGLib
import GLibKit
import GtkKit
import PhotoPipeline

/// The window's filter, in the funnel menu of the header bar: at least so many stars, rejected
/// photos hidden, the labels picked, a tag. The list, the grid and the viewer's paging show
/// only the photos it passes (`PhotoListFilter`); the subtitle counts them ("38 of 412
/// photos"), the funnel is coloured while it is on, and Escape (or Clear Filter) lets every
/// photo back. It stays when another folder opens in the window.
@MainActor
final class WindowFilter {
    let filtering: PhotoListFilter
    private let window: Widget<ApplicationWindow>
    private let button: Widget<MenuButton>
    /// The tag section of the menu, and the tags it lists now.
    private let tagSection: Handle<Menu>
    private var tagsListed: [String] = []
    private var starsAction: ObjectRef<GObject>?
    private var rejectedAction: ObjectRef<GObject>?
    private var labelActions: [String: ObjectRef<GObject>] = [:]
    private var tagAction: ObjectRef<GObject>?
    private var connections: [SignalConnection] = []
    private var viewerOpen = false
    /// The most tags the menu offers (the most used).
    private static let tagsOffered = 20
    /// Told when what the filter shows changed (the window's subtitle and status page).
    var onChanged: (() -> Void)?

    static let acceleratorsByAction: [(String, [String])] = [
        ("win.filter-menu", ["<Control><Shift>f"]), ("win.clear-filter", ["Escape"]),
    ]

    init(ui: UIFile, window: Widget<ApplicationWindow>, photos: PhotoList, processor: PhotoProcessor) {
        self.window = window
        filtering = PhotoListFilter(list: photos, processor: processor)
        button = ui.widget("filter-button")
        tagSection = ui.object("filter-tags")
        addActions()
        filtering.onChanged = { [unowned self] in
            if !filtering.isReading { refreshTags() }
            onChanged?()
        }
        // The tags offered are those known; opening the menu has every photo's read (the
        // menu takes in the tags as they come).
        if let menu = button.popover {
            connections.append(
                menu.connect("show") { [unowned self] in
                    refreshTags()
                    filtering.readAll()
                })
        }
        refresh()
    }

    private func addActions() {
        starsAction = add(
            ChoiceAction.make("filter-stars", "0") { [unowned self] value in
                guard let stars = Int(value), (0...PhotoMarks.mostStars).contains(stars) else { return false }
                change { $0.minimumStars = stars }
                return true
            })
        rejectedAction = add(
            ToggleAction.make("filter-rejected", false) { [unowned self] hide in
                change { $0.hidesRejected = hide }
            })
        for label in PhotoMarks.labels {
            labelActions[label] = add(
                ToggleAction.make("filter-label-" + label.lowercased(), false) { [unowned self] on in
                    change { if on { $0.labels.insert(label) } else { $0.labels.remove(label) } }
                })
        }
        tagAction = add(
            ChoiceAction.make("filter-tag", "") { [unowned self] tag in
                change { $0.tag = tag.isEmpty ? nil : tag }
                return true
            })
        let open = ObjectRef(takingOpaque: g_simple_action_new("filter-menu", nil)!)
        connections.append(
            SignalConnection.connect(open.pointer, "activate", pointer: { [unowned self] _ in button.popUp() }))
        window.addAction(open)
        let clear = ObjectRef(takingOpaque: g_simple_action_new("clear-filter", nil)!)
        connections.append(
            SignalConnection.connect(clear.pointer, "activate", pointer: { [unowned self] _ in set(.none) }))
        window.addAction(clear)
    }

    private func add(_ made: (action: ObjectRef<GObject>, connection: SignalConnection)) -> ObjectRef<GObject> {
        connections.append(made.connection)
        window.addAction(made.action)
        return made.action
    }

    private func change(_ body: (inout PhotoFilter) -> Void) {
        var new = filtering.filter
        body(&new)
        set(new)
    }

    /// Shows only the photos `new` passes, and says so.
    func set(_ new: PhotoFilter) {
        filtering.set(new)
        refresh()
    }

    /// The viewer opened or closed: Escape is its own while it is open.
    func viewerOpened(_ open: Bool) {
        viewerOpen = open
        refresh()
    }

    /// The menu's states, the funnel's colour and words, and Clear Filter, as the filter is.
    private func refresh() {
        let filter = filtering.filter
        if let starsAction { ChoiceAction.setState(starsAction, String(filter.minimumStars)) }
        if let rejectedAction { ToggleAction.setState(rejectedAction, filter.hidesRejected) }
        for (label, action) in labelActions { ToggleAction.setState(action, filter.labels.contains(label)) }
        if let tagAction { ChoiceAction.setState(tagAction, filter.tag ?? "") }
        window.setActionEnabled("clear-filter", filter.isOn && !viewerOpen)
        if filter.isOn { button.addCSSClass("filter-on") } else { button.removeCSSClass("filter-on") }
        button.setTooltip(filter.isOn ? String(format: tr("Filter: %@"), Self.describe(filter)) : tr("Filter"))
        refreshTags()
    }

    /// Lists the list's most used tags in the menu (and the one filtered by, if it is not
    /// among them).
    private func refreshTags() {
        var tags = Array(filtering.tagsKnown.prefix(Self.tagsOffered))
        if let tag = filtering.filter.tag, !tags.contains(tag) { tags.append(tag) }
        tags.sort { $0.localizedStandardCompare($1) == .orderedAscending }
        guard tags != tagsListed else { return }
        tagsListed = tags
        tagSection.removeAll()
        for tag in tags {
            tagSection.append(
                label: tag.split(separator: "|").joined(separator: " › "), action: "win.filter-tag", target: tag)
        }
    }

    /// The filter in words, for the funnel's tooltip ("3 stars or more, no rejected, Red").
    static func describe(_ filter: PhotoFilter) -> String {
        var parts: [String] = []
        if filter.minimumStars > 0 {
            parts.append(
                filter.minimumStars == PhotoMarks.mostStars
                    ? tr("5 stars")
                    : String(
                        format: ntr("%@ star or more", "%@ stars or more", filter.minimumStars),
                        Localization.number(filter.minimumStars)))
        }
        if filter.hidesRejected { parts.append(tr("no rejected")) }
        let labels = PhotoMarks.labels.filter(filter.labels.contains).map(MarksBadge.labelName)
        if !labels.isEmpty { parts.append(labels.joined(separator: " / ")) }
        if let tag = filter.tag { parts.append(tag.split(separator: "|").joined(separator: " › ")) }
        return parts.joined(separator: ", ")
    }

    func close() {
        filtering.close()
        connections.removeAll()
        onChanged = nil
    }
}
