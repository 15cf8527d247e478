import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// What the compare view needs from the window it opens in.
@MainActor
protocol PhotoCompareHost: AnyObject {
    var window: Widget<ApplicationWindow> { get }
    /// The compare view opened: the list's own actions wait.
    func compareOpened()
    /// The compare view closed: the keys go back to the list.
    func compareClosed()
}

/// Two to four photos side by side, over the dimmed list, to pick the best of a burst: each
/// fitted in a pane of its own, and zoomed and panned together (a zoom or a drag in one pane
/// shows the same part of every photo at the same zoom). Stars, rejects and labels go to the
/// photo under the pointer, or else the one framed (Tab and the arrow keys move the frame).
/// Escape returns to the list, its selection as it was. Photos are loaded through the viewer's
/// pipeline at the size of a pane, and again, larger, when zooming in asks for it.
@MainActor
final class PhotoCompare {
    /// The most photos compared at once.
    static let maxPhotos = 4

    /// One compared photo.
    @MainActor
    final class Pane {
        let id: PhotoID
        let root = Widget<Overlay>.make()
        let zooming: ZoomingPicture
        let caption = Widget<Box>.make(GTK_ORIENTATION_HORIZONTAL, spacing: 8)
        let name = Widget<Label>.make()
        let marks = MarksBadge(osd: false, wordy: false)
        let spinner = Widget<Spinner>.make()
        var request: ViewerPipeline.Request?
        var picture: ViewerPicture?
        var shown: PhotoImage?
        var texture: ObjectRef<GObject>?
        var connections: [SignalConnection] = []

        init(id: PhotoID, fading: Widget<Overlay>) {
            self.id = id
            zooming = ZoomingPicture(fading: fading)
        }
    }

    unowned let host: any PhotoCompareHost
    private let processor: PhotoProcessor
    private let pipeline: ViewerPipeline
    private let ui = UIFile("compare")
    /// An overlay child of the list's area, hidden until the view opens.
    let root: Widget<Overlay>
    private let rows: Widget<Box>
    private let title: Widget<Label>
    private var panes: [Pane] = []
    /// The pane framed, and the one under the pointer.
    private var framed = 0
    private var hovered: Int?
    /// While one pane's zoom is given to the others.
    private var following = false
    private var connections: [SignalConnection] = []
    /// Decodes again, larger, once zooming pauses.
    private lazy var redecoding = Debounce.onMainActor { [weak self] in self?.decodeLarger() }

    private(set) var isOpen = false

    init(host: any PhotoCompareHost, processor: PhotoProcessor, photos: PhotoList) {
        self.host = host
        self.processor = processor
        pipeline = processor.makeViewerPipeline()
        root = ui.widget("root")
        rows = ui.widget("rows")
        title = ui.widget("title")
        connections.append(ui.widget("close", as: Button.self).connect("clicked") { [unowned self] in close() })
        let keys = Handle<KeyController>.make()
        keys.setPropagationPhase(GTK_PHASE_CAPTURE)
        connections.append(
            keys.onKeyPressed { [unowned self] keyval, _, state in
                guard isOpen else { return false }
                return key(keyval, control: state & GDK_CONTROL_MASK.rawValue != 0)
            })
        host.window.addController(keys)
        // A photo compared that leaves the list (trashed, or the list replaced) ends the view.
        _ = photos.observe(didApply: { [unowned self, unowned photos] change in
            guard isOpen else { return }
            switch change.edit {
            case .replaceAll: return close()
            case .replace:
                // A photo rewritten (turned): loaded again.
                for pane in panes where change.replaced.contains(pane.id) { reload(pane) }
            default: break
            }
            if panes.contains(where: { photos.wholePosition(of: $0.id) == nil }) { close() }
        })
        processor.observePhotos { [unowned self] snapshot in
            guard isOpen, let pane = panes.first(where: { $0.id == snapshot.id }) else { return }
            pane.marks.show(snapshot.marks ?? .none)
        }
    }

    // MARK: Opening and closing

    /// Shows `ids` (2 to 4 photos) side by side.
    func open(_ ids: [PhotoID]) {
        guard (2...Self.maxPhotos).contains(ids.count) else { return }
        closePanes()
        isOpen = true
        root.isVisible = true
        title.setText(String(format: ntr("Comparing %d Photo", "Comparing %d Photos", ids.count), ids.count))
        // Side by side; four in two rows of two.
        let perRow = ids.count == 4 ? 2 : ids.count
        var row: Widget<Box>?
        for (n, id) in ids.enumerated() {
            if n % perRow == 0 {
                let made = Widget<Box>.make(GTK_ORIENTATION_HORIZONTAL, spacing: 6)
                made.setHomogeneous(true)
                rows.append(made)
                row = made
            }
            let pane = makePane(id, index: n)
            row?.append(pane.root)
            panes.append(pane)
        }
        framed = 0
        hovered = nil
        Trace.shared.emit(.compareOpen(count: ids.count))
        let side = paneSide(rows: ids.count == 4 ? 2 : 1, columns: perRow)
        for pane in panes { load(pane, side: side, known: nil) }
        frame(0)
        host.compareOpened()
    }

