import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The photo editor, over the viewer (E): turn and flip the photo, crop it with a frame held to
/// a shape or free, undo and redo, and keep the result as a copy beside the photo or in its
/// place (the original to the trash). A JPEG is saved without decoding it (`LosslessJPEG`);
/// what the screen shows is the viewer's screen-size picture, turned as the edit says, so
/// every change redraws at once whatever the photo's size.
@MainActor
final class PhotoEditor {
    /// The photo being edited.
    struct Subject {
        let id: PhotoID
        let path: String
        let name: String
        /// The viewer's picture of it: upright, at the size shown.
        let picture: PhotoImage
        /// The whole photo's size, upright.
        let width: Int
        let height: Int
    }

    /// What Undo and Redo step through.
    struct State: Equatable {
        var turn = PictureTurn.upright
        /// In the turned photo's pixels.
        var frame: CropFrame
    }

    let root: Widget<Overlay>
    private let ui = UIFile("editor")
    private let canvas = Widget<CropCanvas>.make()
    private let title: Widget<Label>
    private let portrait: Widget<ToggleButton>
    /// The crop's shape, chosen in its popover.
    private let shapeMenu: Widget<MenuButton>
    private let buttons: [Widget<Button>]
    private let undoButton: Widget<Button>
    private let redoButton: Widget<Button>
    private let resetButton: Widget<Button>
    /// The question asked before changes are dropped, while it is open.
    private var question: (owner: AnyObject, connections: [SignalConnection])?
    private var shapeButtons: [(CropShape, Widget<ToggleButton>)] = []
    private var connections: [SignalConnection] = []
    private unowned let host: any PhotoViewerHost

    private(set) var subject: Subject?
    private var state = State(frame: CropFrame(x: 0, y: 0, width: 0, height: 0))
    private var undoStack: [State] = []
    private var redoStack: [State] = []
    private var shape = CropShape.free
    /// How Ctrl+S saves: as the last save did (a copy, to begin with).
    private var lastMode = EditSaving.Mode.copy
    /// The picture turned as `state.turn` says, and its texture.
    private var shown: (turn: PictureTurn, texture: ObjectRef<GObject>)?
    /// Where the photo is drawn on the canvas, and at what scale (canvas points per photo pixel).
    private var view = (x: 0.0, y: 0.0, scale: 1.0)
    /// The drag under way: what it holds, and the frame when it began.
    private var drag: (handle: CropFrame.Handle, start: CropFrame)?
    private var saving = false
    /// Counts the times the editor opened: a save finishing after its session ended (the viewer
    /// closed, the photo went) does not close the one opened since.
    private var session = 0
    /// The editor closed (saved, or left): the viewer takes the keys back.
    var onClose: (() -> Void)?

    var isOpen: Bool { subject != nil }

    init(host: any PhotoViewerHost) {
        self.host = host
        root = ui.widget("root")
        title = ui.widget("title")
        portrait = ui.widget("portrait")
        shapeMenu = ui.widget("shape-menu")
        shapeMenu.innerButton?.addCSSClass("osd")
        canvas.setAccessibleLabel(tr("Photo being edited"), description: tr("Drag the frame's edges to crop"))
        ui.widget("canvas-slot", as: Bin.self).setChild(canvas)
        let ids = [
            "cancel", "save-copy", "save-replace", "rotate-left", "rotate-right", "flip-horizontal", "flip-vertical",
            "undo", "redo", "reset",
        ]
        let file = ui
        let buttons = ids.map { file.widget($0, as: Button.self) }
        self.buttons = buttons
        undoButton = ui.widget("undo")
        redoButton = ui.widget("redo")
        resetButton = ui.widget("reset")
        for (id, button) in zip(ids, buttons) {
            connections.append(button.connect("clicked") { [unowned self] in perform(id) })
        }
        let shapeIDs: [(CropShape, String)] = [
            (.free, "shape-free"), (.original, "shape-original"), (.square, "shape-square"),
            (.fourThree, "shape-4-3"), (.threeTwo, "shape-3-2"), (.sixteenNine, "shape-16-9"),
        ]
        for (shape, id) in shapeIDs {
            let button = ui.widget(id, as: ToggleButton.self)
            shapeButtons.append((shape, button))
            connections.append(
                button.connect("toggled") { [unowned self] in
                    guard button.isActive else { return }
                    shapeMenu.setLabel(button.label)
                    shapeMenu.popDown()
                    choose(shape)
                })
        }
        connections.append(portrait.connect("toggled") { [unowned self] in choose(shape) })
        connections.append(canvas.connect("resized") { [unowned self] in layOut() })
        let dragging = Handle<GestureDrag>.make()
        connections.append(dragging.onDragBegin { [unowned self] x, y in beginDrag(atX: x, y: y) })
        connections.append(dragging.onDragUpdate { [unowned self] dx, dy in continueDrag(dx: dx, dy: dy) })
        connections.append(dragging.onDragEnd { [unowned self] _, _ in endDrag() })
        canvas.addController(dragging)
    }

