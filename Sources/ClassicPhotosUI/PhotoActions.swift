import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The photo actions (`win.*`), on the photo shown in the viewer, or the list's selected row
/// when the viewer is closed: Move to Trash (with Undo) and Delete Permanently, Rotate Left and
/// Right, Set as Background, Print, Open With…, Show in Files, Copy Location, and the slideshow.
///
/// It owns what the actions remember between a request and its answer (photos moved to the
/// trash, files the app itself just wrote, the dialog or print job open) and changes the list
/// only through its edits. File work runs off the main thread (`PhotoFiles`,
/// `DesktopServices`); its answer comes back to the main actor, and a toast says what happened
/// when something went wrong or can be undone.
@MainActor
final class PhotoActions {
    /// Whether marks go into the photos themselves where their kind holds XMP (the preference
    /// Write Marks into Photos), as well as into a sidecar a photo has.
    static var writesMarksIntoPhotos = false

    /// Keyboard accelerators of the photo actions (added to the window's).
    static let acceleratorsByAction: [(String, [String])] = [
        ("win.trash", ["Delete", "KP_Delete"]),
        ("win.delete", ["<Shift>Delete", "<Shift>KP_Delete"]),
        ("win.undo", ["<Control>z"]),
        ("win.rotate-right", ["<Control>r"]),
        ("win.rotate-left", ["<Control><Shift>r"]),
        ("win.print", ["<Control>p"]),
        ("win.copy", ["<Control>c"]),
        ("win.copy-location", ["<Control><Shift>c"]),
        ("win.set-background", ["<Control>F8"]),
        ("win.open-with", ["<Control><Alt>o"]),
        ("win.show-in-files", ["<Control><Alt>f"]),
        // Stars as Lightroom, darktable and Shotwell give them; X rejects, as in Lightroom;
        // 6 to 9 the colour labels, in Lightroom's order.
        ("win.mark::0", ["0", "KP_0"]), ("win.mark::1", ["1", "KP_1"]), ("win.mark::2", ["2", "KP_2"]),
        ("win.mark::3", ["3", "KP_3"]), ("win.mark::4", ["4", "KP_4"]), ("win.mark::5", ["5", "KP_5"]),
        ("win.mark::reject", ["x", "X"]),
        ("win.mark::red", ["6", "KP_6"]), ("win.mark::yellow", ["7", "KP_7"]),
        ("win.mark::green", ["8", "KP_8"]), ("win.mark::blue", ["9", "KP_9"]),
        // As Shotwell adds tags.
        ("win.tags", ["<Control>t"]),
        // As Lightroom compares.
        ("win.compare", ["c", "C"]),
    ]

    /// Actions that need the photo to be a file on this computer.
    private static let fileActions = [
        "trash", "delete", "rotate-left", "rotate-right", "set-background", "open-with", "show-in-files",
    ]
    /// Actions on any photo, a file here or not: marks of a photo elsewhere (a share's, a web
    /// list's) are kept by the app itself.
    private static let photoActions = ["mark", "tags"]

    let window: Widget<ApplicationWindow>
    /// The list's model, which the actions ask for their edits of the list.
    let feed: PhotoListFeed
    var photos: PhotoList { feed.list }
    let processor: PhotoProcessor
    let pane: PhotoListPane
    let viewer: PhotoViewer
    /// The compare view, whose photo under the pointer (or framed) the actions act on.
    var compare: PhotoCompare?
    let status: WindowStatus
    /// What says how far work on many photos is.
    let progress: ProgressNotice

