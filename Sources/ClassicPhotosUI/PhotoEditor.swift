import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The photo editor, over the viewer (E): turn, flip and straighten the photo, crop it with a
/// frame held to a shape or free, undo and redo, and keep the result as a copy beside the
/// photo or in its place (the original to the trash). A JPEG is saved without decoding it
/// (`LosslessJPEG`) unless straightened (`StraightenedJPEG`); what the screen shows is the
/// viewer's screen-size picture, turned as the edit says, so every change redraws at once
/// whatever the photo's size.
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
        /// A RAW file: never written, its edit saved as a JPEG copy (of its camera's preview,
        /// the picture shown).
        var raw = false
    }

    /// What Undo and Redo step through.
    struct State: Equatable {
        var turn = PictureTurn.upright
        /// Degrees the turned photo is turned about its centre, clockwise.
        var straighten = 0.0
        /// In the turned photo's pixels, inside what stays of it once straightened.
        var frame: CropFrame
    }

    let root: Widget<Overlay>
    private let ui = UIFile("editor")
    let canvas = Widget<CropCanvas>.make()
    private let title: Widget<Label>
    /// "Saving…" with a spinner, shown when a save takes a moment.
    let savingShown: Widget<Box>, savingSpinner: Widget<Spinner>
    let portrait: Widget<ToggleButton>
    /// The crop's shape, chosen in its popover.
    let shapeMenu: Widget<MenuButton>
    let buttons: [Widget<Button>]
    private let undoButton: Widget<Button>
    private let redoButton: Widget<Button>
    private let resetButton: Widget<Button>
    /// The straightening slider (JPEG photos only).
    let straightenScale: Widget<Scale>
    private let straightenValue: Widget<Label>
    /// On: a drag draws a line along what should be level, and straightens the photo by it.
    let levelButton: Widget<ToggleButton>
    /// The line being drawn (canvas coordinates): where it began, and where it is now.
    var levelLine: (from: (x: Double, y: Double), to: (x: Double, y: Double))?
    /// The slider is being set to the state's angle (not moved by the person).
    private var settingScale = false
    /// The slider's moves since the last other change make one step of Undo; it closes once
    /// the slider has been still for a moment.
    var straightenStepOpen = false
    private lazy var straightenPause = Debounce.onMainActor { [weak self] in self?.straighteningPaused() }
    lazy var savingSlow = Debounce.onMainActor { [weak self] in self?.showSaving(true) }
    /// The question asked before changes are dropped (or whether to save elsewhere), while it
    /// is open.
    var question: (owner: AnyObject, connections: [SignalConnection])?
    /// The file chooser of Save As, while it is open.
    var chooser: (object: ObjectRef<GObject>, connection: SignalConnection)?
    private var shapeButtons: [(CropShape, Widget<ToggleButton>)] = []
    private var connections: [SignalConnection] = []
    unowned let host: any PhotoViewerHost

    private(set) var subject: Subject?
    var state = State(frame: CropFrame(x: 0, y: 0, width: 0, height: 0))
    private var undoStack: [State] = []
    private var redoStack: [State] = []
    private var shape = CropShape.free
    /// How Ctrl+S saves: as the last save did (a copy, to begin with).
    var lastMode = EditSaving.Mode.copy
    /// The picture turned as `state.turn` says, at the size it is drawn (device pixels), and
    /// its texture.
    private var shown: (turn: PictureTurn, width: Int, height: Int, texture: ObjectRef<GObject>)?
    /// Where the photo is drawn on the canvas, and at what scale (canvas points per photo pixel).
    private var view = (x: 0.0, y: 0.0, scale: 1.0)
    /// The drag under way: what it holds, and the frame when it began.
    private var drag: (handle: CropFrame.Handle, start: CropFrame)?
    var saving = false
    /// Counts the times the editor opened: a save finishing after its session ended (the viewer
    /// closed, the photo went) does not close the one opened since.
    var session = 0
    /// The editor closed (saved, or left): the viewer takes the keys back.
    var onClose: (() -> Void)?

    var isOpen: Bool { subject != nil }

    init(host: any PhotoViewerHost) {
        self.host = host
        root = ui.widget("root")
        title = ui.widget("title")
        savingShown = ui.widget("saving")
        savingSpinner = ui.widget("saving-spinner")
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
        straightenScale = ui.widget("straighten")
        straightenValue = ui.widget("straighten-value")
        levelButton = ui.widget("level")
        connections.append(levelButton.connect("toggled") { [unowned self] in canvas.grabFocus() })
        straightenScale.addMark(0, text: nil)
        connections.append(
            straightenScale.connect("value-changed") { [unowned self] in
                if !settingScale { straighten(to: (straightenScale.value * 10).rounded() / 10) }
            })
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
        straightenStepOpen = false
        levelButton.isActive = false
        title.setText(subject.name)
        // A RAW file is not saved over: Save as Copy alone, which makes a JPEG.
        ui.widget("save-replace", as: Button.self).isVisible = !subject.raw
        ui.widget("save-copy", as: Button.self).setTooltip(
            subject.raw
                ? tr("Save as a JPEG beside the RAW file (Ctrl+S)") : tr("Save as a new photo beside this one (Ctrl+S)")
        )
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
        if let open = chooser { Handle<FileChooserNative>(open.object).destroy() }
        chooser = nil
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

    var isChanged: Bool { edit.isEmpty == false }

    /// What stays of the turned photo once straightened (all of it, straight), in its pixels.
    private func room(for degrees: Double) -> CropFrame {
        let size = turnedSize
        return CropFrame(StraightenedJPEG.inscribed(width: Int(size.width), height: Int(size.height), degrees: degrees))
    }

    /// The edit as saved: the turn, the straightening, and the crop unless it keeps all that
    /// stays.
    var edit: PhotoEdit {
        let crop = state.frame.pixels
        return PhotoEdit(
            turn: state.turn, straighten: state.straighten,
            crop: crop == room(for: state.straighten).pixels ? nil : crop)
    }

    // MARK: Changes

    private func change(_ body: (inout State) -> Void) {
        guard subject != nil, !saving else { return }
        drag = nil
        straightenStepOpen = false
        var next = state
        body(&next)
        guard next != state else { return }
        undoStack.append(state)
        redoStack.removeAll()
        state = next
        show()
    }

    func turn(clockwise: Bool) {
        let size = turnedSize
        change { state in
            state.frame = state.frame.turned(PictureTurn(quarterTurns: clockwise ? 1 : 3), in: size)
            state.turn = state.turn.turned(clockwise: clockwise)
        }
    }

    func flip(vertically: Bool) {
        let size = turnedSize
        change { state in
            state.frame = state.frame.turned(PictureTurn(mirrored: true, quarterTurns: vertically ? 2 : 0), in: size)
            state.turn = state.turn.flipped(vertically: vertically)
            // A mirror turns the straightening the other way.
            state.straighten = -state.straighten
        }
    }

    /// The slider moved to `degrees`: the photo turns under the frame, which keeps to what
    /// stays inside (a frame holding all that stayed goes on holding all of it).
    func straighten(to degrees: Double) {
        guard subject != nil, !saving, degrees != state.straighten else { return }
        let before = room(for: state.straighten), after = room(for: degrees)
        let ratio = ratio
        var next = state
        next.straighten = degrees
        next.frame =
            state.frame == before || state.frame == before.held(to: ratio ?? 1) && ratio != nil
            ? (ratio.map { after.held(to: $0) } ?? after) : state.frame.kept(inside: after, ratio: ratio)
        if straightenStepOpen {
            state = next
            show()
        } else {
            change { $0 = next }
            straightenStepOpen = true
        }
        straightenPause.schedule(afterMilliseconds: 700)
        showFrame(thirds: false)
    }

    /// The slider has been still a moment: its next move is a new step of Undo, and the fine
    /// grid goes.
    private func straighteningPaused() {
        straightenStepOpen = false
        showFrame(thirds: drag != nil)
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

    func nudge(dx: Double, dy: Double, corner: Bool) {
        let step = 10 / view.scale
        let room = room(for: state.straighten)
        let ratio = ratio
        change { state in
            state.frame = state.frame.dragged(
                corner ? .bottomRight : .inside, dx: dx * step, dy: dy * step, bounds: room, ratio: ratio)
        }
    }

    func undo() {
        guard !saving, let previous = undoStack.popLast() else { return }
        drag = nil
        straightenStepOpen = false
        redoStack.append(state)
        state = previous
        show()
    }

    func redo() {
        guard !saving, let next = redoStack.popLast() else { return }
        drag = nil
        straightenStepOpen = false
        undoStack.append(state)
        state = next
        show()
    }

    func reset() {
        guard let subject else { return }
        let whole = CropFrame(x: 0, y: 0, width: Double(subject.width), height: Double(subject.height))
        change { $0 = State(frame: whole) }
    }

    // MARK: Dragging the frame

    private func beginDrag(atX x: Double, y: Double) {
        if levelButton.isActive { return beginLevel(atX: x, y: y) }
        let point = (x: (x - view.x) / view.scale, y: (y - view.y) / view.scale)
        guard !saving, let handle = state.frame.handle(atX: point.x, y: point.y, reach: 14 / view.scale) else {
            drag = nil
            return
        }
        drag = (handle, state.frame)
        canvas.grabFocus()
    }

    private func continueDrag(dx: Double, dy: Double) {
        if levelLine != nil { return continueLevel(dx: dx, dy: dy) }
        guard let drag, !saving else { return }
        state.frame = drag.start.dragged(
            drag.handle, dx: dx / view.scale, dy: dy / view.scale, bounds: room(for: state.straighten), ratio: ratio)
        showFrame(thirds: true)
    }

    private func endDrag() {
        if levelLine != nil { return endLevel() }
        guard let drag else { return }
        self.drag = nil
        let moved = state.frame
        state.frame = drag.start
        change { $0.frame = moved }
        showFrame(thirds: false)
    }

    // MARK: Drawing

    /// Shows the state: the photo turned and straightened, the frame, and which buttons can act.
    func show() {
        guard subject != nil else { return }
        canvas.setAngle(state.straighten)
        // TRANSLATORS: the straightening's angle; %@ is a number of degrees, as "3.5"
        straightenValue.setText(String(format: tr("%@°"), Localization.decimal(state.straighten)))
        if straightenScale.value != state.straighten {
            settingScale = true
            straightenScale.value = state.straighten
            settingScale = false
        }
        layOut()
        undoButton.isSensitive = !undoStack.isEmpty
        redoButton.isSensitive = !redoStack.isEmpty
        resetButton.isSensitive = isChanged
    }

    /// Fits the turned photo in the canvas, clear of the controls above and below.
    private func layOut() {
        guard let subject else { return }
        let width = Double(canvas.width), height = Double(canvas.height)
        let size = turnedSize
        guard width > 0, height > 0, size.width > 0, size.height > 0 else { return }
        let (top, bottom, side) = (72.0, 120.0, 32.0)
        let scale = max(0.001, min((width - 2 * side) / size.width, (height - top - bottom) / size.height))
        let drawn = (width: size.width * scale, height: size.height * scale)
        view = (x: (width - drawn.width) / 2, y: top + (height - top - bottom - drawn.height) / 2, scale: scale)
        // The picture made the size it is drawn at, turned (again only when the turn or that
        // size changed): GTK's cairo renderer turns a texture drawn at its own size at bilinear
        // speed, and a larger one, scaled as it turned, took 40 to 250 ms a frame.
        let factor = Double(canvas.scaleFactor)
        let pixels = (width: Int((drawn.width * factor).rounded()), height: Int((drawn.height * factor).rounded()))
        if shown.map({ $0.turn != state.turn || $0.width != pixels.width || $0.height != pixels.height }) ?? true {
            let turned = subject.picture.oriented(state.turn.exifOrientation)
            let fitted =
                turned.width > pixels.width && pixels.width > 0 && pixels.height > 0
                ? (try? ImageDecoder.scaled(turned, width: pixels.width, height: pixels.height)) ?? turned : turned
            shown = (state.turn, pixels.width, pixels.height, DisplayColours.shared.texture(for: fitted))
        }
        canvas.setPhoto(
            shown?.texture, in: CropFrame(x: view.x, y: view.y, width: drawn.width, height: drawn.height))
        showFrame(thirds: drag != nil)
    }

    /// Shows the frame: with thirds while it is dragged, a finer grid to level the photo by
    /// while the slider moves.
    private func showFrame(thirds: Bool) {
        let f = state.frame
        canvas.setTurning(straightenPause.isPending)
        canvas.setFrame(
            CropFrame(
                x: view.x + f.x * view.scale, y: view.y + f.y * view.scale, width: f.width * view.scale,
                height: f.height * view.scale),
            divisions: straightenPause.isPending ? 8 : thirds ? 3 : 0)
    }
}