    /// What a button asks for.
    private func perform(_ button: String) {
        switch button {
        case "cancel": cancel()
        case "save-copy": save(.copy)
        case "save-replace": save(.replace)
        case "rotate-left": turn(clockwise: false)
        case "rotate-right": turn(clockwise: true)
        case "flip-horizontal": flip(vertically: false)
        case "flip-vertical": flip(vertically: true)
        case "undo": undo()
        case "redo": redo()
        case "reset": reset()
        default: break
        }
    }

    // MARK: Opening and closing

    /// Opens on `subject` (a JPEG file the viewer shows).
    func open(_ subject: Subject) {
        self.subject = subject
        state = State(frame: CropFrame(x: 0, y: 0, width: Double(subject.width), height: Double(subject.height)))
        undoStack.removeAll()
        redoStack.removeAll()
        shown = nil
        session += 1
        drag = nil
        shapeButtons.first?.1.isActive = true
        portrait.isActive = false
        shape = .free
        title.setText(subject.name)
        root.isVisible = true
        canvas.grabFocus()
        show()
        Trace.shared.emit(.editBegin(id: subject.id))
    }

    /// Leaves without saving.
    func close() {
        guard subject != nil else { return }
        subject = nil
        shown = nil
        canvas.setPhoto(nil, in: CropFrame(x: 0, y: 0, width: 0, height: 0))
        root.isVisible = false
        onClose?()
    }

    /// Escape or Cancel: leaves at once when nothing changed, else asks first.
    func cancel() {
        guard !saving else { return }
        guard isChanged else { return close() }
        question = Question.ask(
            parent: host.window, heading: tr("Discard the Changes?"),
            body: tr("The photo stays as it was; what was done to it here is lost."), back: tr("_Keep Editing"),
            action: tr("_Discard"), destructive: true
        ) { [unowned self] discard in
            question = nil
            if discard { close() } else { canvas.grabFocus() }
        }
    }

    private var turnedSize: (width: Double, height: Double) {
        guard let subject else { return (0, 0) }
        let size = state.turn.size(width: subject.width, height: subject.height)
        return (Double(size.width), Double(size.height))
    }

    private var isChanged: Bool { edit.isEmpty == false }

    /// The edit as saved: the turn, and the crop unless it keeps the whole photo.
    var edit: PhotoEdit {
        let whole = CropFrame(x: 0, y: 0, width: turnedSize.width, height: turnedSize.height)
        let crop = state.frame.pixels
        return PhotoEdit(turn: state.turn, crop: crop == whole.pixels ? nil : crop)
    }

    // MARK: Keys