    /// What was moved to the trash, a batch for each time, the latest last: what Undo puts back.
    var trashed: [TrashedBatch] = []
    /// Photos on their way to the trash; Undo meanwhile stops them and puts back those moved.
    var trashing: FileBatch?
    var undoOnceTrashed = false
    /// What Ctrl+Z takes back, the latest last: a move to the trash (the latest of `trashed`),
    /// or marks given.
    enum UndoStep {
        case trash
        /// Marks given, and whether they went into the photos too (taken back the same way,
        /// whatever the preference says by then).
        case marks([MarkEdit], intoPhotos: Bool)
        /// A photo the editor saved (a copy, or in place).
        case edit(EditSaving.Saved)
    }
    var undoSteps: [UndoStep] = []
    /// An edit being taken back: Undo waits for it.
    var takingBackEdit = false
    /// Marks being written; Undo meanwhile stops them and takes back those written.
    var marking: FileBatch?
    var undoOnceMarked = false
    /// Keys pressed while marks were being written, in order.
    var waitingMarks: [() -> Void] = []
    /// The window is closing: no more marks are written (what is under way ends first).
    var closing = false
    /// Folders the user was told cannot keep marks (told once each).
    var foldersToldUnwritable: Set<String> = []
    /// The tags popover, once opened.
    var tagsPopover: TagsPopover?
    /// The tags known, the most used first: the index's and those given here.
    var knownTags: [String] = []
    private var actions: [String: ObjectRef<GObject>] = [:]
    /// A confirmation, the app chooser or a print job while open: what holds it, and its handlers.
    var open: (owner: AnyObject, connections: [SignalConnection])?
    private var connections: [SignalConnection] = []
    /// The rows' context menu, a child of the list while the window lives.
    private var rowMenu: Widget<PopoverMenu>?
    /// Keeps the menu alive while it moves from one view to the other.
    private var rowMenuReference: ObjectRef<GObject>?
    /// The photo the rows' menu was opened on, while it is open (and until its action ran):
    /// closing the menu gives the list its focus back, which may select another row.
    private var menuPhoto: PhotoID?
    private var menuClosed: MainLoopSource?

    /// Adds the actions to `window`, and the rows' context menu from `ui` (the window's file).
    init(
        ui: UIFile, window: Widget<ApplicationWindow>, feed: PhotoListFeed, processor: PhotoProcessor,
        pane: PhotoListPane, viewer: PhotoViewer, status: WindowStatus
    ) {
        self.window = window
        self.feed = feed
        self.processor = processor
        self.pane = pane
        self.viewer = viewer
        self.status = status
        // Over the viewer, which the window has put in the same area.
        progress = ProgressNotice(over: ui.widget("viewer-area", as: Overlay.self))
        addAction("trash") { [unowned self] in trashPhotos() }
        addAction("undo") { [unowned self] in undo() }
        addAction("undo-trash") { [unowned self] in undoLastTrash() }
        addAction("delete") { [unowned self] in deletePhotos() }
        addAction("rotate-right") { [unowned self] in rotatePhotos(clockwise: true) }
        addAction("rotate-left") { [unowned self] in rotatePhotos(clockwise: false) }
        addAction("copy") { [unowned self] in copyFiles() }
        addAction("set-background") { [unowned self] in setBackground() }
        addAction("print") { [unowned self] in printPhoto() }
        addAction("open-with") { [unowned self] in openWith() }
        addAction("show-in-files") { [unowned self] in showInFiles() }
        addAction("copy-location") { [unowned self] in copyLocation() }
        addAction("slideshow") { [unowned self] in self.viewer.startSlideshow() }
        addAction("compare") { [unowned self] in compareSelected() }
        addAction("mark", parameter: "s") { [unowned self] value in
            if let change = MarkChange(target: value) { mark(change) }
        }
        addAction("tags") { [unowned self] in editTags() }
        addRowMenu(ui.object("row-menu", as: MenuModel.self))
        // Typing into an entry (the details panel's alt text), the keys are the entry's.
        connections.append(window.onNotify("focus-widget") { [unowned self] in refresh() })
        refresh()
    }

    /// Actions whose keys an entry has uses of its own (digits, letters, Delete, Ctrl+C, Ctrl+Z):
    /// off while a person types into one, so that GTK gives the entry the keys. (The window's
    /// shortcuts come before the entry's own keys in GTK 4; a shortcut to an action that is off
    /// lets the key go on.)
    private static let typingKeys: Set<String> = [
        "mark", "compare", "trash", "delete", "undo", "copy", "copy-location",
    ]

