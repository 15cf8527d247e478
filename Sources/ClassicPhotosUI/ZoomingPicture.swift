import CGLib
import CGtk
import GLibKit
import GtkKit
import PhotoPipeline

/// The viewer's picture: a photo that zooms and pans.
///
/// `ZoomGeometry` holds the rules; this class feeds it the widget's size and scale and the
/// user's gestures, and tells the widget (`CpZoomPicture`, a small drawing widget in C) where
/// to draw the picture. Ctrl+wheel and a pinch zoom around the pointer, the wheel alone pans a
/// zoomed picture, a double-click switches between fit and 100 %, a drag pans a zoomed picture,
/// and a sideways drag of a picture that cannot pan turns the page. It also plays the viewer's
/// entrance and exit: the picture grows into place as `fading` fades in.
@MainActor
final class ZoomingPicture {
    typealias Point = ZoomGeometry.Point

    /// The zoom changed: a gesture, a key, a new picture, or a fitted picture given more or
    /// less room.
    var onZoomChanged: (() -> Void)?
    /// A drag or the wheel moved a zoomed picture (`center` says where to).
    var onPanned: (() -> Void)?
    /// A sideways drag of a picture that does not pan: +1 asks for the next photo, −1 for the
    /// previous one.
    var onSwipe: ((Int) -> Void)?

    private let picture: ObjectRef<GtkWidget>
    private let fading: Widget<Overlay>
    private(set) var geometry = ZoomGeometry()
    /// Where the widget was last told to draw the image.
    private var drawn = ZoomGeometry.Rect.zero
    /// The zoom last reported through `onZoomChanged`; nil while there is no picture, so the
    /// next picture's zoom is news.
    private var reportedZoom: Double?
    /// The pointer over the picture, which Ctrl+wheel zooms around.
    private var pointer: Point?
    private var pinchStartZoom = 1.0
    /// The drag under way: the centre it began at, and whether it pans (or may be a swipe).
    private var drag: (start: Point, pans: Bool, claimed: Bool)?
    private var doubleClick = DoubleClick()
    private var connections: [SignalConnection] = []
    private var reveal: (owner: ObjectRef<GObject>, animation: Handle<TimedAnimation>, done: SignalConnection)?
    private var revealFinished: (() -> Void)?

    /// The entrance's length; the exit takes the same.
    static let revealMilliseconds: UInt32 = 200

    /// A picture whose entrance fades `fading` (the viewer as a whole) in.
    init(fading: Widget<Overlay>) {
        let made = Widget<ZoomPicture>.make()
        picture = ObjectRef(sinking: made.widget)
        widget = made
        self.fading = fading
        keep(
            widget.connect("resized") { [unowned self] in
                sizeChanged()
            })
        keep(
            widget.onNotify("scale-factor") { [unowned self] in
                sizeChanged()
            })
        addPointerTracking()
        addScrolling()
        addPinch()
        addDoubleClick()
        addDrag()
    }

    /// The widget, to put in the viewer.
    let widget: Widget<ZoomPicture>

    // MARK: What the viewer asks

    /// The picture drawn over the whole image's area (nil: nothing). Zoom and pan stay.
    func setPaintable(_ paintable: ObjectRef<GObject>?) {
        widget.setPaintable(paintable)
    }

    /// The image's own size in pixels (what 100 % means); a new size goes back to fit.
    func setImageSize(width: Int, height: Int) {
        change { $0.setImageSize(ZoomGeometry.Size(width: Double(width), height: Double(height))) }
    }

    /// Fits the whole photo in the view, and follows the view's size from now on.
    func fit() { change { $0.fit() } }

    var isFit: Bool { geometry.isFit }
    /// The zoom now (screen pixels per image pixel: 1 is 100 %), and the zoom that fits.
    var zoom: Double { geometry.zoom }
    var fitZoom: Double { geometry.fitZoom }
    /// The image point at the view's centre, in image pixels.
    var center: Point { geometry.center }
    /// Whether the picture is larger than the view, so a drag pans it.
    var canPan: Bool { geometry.canPan }

    /// Sets the zoom, keeping the image point under `point` (widget coordinates) where it is;
    /// nil zooms around the centre.
    func setZoom(_ zoom: Double, around point: Point? = nil) {
        change { $0.setZoom(zoom, around: point) }
    }

    /// Shows the same part of the image as another picture whose centre is at `fraction` of
    /// its width and height (compared photos panned together).
    func center(onFraction fraction: Point) {
        change { $0.center(onFraction: fraction) }
    }

    /// Multiplies the zoom by `factor`, around the centre (keys, buttons).
    func zoom(by factor: Double) {
        change { $0.zoom(by: factor) }
    }

    /// Fit, or 100 % if fitting shrinks the photo (the zoom label's button).
    func toggleFitAndActualSize() {
        change { $0.toggleFitAndActualSize() }
    }

    // MARK: Geometry to the widget

    private func sizeChanged() {
        change {
            $0.setViewSize(ZoomGeometry.Size(width: Double(widget.width), height: Double(widget.height)))
            $0.setDeviceScale(Double(widget.scaleFactor))
        }
    }

    /// Changes the geometry, then tells the widget where to draw and the viewer whether the
    /// zoom changed.
    private func change(_ body: (inout ZoomGeometry) -> Void) {
        body(&geometry)
        geometryChanged()
    }

    /// Moves the picture; tells the viewer if it moved.
    private func pan(_ body: (inout ZoomGeometry) -> Bool) {
        let moved = body(&geometry)
        geometryChanged()
        if moved { onPanned?() }
    }