    /// A key pressed while the editor is open: whether it was taken.
    func key(_ keyval: UInt32, state modifiers: GdkModifierType) -> Bool {
        let control = modifiers.rawValue & GDK_CONTROL_MASK.rawValue != 0
        let shift = modifiers.rawValue & GDK_SHIFT_MASK.rawValue != 0
        let plain = modifiers.rawValue & (GDK_CONTROL_MASK.rawValue | GDK_ALT_MASK.rawValue) == 0
        // The shape's popover, while open, has the keys (Escape closes it, arrows move in it).
        if shapeMenu.popover?.isVisible == true { return false }
        switch Int32(bitPattern: keyval) {
        case GDK_KEY_Escape: cancel()
        case GDK_KEY_z where control && shift, GDK_KEY_Z where control, GDK_KEY_y where control: redo()
        case GDK_KEY_z where control: undo()
        case GDK_KEY_s where control && shift, GDK_KEY_S where control && shift: save(.replace)
        case GDK_KEY_s where control, GDK_KEY_S where control: save(lastMode)
        case GDK_KEY_r where control: reset()
        case GDK_KEY_bracketleft where plain: turn(clockwise: false)
        case GDK_KEY_bracketright where plain: turn(clockwise: true)
        case GDK_KEY_h where plain, GDK_KEY_H where plain: flip(vertically: false)
        case GDK_KEY_v where plain, GDK_KEY_V where plain: flip(vertically: true)
        case GDK_KEY_o where plain, GDK_KEY_O where plain: portrait.isActive.toggle()
        // Alt and a letter: a mnemonic of the controls.
        case _ where modifiers.rawValue & GDK_ALT_MASK.rawValue != 0: return false
        // The arrows move the frame (with Shift, its bottom-right corner) by a step of the screen.
        case GDK_KEY_Left: nudge(dx: -1, dy: 0, corner: shift)
        case GDK_KEY_Right: nudge(dx: 1, dy: 0, corner: shift)
        case GDK_KEY_Up: nudge(dx: 0, dy: -1, corner: shift)
        case GDK_KEY_Down: nudge(dx: 0, dy: 1, corner: shift)
        // Moving between the controls and pressing them is GTK's.
        case GDK_KEY_Tab, GDK_KEY_ISO_Left_Tab, GDK_KEY_KP_Tab, GDK_KEY_space, GDK_KEY_Return, GDK_KEY_KP_Enter:
            return false
        // Any other key is kept from the window's shortcuts, which would act on the list behind.
        default: break
        }
        return true
    }

    // MARK: Changes

    private func change(_ body: (inout State) -> Void) {
        guard subject != nil, !saving else { return }
        drag = nil
        var next = state
        body(&next)
        guard next != state else { return }
        undoStack.append(state)
        redoStack.removeAll()
        state = next
        show()
    }

    private func turn(clockwise: Bool) {
        let size = turnedSize
        change { state in
            state.frame = state.frame.turned(PictureTurn(quarterTurns: clockwise ? 1 : 3), in: size)
            state.turn = state.turn.turned(clockwise: clockwise)
        }
    }

    private func flip(vertically: Bool) {
        let size = turnedSize
        change { state in
            state.frame = state.frame.turned(PictureTurn(mirrored: true, quarterTurns: vertically ? 2 : 0), in: size)
            state.turn = state.turn.flipped(vertically: vertically)
        }
    }

    private func choose(_ shape: CropShape) {
        self.shape = shape
        guard let ratio else { return }
        change { $0.frame = $0.frame.held(to: ratio) }
    }

    /// The shape the frame is held to, width over height (nil: free): lying as the photo
    /// lies, or the other way when the shape is turned.
    private var ratio: Double? {
        let size = turnedSize
        return shape.ratio(landscape: (size.width >= size.height) != portrait.isActive, photo: size)
    }

    private func nudge(dx: Double, dy: Double, corner: Bool) {
        let step = 10 / view.scale
        let size = turnedSize
        let ratio = ratio
        change { state in
            state.frame = state.frame.dragged(
                corner ? .bottomRight : .inside, dx: dx * step, dy: dy * step, bounds: size, ratio: ratio)
        }
    }

    private func undo() {
        guard !saving, let previous = undoStack.popLast() else { return }
        drag = nil
        redoStack.append(state)
        state = previous
        show()
    }

    private func redo() {
        guard !saving, let next = redoStack.popLast() else { return }
        drag = nil
        undoStack.append(state)
        state = next
        show()
    }

    private func reset() {
        guard let subject else { return }
        let whole = CropFrame(x: 0, y: 0, width: Double(subject.width), height: Double(subject.height))
        change { $0 = State(frame: whole) }
    }

    // MARK: Dragging the frame

    private func beginDrag(atX x: Double, y: Double) {
        let point = (x: (x - view.x) / view.scale, y: (y - view.y) / view.scale)
        guard !saving, let handle = state.frame.handle(atX: point.x, y: point.y, reach: 14 / view.scale) else {
            drag = nil
            return
        }
        drag = (handle, state.frame)
        canvas.grabFocus()
    }