    private func addAction(_ name: String, _ body: @escaping () -> Void) {
        let action = ObjectRef(takingOpaque: g_simple_action_new(name, nil)!)
        connections.append(SignalConnection.connect(action.pointer, "activate", pointer: { _ in body() }))
        window.addAction(action)
        actions[name] = action
    }

    /// An action with a string parameter (`win.mark::3`).
    private func addAction(_ name: String, parameter: String, _ body: @escaping (String) -> Void) {
        // The type's text must live until the action has copied the type.
        let action = parameter.withCString { type in
            ObjectRef(takingOpaque: g_simple_action_new(name, g_variant_type_checked_(type))!)
        }
        connections.append(
            SignalConnection.connect(
                action.pointer, "activate",
                pointer: { value in
                    guard let value, let text = g_variant_get_string(OpaquePointer(value), nil) else { return }
                    body(String(cString: text))
                }))
        window.addAction(action)
        actions[name] = action
    }

    /// Takes back what was done last: a move to the trash, or marks given.
    func undo() {
        if takingBackEdit { return }
        if trashing != nil { return undoTrash() }
        if marking != nil {
            // The marks on their way stop; those written are taken back once it has stopped.
            undoOnceMarked = true
            marking?.cancel()
            return
        }
        switch undoSteps.popLast() {
        case .trash: undoTrash()
        case .marks(let edits, let intoPhotos): undoMarks(edits, intoPhotos: intoPhotos)
        case .edit(let saved): undoEdit(saved)
        case nil: break
        }
        refresh()
    }

    /// A photo the editor saved: Ctrl+Z (or the toast's Undo) takes it back.
    func noteEdit(_ saved: EditSaving.Saved, message: String) {
        undoSteps.append(.edit(saved))
        refresh()
        status.showToast(message, button: (tr("_Undo"), "win.undo"))
    }

    /// Takes back what the editor saved: the copy deleted, or the original back in its place;
    /// one at a time (two saves in place taken back at once could put the older original
    /// back first, and the newer over it).
    private func undoEdit(_ saved: EditSaving.Saved) {
        takingBackEdit = true
        refresh()
        inBackground(
            { EditSaving.takeBack(saved) },
            then: { [weak self] result in
                self?.takingBackEdit = false
                self?.refresh()
                if case .failure(let failure) = result {
                    self?.status.showToast(
                        String(format: tr("The edit could not be taken back: %@"), failure.localizedMessage))
                }
            })
    }

    /// Puts back the photos last moved to the trash (the toast's Undo), whatever was done since.
    private func undoLastTrash() {
        if let last = undoSteps.lastIndex(where: { if case .trash = $0 { true } else { false } }) {
            undoSteps.remove(at: last)
        }
        undoTrash()
    }

    /// A right click on a row selects it and opens the photo actions' menu there.
    private func addRowMenu(_ model: Handle<MenuModel>) {
        let menu = Widget<PopoverMenu>.make(from: model)
        rowMenuReference = menu.retained()
        menu.setParent(pane.view)
        menu.setHasArrow(false)
        rowMenu = menu
        connections.append(
            menu.connect("closed") { [unowned self] in
                // The item chosen runs its action first; the photo is forgotten after that, and
                // the keys go back to the photos (GTK 4.8 may leave them in the closed menu).
                menuClosed = MainLoopSource.onMainActor(.idle) { [weak self] in
                    self?.menuPhoto = nil
                    self?.menuClosed = nil
                    guard let self else { return .remove }
                    if compare?.isOpen == true {
                        compare?.grabFocus()
                    } else if viewer.shownPhoto == nil {
                        pane.grabFocus()
                    }
                    return .remove
                }
            })
        let click = Handle<GestureClick>.make(button: 3)
        connections.append(click.onPressed { [unowned self] _, x, y in openRowMenu(x: x, y: y) })
        // On the scrolled window, whose coordinates are those of the view it shows.
        pane.scrolled.addController(click)
        // From the keyboard, as everywhere on the desktop: the Menu key or Shift+F10, for the
        // photo with the keys (the one selected last).
        let keys = Handle<KeyController>.make()
        connections.append(
            keys.onKeyPressed { [unowned self] keyval, _, state in
                let shift = GdkModifierType(state).rawValue & GDK_SHIFT_MASK.rawValue != 0
                guard keyval == UInt32(GDK_KEY_Menu) || (keyval == UInt32(GDK_KEY_F10) && shift),
                    let position = pane.selection.first, let point = pane.point(of: position)
                else { return false }
                openRowMenu(x: point.x, y: point.y)
                return true
            })
        pane.scrolled.addController(keys)
    }