    private func geometryChanged() {
        let rect = geometry.imageRect
        if rect != drawn {
            drawn = rect
            widget.setView(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        }
        guard geometry.hasImage else {
            reportedZoom = nil
            return
        }
        let zoom = geometry.zoom
        if let reportedZoom, abs(zoom - reportedZoom) <= 1e-9 { return }
        reportedZoom = zoom
        onZoomChanged?()
    }

    // MARK: Gestures

    /// Keeps a signal connection for as long as the picture lives.
    private func keep(_ connection: SignalConnection) {
        connections.append(connection)
    }

    private func addPointerTracking() {
        let motion = Handle<MotionController>.make()
        keep(motion.onEnter { [unowned self] x, y in pointer = Point(x: x, y: y) })
        keep(motion.onMotion { [unowned self] x, y in pointer = Point(x: x, y: y) })
        widget.addController(motion)
    }

    /// Ctrl+wheel zooms around the pointer (a notch by a quarter, smooth scrolling in
    /// proportion); the wheel alone pans a picture larger than the view, and otherwise goes on
    /// to the widgets behind.
    private func addScrolling() {
        let scroll = Handle<ScrollController>.make(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES)
        keep(
            scroll.onScroll { [unowned self] dx, dy in
                if scroll.currentModifiers.rawValue & GDK_CONTROL_MASK.rawValue != 0 {
                    change { $0.zoom(by: ZoomGeometry.wheelZoomFactor(dy: dy), around: pointer) }
                    return true
                }
                guard geometry.canPan else { return false }
                let step = scroll.unit == GDK_SCROLL_UNIT_WHEEL ? ZoomGeometry.wheelPanDistance : 1
                pan { $0.pan(dx: dx * step, dy: dy * step) }
                return true
            })
        widget.addController(scroll)
    }

    /// A pinch zooms from the zoom it began at, around the fingers' centre.
    private func addPinch() {
        let pinch = Handle<GestureZoom>.make()
        keep(pinch.onBegin { [unowned self] in pinchStartZoom = geometry.zoom })
        keep(
            pinch.onScaleChanged { [unowned self] scale in
                let centre = pinch.boundingBoxCenter.map { Point(x: $0.x, y: $0.y) }
                change { $0.setZoom(pinchStartZoom * scale, around: centre) }
            })
        widget.addController(pinch)
    }

    private func addDoubleClick() {
        let click = Handle<GestureClick>.make()
        keep(
            click.onPressed { [unowned self] presses, x, y in
                // Counted by the presses' own times (GTK's count is lost when the main loop
                // stalls between them); GTK's count where the event has no time.
                let time = click.currentEventTime
                let settings = doubleClickSettings()
                doubleClick.time = settings.time
                doubleClick.distance = settings.distance
                guard time == 0 ? presses == 2 : doubleClick.press(at: time, x: x, y: y) else { return }
                change { $0.toggleFitAndActualSize(around: Point(x: x, y: y)) }
            })
        widget.addController(click)
    }

    /// A drag of a picture larger than the view pans it (and claims the drag); any other drag
    /// is judged when it ends, and may be a swipe.
    private func addDrag() {
        let gesture = Handle<GestureDrag>.make()
        keep(gesture.onDragBegin { [unowned self] _, _ in drag = (geometry.center, geometry.canPan, false) })
        keep(
            gesture.onDragUpdate { [unowned self] dx, dy in
                doubleClick.moved(dx: dx, dy: dy)
                guard let drag, drag.pans else { return }
                // Pans (and claims the press) only once it is surely a drag: a hand's tremor in
                // a double-click does not shift the photo.
                if !drag.claimed {
                    guard ZoomGeometry.isDrag(dx: dx, dy: dy) else { return }
                    gesture.claim()
                    self.drag?.claimed = true
                    doubleClick.reset()
                }
                pan { $0.pan(from: drag.start, dx: -dx, dy: -dy) }
            })
        keep(
            gesture.onDragEnd { [unowned self] dx, dy in
                guard let drag else { return }
                self.drag = nil
                if let swipe = ZoomGeometry.swipe(dx: dx, dy: dy, pans: drag.pans) { onSwipe?(swipe.step) }
            })
        widget.addController(gesture)
    }

    // MARK: Entrance and exit

    /// Grows the picture into place as the viewer fades in (`entering`), or the reverse, from
    /// wherever the last one got to, so a close during the entrance does not jump; then calls
    /// `done`. libadwaita skips to the end, calling `done` at once, when the desktop turned
    /// animations off.
    func playReveal(entering: Bool, then done: @escaping () -> Void) {
        let animation = revealAnimation()
        let value = animation.value
        animation.reset()
        animation.setValueFrom(entering ? (value < 1 ? value : 0) : value)
        animation.setValueTo(entering ? 1 : 0)
        revealFinished = done
        animation.play()
    }

    /// The reveal animation, made the first time: it drives the widget's "reveal" property,
    /// and the faded widget's opacity follows that property.
    private func revealAnimation() -> Handle<TimedAnimation> {
        if let reveal { return reveal.animation }
        widget.bind("reveal", to: fading, "opacity")
        let owner = Handle<TimedAnimation>.make(
            animating: "reveal", of: widget, on: fading, from: 0, to: 1, milliseconds: Self.revealMilliseconds)
        let animation = Handle<TimedAnimation>(owner)
        animation.setEasing(ADW_EASE_OUT_CUBIC)
        let done = animation.onDone { [unowned self] in
            let finished = revealFinished
            revealFinished = nil
            finished?()
        }
        reveal = (owner, animation, done)
        return animation
    }

    /// Lets go of the gestures and the animation (the window is closing).
    func shutDown() {
        reveal = nil
        revealFinished = nil
        connections.removeAll()
        onZoomChanged = nil
        onPanned = nil
        onSwipe = nil
    }
}