    /// Closes the view: its loads are cancelled, the keys go back to the list.
    func close() {
        guard isOpen else { return }
        isOpen = false
        closePanes()
        root.isVisible = false
        Trace.shared.emit(.compareClose)
        host.compareClosed()
    }

    private func closePanes() {
        redecoding.cancel()
        for pane in panes {
            pane.request?.cancel()
            pane.connections.removeAll()
        }
        panes.removeAll()
        rows.removeAll()
    }

    /// The photo stars and marks go to: the one under the pointer, else the one framed.
    var targetPhoto: PhotoID? {
        guard isOpen else { return nil }
        let index = hovered ?? framed
        return panes.indices.contains(index) ? panes[index].id : nil
    }

    /// The photos compared (a photo among them that leaves the list closes the view).
    var photoIDs: [PhotoID] { isOpen ? panes.map(\.id) : [] }

    /// Lets go of everything (the window is closing).
    func shutDown() {
        isOpen = false
        closePanes()
        connections.removeAll()
    }

    // MARK: Panes

    private func makePane(_ id: PhotoID, index: Int) -> Pane {
        let pane = Pane(id: id, fading: root)
        pane.root.addCSSClass("compare-pane")
        pane.root.setChild(pane.zooming.widget)
        pane.zooming.widget.setAccessibleLabel(tr("Photo"), description: tr("A photo compared"))
        pane.spinner.setSizeRequest(width: 32, height: 32)
        pane.spinner.setHorizontalAlign(GTK_ALIGN_CENTER)
        pane.spinner.setVerticalAlign(GTK_ALIGN_CENTER)
        pane.spinner.canTarget = false
        pane.spinner.isSpinning = true
        pane.root.addOverlay(pane.spinner)
        let snapshot = processor.snapshot(of: id)
        pane.name.setText(snapshot?.name ?? "")
        pane.name.ellipsize(atChars: 40)
        pane.caption.append(pane.name)
        pane.caption.append(pane.marks.root)
        pane.marks.show(snapshot?.marks ?? .none)
        pane.caption.addCSSClass("osd")
        pane.caption.addCSSClass("compare-caption")
        pane.caption.setHorizontalAlign(GTK_ALIGN_CENTER)
        pane.caption.setVerticalAlign(GTK_ALIGN_END)
        pane.caption.setMargin(8)
        pane.caption.canTarget = false
        pane.root.addOverlay(pane.caption)
        processor.wantMarks(of: id)
        pane.zooming.onZoomChanged = { [unowned self] in follow(index) }
        pane.zooming.onPanned = { [unowned self] in follow(index) }
        let motion = Handle<MotionController>.make()
        pane.connections.append(motion.onEnter { [unowned self] _, _ in hover(index) })
        // A pane that opened under a pointer at rest gets no "enter": its first move counts.
        pane.connections.append(motion.onMotion { [unowned self] _, _ in if hovered != index { hover(index) } })
        pane.connections.append(motion.connect("leave") { [unowned self] in if hovered == index { hover(nil) } })
        pane.root.addController(motion)
        return pane
    }

    private func hover(_ index: Int?) {
        let before = targetPhoto
        hovered = index
        if let id = targetPhoto, id != before { Trace.shared.emit(.compareFocus(id: id)) }
    }

    /// Frames the pane at `index` (the keys' photo when the pointer is over none).
    private func frame(_ index: Int) {
        guard panes.indices.contains(index) else { return }
        panes[framed].root.removeCSSClass("framed")
        framed = index
        panes[index].root.addCSSClass("framed")
        panes[index].zooming.widget.grabFocus()
        if hovered == nil || hovered == index { Trace.shared.emit(.compareFocus(id: panes[index].id)) }
    }

    /// Gives keyboard focus back to the framed pane (a menu or popover over the view closed).
    func grabFocus() {
        if panes.indices.contains(framed) { panes[framed].zooming.widget.grabFocus() }
    }

    /// The longest side of a pane, in device pixels, for `rows` × `columns` panes.
    private func paneSide(rows: Int, columns: Int) -> Int {
        let window = host.window
        let area = root.parent ?? window.anyWidget
        let width = Int(max(area.width, window.width)) / columns
        let height = (Int(max(area.height, window.height)) - 70) / rows
        return max(1, max(width, height)) * Int(max(1, root.scaleFactor))
    }

    // MARK: Keys