    private func openRowMenu(x: Double, y: Double) {
        guard let menu = rowMenu, let position = pane.position(atX: x, y: y) else { return }
        if menu.parent?.raw != pane.view.raw {
            menu.unparent()
            menu.setParent(pane.view)
        }
        // A photo outside the selection is selected alone; one inside keeps the others.
        if !pane.selection.contains(position) { pane.select(position) }
        menuClosed = nil
        menuPhoto = photos.id(at: position)
        refresh()
        menu.popUp(at: x, y)
    }

    /// Turns the actions on or off for the photos they would act on now.
    func refresh() {
        let target = photoTarget()
        let isFile = target?.path != nil
        for name in Self.fileActions { setEnabled(name, isFile) }
        for name in Self.photoActions { setEnabled(name, target != nil) }
        // Ctrl+C in the viewer copies its picture (the viewer's own key).
        setEnabled("copy", isFile && viewer.shownPhoto == nil)
        setEnabled("copy-location", target != nil)
        setEnabled("print", viewer.shownPhoto != nil)
        setEnabled("slideshow", viewer.shownPhoto != nil)
        setEnabled("compare", comparable() != nil)
        setEnabled("undo-trash", !trashed.isEmpty || trashing != nil)
        setEnabled("undo", !takingBackEdit && (!undoSteps.isEmpty || trashing != nil || marking != nil))
    }

    private func setEnabled(_ name: String, _ enabled: Bool) {
        guard let action = actions[name] else { return }
        let enabled = enabled && !(Self.typingKeys.contains(name) && window.isTyping)
        g_simple_action_set_enabled(action.opaque, enabled ? 1 : 0)
    }

    /// Lets go of the menu, dialogs and handlers (the window is closing). Marks being written
    /// are stopped after the files under way, and those written so far put in place (each
    /// group of sidecars is renamed into place at its end: quitting mid-group left its
    /// temporary files beside the photos).
    func close() {
        closing = true
        waitingMarks.removeAll()
        undoOnceMarked = false
        _ = marking?.cancelAndWait(seconds: 10)
        progress.close()
        open = nil
        connections.removeAll()
        tagsPopover?.popover.unparent()
        tagsPopover = nil
        rowMenu?.unparent()
        rowMenu = nil
        rowMenuReference = nil
        menuClosed = nil
    }

    // MARK: The photo acted on

    /// A photo an action acts on.
    struct PhotoTarget: Sendable {
        let id: PhotoID
        /// Where it is shown, and where it is in the whole list (a filter may hide photos
        /// before it): where it goes back to.
        let position: Int
        let place: Int
        let entry: PhotoEntry
        var name: String { entry.name }
        /// Its address (parsed each time it is asked for: for thousands of photos, ask off the
        /// main thread, as `withFiles` does).
        var url: URL? { try? entry.resolvedURL() }
        /// Its file, for a photo on this computer.
        var path: String? { url.flatMap { $0.isFileURL ? $0.path : nil } }
    }