    private func continueDrag(dx: Double, dy: Double) {
        guard let drag, !saving else { return }
        state.frame = drag.start.dragged(
            drag.handle, dx: dx / view.scale, dy: dy / view.scale, bounds: turnedSize, ratio: ratio)
        showFrame(thirds: true)
    }

    private func endDrag() {
        guard let drag else { return }
        self.drag = nil
        let moved = state.frame
        state.frame = drag.start
        change { $0.frame = moved }
        showFrame(thirds: false)
    }

    // MARK: Drawing

    /// Shows the state: the photo turned (made again only when the turn changed), the frame,
    /// and which buttons can act.
    private func show() {
        guard let subject else { return }
        if shown?.turn != state.turn {
            let turned = subject.picture.oriented(state.turn.exifOrientation)
            shown = (state.turn, DisplayColours.shared.texture(for: turned))
        }
        layOut()
        undoButton.isSensitive = !undoStack.isEmpty
        redoButton.isSensitive = !redoStack.isEmpty
        resetButton.isSensitive = isChanged
    }

    /// Fits the turned photo in the canvas, clear of the controls above and below.
    private func layOut() {
        guard let shown else { return }
        let width = Double(canvas.width), height = Double(canvas.height)
        let size = turnedSize
        guard width > 0, height > 0, size.width > 0, size.height > 0 else { return }
        let (top, bottom, side) = (72.0, 88.0, 32.0)
        let scale = max(0.001, min((width - 2 * side) / size.width, (height - top - bottom) / size.height))
        let drawn = (width: size.width * scale, height: size.height * scale)
        view = (x: (width - drawn.width) / 2, y: top + (height - top - bottom - drawn.height) / 2, scale: scale)
        canvas.setPhoto(shown.texture, in: CropFrame(x: view.x, y: view.y, width: drawn.width, height: drawn.height))
        showFrame(thirds: drag != nil)
    }

    private func showFrame(thirds: Bool) {
        let f = state.frame
        canvas.setFrame(
            CropFrame(
                x: view.x + f.x * view.scale, y: view.y + f.y * view.scale, width: f.width * view.scale,
                height: f.height * view.scale),
            thirds: thirds)
    }

    // MARK: Saving

    /// Saves as `mode` says, off the main thread; the editor closes once saved, and a toast
    /// says where.
    private func save(_ mode: EditSaving.Mode) {
        guard let subject, !saving else { return }
        guard isChanged else {
            host.showToast(tr("Nothing to save: the photo is as it was"), button: nil)
            return
        }
        saving = true
        lastMode = mode
        for button in buttons { button.isSensitive = false }
        let edit = edit, began = Trace.shared.now, session = session
        let edited = tr("edited")
        Thread.detachNewThread {
            let result = EditSaving.save(subject.path, edit: edit, mode: mode, edited: edited)
            MainLoop.onMainActor { [weak self] in
                self?.saved(result, subject: subject, since: began, session: session)
            }
        }
    }

    /// A save finished: said in a toast, and the editor closes, if it is still the session
    /// that saved.
    private func saved(
        _ result: Result<EditSaving.Saved, PhotoFileFailure>, subject: Subject, since: Double, session: Int
    ) {
        saving = false
        for button in buttons { button.isSensitive = true }
        defer { show() }
        switch result {
        case .failure(let failure):
            Trace.shared.emit(.editFailed(id: subject.id, error: failure.message))
            host.showToast(String(format: tr("Could not save: %@"), failure.localizedMessage), button: nil)
        case .success(let saved):
            Trace.shared.emit(
                .editSaved(
                    id: subject.id, path: saved.path, lossless: saved.lossless, w: saved.outcome.kept.width,
                    h: saved.outcome.kept.height, ms: (Trace.shared.now - since) * 1000))
            let name = (saved.path as NSString).lastPathComponent
            var message =
                saved.trashed != nil
                ? String(format: tr("Saved “%@”; the original is in the trash"), name)
                : String(format: tr("Saved as “%@”"), name)
            let moved = saved.outcome.cornerMoved + saved.outcome.edgeDropped
            if moved > 0 {
                // TRANSLATORS: after a JPEG was cropped without encoding it again; %@ is a number
                message +=
                    " " + String(format: tr("(the crop moved %@ px to the JPEG's blocks)"), Localization.number(moved))
            }
            host.photoEdited(saved, message: message)
            if session == self.session { close() }
        }
    }
}