    /// The view's own keys: Escape, the frame (Tab, arrows), zoom (+, −, Ctrl+0, Ctrl+1).
    /// Stars, rejects and labels are the window's actions, which act on `targetPhoto`.
    private func key(_ keyval: UInt32, control: Bool) -> Bool {
        let lead = panes.indices.contains(framed) ? panes[framed].zooming : nil
        switch Int32(keyval) {
        case GDK_KEY_Escape: close()
        case GDK_KEY_Tab, GDK_KEY_Right, GDK_KEY_KP_Right:
            frame((framed + 1) % max(1, panes.count))
        case GDK_KEY_ISO_Left_Tab, GDK_KEY_Left, GDK_KEY_KP_Left:
            frame((framed + panes.count - 1) % max(1, panes.count))
        case GDK_KEY_plus, GDK_KEY_equal, GDK_KEY_KP_Add: lead?.zoom(by: ZoomGeometry.zoomStep)
        case GDK_KEY_minus, GDK_KEY_KP_Subtract: lead?.zoom(by: 1 / ZoomGeometry.zoomStep)
        case GDK_KEY_0 where control, GDK_KEY_KP_0 where control: lead?.fit()
        case GDK_KEY_1 where control, GDK_KEY_KP_1 where control: lead?.setZoom(1)
        default: return false
        }
        return true
    }

    // MARK: Zoomed and panned together

    /// Pane `index` was zoomed or panned: every other pane shows the same part of its photo
    /// at the same zoom (fitted, when it is).
    private func follow(_ index: Int) {
        guard !following, panes.indices.contains(index), panes[index].picture != nil else { return }
        following = true
        defer { following = false }
        let lead = panes[index].zooming
        for (n, pane) in panes.enumerated() where n != index && pane.picture != nil {
            if lead.isFit {
                pane.zooming.fit()
            } else {
                pane.zooming.setZoom(lead.zoom)
                pane.zooming.center(onFraction: lead.geometry.centerFraction)
            }
        }
        for pane in panes where pane.picture != nil {
            let centre = pane.zooming.geometry.centerFraction
            Trace.shared.emit(.compareView(id: pane.id, level: pane.zooming.zoom, x: centre.x, y: centre.y))
        }
        redecoding.schedule(afterMilliseconds: 150)
    }

    // MARK: Loading

    private func reload(_ pane: Pane) {
        pane.picture = nil
        pane.zooming.setImageSize(width: 0, height: 0)
        pane.zooming.setPaintable(nil)
        pane.spinner.isVisible = true
        pane.spinner.isSpinning = true
        let perRow = panes.count == 4 ? 2 : panes.count
        load(pane, side: paneSide(rows: panes.count == 4 ? 2 : 1, columns: perRow), known: nil)
    }

    private func load(_ pane: Pane, side: Int, known: ViewerBytes?) {
        pane.request?.cancel()
        pane.request = pipeline.load(pane.id, wantedSide: side, known: known, urgent: true) {
            [weak self, weak pane] event in
            guard let self, let pane else { return }
            switch event {
            case .preview(let preview):
                guard pane.picture == nil else { return }
                pane.zooming.setImageSize(width: preview.info.width, height: preview.info.height)
                show(preview.sepia, state: .preview, in: pane)
            case .motionClip, .facts: break // compared as stills, without the details panel
            case .decoded(let picture):
                let first = pane.picture == nil
                // Sized before it counts as loaded: a fitted newcomer does not fit the others.
                if first { pane.zooming.setImageSize(width: picture.info.width, height: picture.info.height) }
                pane.picture = picture
                // A larger decode keeps the sepia picture shown until its own sepia is ready.
                if first { show(picture.original, state: .original, in: pane) }
            case .filtered(let sepia):
                show(sepia.image, state: .filtered, in: pane)
            case .failed(let failure):
                pane.spinner.isSpinning = false
                pane.spinner.isVisible = false
                if pane.picture == nil {
                    pane.name.setText((processor.snapshot(of: pane.id)?.name ?? "") + " — " + failure.localizedSummary)
                }
            }
        }
    }

    private func show(_ image: PhotoImage, state: ViewerImageState, in pane: Pane) {
        pane.shown = image
        pane.texture = DisplayColours.shared.texture(for: image)
        pane.zooming.setPaintable(pane.texture)
        pane.spinner.isSpinning = false
        pane.spinner.isVisible = false
        Trace.shared.emit(.compareImage(id: pane.id, w: image.width, h: image.height, state: state))
        // A pane that came after the others were zoomed joins them.
        if state != .preview, let lead = panes.firstIndex(where: { $0 !== pane && $0.picture != nil }) {
            follow(lead)
        }
    }

    /// Zoomed in past what was decoded: each pane decodes again, larger, from its bytes.
    private func decodeLarger() {
        for pane in panes {
            guard let picture = pane.picture, pane.request?.isBusy != true,
                let side = ViewerLimits.largerDecodeSide(
                    width: picture.info.width, height: picture.info.height,
                    decoded: max(picture.original.width, picture.original.height), zoom: pane.zooming.zoom)
            else { continue }
            load(pane, side: side, known: ViewerBytes(bytes: picture.bytes, info: picture.info))
        }
    }
}