    /// A photo acted on that is a file on this computer, and its path.
    struct FileTarget: Sendable {
        let target: PhotoTarget
        let path: String
    }

    /// The photos an action acts on: the one shown in the viewer; with the viewer closed, every
    /// photo selected, or the one a row's menu was opened on when it is not among them.
    func photoTargets() -> [PhotoTarget] {
        let chosen: [(id: PhotoID, position: Int)]
        if let compare, compare.isOpen {
            // The photo under the pointer or framed, even if a filter now hides it; never the
            // selection behind.
            return compare.targetPhoto.flatMap(comparedTarget).map { [$0] } ?? []
        } else if let shown = viewer.shownPhoto {
            chosen = [shown]
        } else if let id = menuPhoto, let position = photos.position(of: id), !pane.selection.contains(position) {
            chosen = [(id, position)]
        } else {
            chosen = pane.selection.positions.compactMap { $0 < photos.count ? (photos.id(at: $0), $0) : nil }
        }
        return chosen.compactMap { target($0.id, at: $0.position) }.filter { !$0.entry.isFolder }
    }

    /// The one photo an action on a single photo acts on: the one shown, or the first of those
    /// `photoTargets` gives.
    func photoTarget() -> PhotoTarget? {
        if let compare, compare.isOpen { return compare.targetPhoto.flatMap(comparedTarget) }
        if let shown = viewer.shownPhoto { return target(shown.id, at: shown.position) }
        if let id = menuPhoto, let position = photos.position(of: id) { return target(id, at: position) }
        return pane.selection.first.flatMap { $0 < photos.count ? target(photos.id(at: $0), at: $0) : nil }
    }

    /// The photos selected, when the compare view can show them: 2 to 4 photos (not folders),
    /// with the viewer and the compare view closed.
    private func comparable() -> [PhotoID]? {
        guard let compare, !compare.isOpen, viewer.shownPhoto == nil, pane.selection.count >= 2,
            pane.selection.count <= PhotoCompare.maxPhotos + photos.firstPhoto
        else { return nil }
        let ids = pane.selection.positions.compactMap { $0 < photos.count ? photos.id(at: $0) : nil }.filter {
            processor.snapshot(of: $0).map { !$0.entry.isFolder } ?? false
        }
        return (2...PhotoCompare.maxPhotos).contains(ids.count) ? ids : nil
    }

    private func compareSelected() {
        guard let ids = comparable() else { return }
        compare?.open(ids)
        refresh()
    }

    /// A compared photo as a target: where it is shown, or (hidden by the filter) where it is
    /// in the whole list.
    private func comparedTarget(_ id: PhotoID) -> PhotoTarget? {
        guard let position = photos.position(of: id) ?? photos.wholePosition(of: id) else { return nil }
        return target(id, at: position)
    }

    private func target(_ id: PhotoID, at position: Int) -> PhotoTarget? {
        guard let snapshot = processor.snapshot(of: id), !snapshot.entry.isFolder else { return nil }
        return PhotoTarget(
            id: id, position: position, place: photos.wholePosition(of: id) ?? position, entry: snapshot.entry)
    }

    /// Runs `work` (blocking file or bus work) on a thread of its own, then `done` with what it
    /// gave, on the main loop.
    func inBackground<Value: Sendable>(
        _ work: @escaping @Sendable () -> Value, then done: @escaping @MainActor @Sendable (Value) -> Void
    ) {
        Thread.detachNewThread {
            let value = work()
            MainLoop.onMainActor { done(value) }
        }
    }

    /// A question with Cancel and one action (libadwaita's message dialog); `body` runs if the
    /// action is chosen.
    func confirm(heading: String, body: String, action: String, destructive: Bool, _ then: @escaping () -> Void) {
        open = Question.ask(
            parent: window, heading: heading, body: body, back: tr("_Cancel"), action: action,
            destructive: destructive
        ) { [unowned self] go in
            open = nil
            if go { then() }
        }
    }
}
