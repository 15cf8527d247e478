import Foundation

/// Where the viewer's picture is and how large: zoom, fit and pan, as a plain value.
///
/// Three sizes meet here. The image's own size, in image pixels, says what 100 % means. The
/// view's size is in logical pixels, the units GTK lays widgets out in. The device scale is the
/// number of screen pixels per logical pixel (2 on a HiDPI screen). The zoom is in screen pixels
/// per image pixel, so 1.0 shows one image pixel on one screen pixel whatever the scale.
///
/// A fitted picture shows the whole image and follows the view's size, but is never enlarged
/// past 100 %. Any other zoom stays where it was put, within `zoomRange`. The image point at the
/// view's centre says where the view is; it is kept so the image covers the view along an axis
/// where it is larger than the view, and is centred along an axis where it is smaller.
///
/// It knows nothing of GTK: a widget feeds it sizes and gestures and draws the picture in
/// `imageRect`, and every rule can be tested directly.
public struct ZoomGeometry: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    public struct Size: Sendable, Equatable {
        public var width: Double
        public var height: Double
        public init(width: Double, height: Double) {
            self.width = width
            self.height = height
        }
        public static let zero = Size(width: 0, height: 0)
        /// True unless both sides are more than nothing.
        public var isEmpty: Bool { !(width > 0 && height > 0) }
    }

    public struct Rect: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double
        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
        public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)
    }

    /// A drag that pages: the pointer moved to the left (the next photo) or to the right (the
    /// previous one), as a finger turns a page.
    public enum Swipe: Sendable, Equatable {
        case left
        case right
        /// How far it moves in the list: +1 for the next photo, −1 for the previous.
        public var step: Int { self == .left ? 1 : -1 }
    }

    // MARK: The numbers

    /// The factor of one zoom-in step from a key or a button (one zoom-out step divides by it).
    public static let zoomStep = 1.25
    /// The factor of one Ctrl+wheel notch; a smooth-scrolling device zooms in proportion.
    public static let wheelZoomStep = 1.25
    /// How far one wheel notch pans a zoomed picture, in logical pixels.
    public static let wheelPanDistance = 60.0
    /// Zooming out stops at this fraction of the zoom that fits.
    public static let minimumZoomOfFit = 0.5
    /// Zooming in stops at 1,600 %.
    public static let maximumZoom = 16.0
    /// A drag of a picture that cannot pan pages once it goes this far sideways (logical pixels).
    public static let swipeDistance = 80.0
    /// A press on a picture that can pan becomes a drag (and no longer a click) once the
    /// pointer has gone this far (logical pixels): a hand's tremor between the two presses of
    /// a double-click stays a click.
    public static let dragDistance = 4.0

    // MARK: State

    /// The image's own size, in image pixels (zero: no picture).
    public private(set) var imageSize: Size
    /// The view's size, in logical pixels.
    public private(set) var viewSize: Size
    /// Screen pixels per logical pixel, at least 1.
    public private(set) var deviceScale: Double
    /// The image point at the view's centre, in image pixels.
    public private(set) var center: Point
    /// The zoom set by hand; nil while the picture is fitted.
    private var chosenZoom: Double?

    /// A fitted, centred picture.
    public init(imageSize: Size = .zero, viewSize: Size = .zero, deviceScale: Double = 1) {
        self.imageSize = imageSize
        self.viewSize = viewSize
        self.deviceScale = max(1, deviceScale)
        center = Point(x: imageSize.width / 2, y: imageSize.height / 2)
    }

    public var hasImage: Bool { !imageSize.isEmpty }

    /// Whether the zoom follows the view, fitting the image (never past 100 %).
    public var isFit: Bool { chosenZoom == nil }

    /// The zoom now, in screen pixels per image pixel.
    public var zoom: Double { chosenZoom ?? fitZoom }

    /// The zoom at which the whole image fits the view, at most 1 (100 %). 1 while there is
    /// no image or the view has no size yet.
    public var fitZoom: Double {
        guard hasImage, !viewSize.isEmpty else { return 1 }
        let fit = min(viewSize.width * deviceScale / imageSize.width, viewSize.height * deviceScale / imageSize.height)
        return min(fit, 1)
    }

    /// The zooms a hand-set zoom is kept within: from half the fitting zoom to `maximumZoom`.
    public var zoomRange: ClosedRange<Double> {
        fitZoom * Self.minimumZoomOfFit...Self.maximumZoom
    }

    /// Logical pixels per image pixel: how far one image pixel spans in the view.
    public var viewScale: Double { zoom / deviceScale }

    // MARK: Sizes

    /// A new image (or none, at zero size) goes back to fit, centred. The same size again
    /// changes nothing, so a sharper decode of the picture shown keeps its zoom and pan.
    public mutating func setImageSize(_ size: Size) {
        guard size != imageSize else { return }
        imageSize = size
        chosenZoom = nil
        clampCenter()
    }

    /// The view was laid out at another size; a fitted picture follows it.
    public mutating func setViewSize(_ size: Size) {
        viewSize = size
        clampCenter()
    }

    /// The view moved to a screen of another scale; a fitted picture follows it, a hand-set zoom
    /// keeps its screen pixels per image pixel (and so covers fewer logical pixels).
    public mutating func setDeviceScale(_ scale: Double) {
        deviceScale = max(1, scale)
        clampCenter()
    }

    // MARK: Zooming

    /// Fits the whole image, centred, and follows the view's size from now on.
    public mutating func fit() {
        chosenZoom = nil
        clampCenter()
    }

    /// Sets the zoom (kept within `zoomRange`), keeping the image point under `point` (view
    /// coordinates) where it is; nil zooms around the view's centre. Nothing without an image.
    public mutating func setZoom(_ zoom: Double, around point: Point? = nil) {
        guard hasImage else { return }
        let newZoom = min(max(zoom, zoomRange.lowerBound), zoomRange.upperBound)
        let anchor = point ?? Point(x: viewSize.width / 2, y: viewSize.height / 2)
        let fixed = imagePoint(at: anchor)
        chosenZoom = newZoom
        let k = viewScale
        center = Point(
            x: fixed.x - (anchor.x - viewSize.width / 2) / k,
            y: fixed.y - (anchor.y - viewSize.height / 2) / k)
        clampCenter()
    }

    /// Multiplies the zoom by `factor`, around `point` or the view's centre.
    public mutating func zoom(by factor: Double, around point: Point? = nil) {
        setZoom(zoom * factor, around: point)
    }

    /// The zoom factor of a Ctrl+wheel scroll of `dy` notches (negative: away from the user,
    /// zooming in).
    public static func wheelZoomFactor(dy: Double) -> Double {
        pow(wheelZoomStep, -dy)
    }

    /// What a double-click (or the zoom label's button) does: a fitted picture that is
    /// smaller than its image goes to 100 % around `point`; anything else fits.
    public mutating func toggleFitAndActualSize(around point: Point? = nil) {
        if isFit, abs(fitZoom - 1) > 1e-6 {
            setZoom(1, around: point)
        } else {
            fit()
        }
    }

    // MARK: Panning

    /// Whether the picture is larger than the view along either axis, so a drag or the wheel
    /// moves it (half a pixel of rounding does not count).
    public var canPan: Bool {
        let k = viewScale
        return imageSize.width * k > viewSize.width + 0.5 || imageSize.height * k > viewSize.height + 0.5
    }

    /// Moves the view over the image by `dx`, `dy` logical pixels (positive: towards the
    /// image's right and bottom edges), as far as clamping allows. True if the centre moved.
    @discardableResult
    public mutating func pan(dx: Double, dy: Double) -> Bool {
        pan(from: center, dx: dx, dy: dy)
    }

    /// Puts the view `dx`, `dy` logical pixels away from where its centre was at `start` (an
    /// image point), as far as clamping allows: a drag measures from where it began. True if
    /// the centre moved.
    @discardableResult
    public mutating func pan(from start: Point, dx: Double, dy: Double) -> Bool {
        let old = center
        let k = viewScale
        center = Point(x: start.x + dx / k, y: start.y + dy / k)
        clampCenter()
        return abs(center.x - old.x) > 1e-9 || abs(center.y - old.y) > 1e-9
    }

    /// Puts the view's centre on the image point at `fraction` of the image's width and height
    /// (0.5, 0.5: its middle), as far as clamping allows: pictures of different sizes compared
    /// side by side show the same part of each.
    public mutating func center(onFraction fraction: Point) {
        center = Point(x: fraction.x * imageSize.width, y: fraction.y * imageSize.height)
        clampCenter()
    }

    /// The view's centre as a fraction of the image's width and height.
    public var centerFraction: Point {
        guard hasImage else { return Point(x: 0.5, y: 0.5) }
        return Point(x: center.x / imageSize.width, y: center.y / imageSize.height)
    }

    // MARK: Drawing

    /// The image point under `point`, a point of the view.
    public func imagePoint(at point: Point) -> Point {
        let k = viewScale
        return Point(
            x: center.x + (point.x - viewSize.width / 2) / k, y: center.y + (point.y - viewSize.height / 2) / k)
    }

    /// Where the whole image is drawn, in the view's coordinates (parts of it may lie outside
    /// the view). Its corner sits on a whole screen pixel, so a picture at 100 % is sharp.
    /// Zero while there is no image.
    public var imageRect: Rect {
        guard hasImage else { return .zero }
        let k = viewScale
        let x = ((viewSize.width / 2 - center.x * k) * deviceScale).rounded() / deviceScale
        let y = ((viewSize.height / 2 - center.y * k) * deviceScale).rounded() / deviceScale
        return Rect(x: x, y: y, width: imageSize.width * k, height: imageSize.height * k)
    }

    // MARK: Swiping

    /// Whether a press that has moved `dx`, `dy` logical pixels is a drag yet.
    public static func isDrag(dx: Double, dy: Double) -> Bool {
        dx * dx + dy * dy >= dragDistance * dragDistance
    }

    /// What a drag that ended `dx`, `dy` logical pixels from where it began means when the
    /// picture did not pan (`pans` false: it fitted the view when the drag began): a page turn
    /// if it went at least `swipeDistance` sideways and more than twice as far sideways as up
    /// or down. A drag that panned the picture is never a swipe.
    public static func swipe(dx: Double, dy: Double, pans: Bool) -> Swipe? {
        guard !pans, abs(dx) >= swipeDistance, abs(dx) > 2 * abs(dy) else { return nil }
        return dx < 0 ? .left : .right
    }

    // MARK: Clamping

    /// Centres the image along an axis where it is no larger than the view (always, when
    /// fitted), and elsewhere keeps the view within the image, so no empty space shows past
    /// its edges.
    private mutating func clampCenter() {
        let k = viewScale
        let halfWidth = viewSize.width / 2 / k, halfHeight = viewSize.height / 2 / k
        if isFit || imageSize.width <= 2 * halfWidth {
            center.x = imageSize.width / 2
        } else {
            center.x = min(max(center.x, halfWidth), imageSize.width - halfWidth)
        }
        if isFit || imageSize.height <= 2 * halfHeight {
            center.y = imageSize.height / 2
        } else {
            center.y = min(max(center.y, halfHeight), imageSize.height - halfHeight)
        }
    }
}
