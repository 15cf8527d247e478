import PhotoPipeline
import Testing

@Suite struct ZoomGeometryTests {
    typealias Point = ZoomGeometry.Point
    typealias Size = ZoomGeometry.Size

    /// A 4000×3000 photo in an 800×600 view: it fits at 20 %, filling the view exactly.
    private func camera(scale: Double = 1) -> ZoomGeometry {
        ZoomGeometry(
            imageSize: Size(width: 4000, height: 3000), viewSize: Size(width: 800, height: 600), deviceScale: scale)
    }

    private func close(_ a: Double, _ b: Double, within tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }
    private func close(_ a: Point, _ b: Point, within tolerance: Double = 1e-9) -> Bool {
        close(a.x, b.x, within: tolerance) && close(a.y, b.y, within: tolerance)
    }

    // MARK: Fit

    @Test("A large photo fits the view, centred; a small one stays at 100 %, centred in the view")
    func fitting() {
        let large = camera()
        #expect(large.isFit && large.zoom == 0.2 && large.fitZoom == 0.2)
        #expect(large.center == Point(x: 2000, y: 1500))
        #expect(large.imageRect == ZoomGeometry.Rect(x: 0, y: 0, width: 800, height: 600))

        let small = ZoomGeometry(imageSize: Size(width: 400, height: 300), viewSize: Size(width: 800, height: 600))
        #expect(small.fitZoom == 1)
        #expect(small.imageRect == ZoomGeometry.Rect(x: 200, y: 150, width: 400, height: 300))
    }

    @Test("A fitted photo follows the view's size, never past 100 %; a hand-set zoom does not")
    func fitFollowsResizes() {
        var g = camera()
        g.setViewSize(Size(width: 1600, height: 900))
        #expect(g.isFit && close(g.zoom, 0.3))
        #expect(g.center == Point(x: 2000, y: 1500))
        g.setViewSize(Size(width: 8000, height: 8000))
        #expect(g.zoom == 1)
        g.setViewSize(Size(width: 800, height: 600))
        g.setZoom(0.5)
        g.setViewSize(Size(width: 1600, height: 1200))
        #expect(!g.isFit && g.zoom == 0.5 && close(g.fitZoom, 0.4))
    }

    @Test("A new image size goes back to fit; the same size again keeps zoom and pan")
    func newImageFits() {
        var g = camera()
        g.setZoom(1, around: Point(x: 100, y: 100))
        let zoomed = g
        g.setImageSize(Size(width: 4000, height: 3000))
        #expect(g == zoomed)
        g.setImageSize(Size(width: 3000, height: 4000))
        #expect(g.isFit && close(g.zoom, 0.15) && g.center == Point(x: 1500, y: 2000))
    }

    @Test("Without an image nothing zooms: zoom 1, fitted, nothing drawn")
    func noImage() {
        var g = ZoomGeometry(viewSize: Size(width: 800, height: 600))
        g.setZoom(4)
        #expect(g.isFit && g.zoom == 1 && g.imageRect == .zero && !g.canPan)
    }

    // MARK: Zoom around a point

    @Test(
        "Zooming around a point keeps the image point under it where it is",
        arguments: [
            Point(x: 100, y: 100), Point(x: 400, y: 300), Point(x: 700, y: 120), Point(x: 0, y: 0),
            Point(x: 800, y: 600),
        ])
    func zoomAroundAPoint(pointer: Point) {
        var g = camera()
        let under = g.imagePoint(at: pointer)
        for zoom in [1.0, 2.0, 5.5, 16.0, 0.8] {
            g.setZoom(zoom, around: pointer)
            #expect(g.zoom == zoom)
            #expect(close(g.imagePoint(at: pointer), under, within: 1e-6), "at \(zoom): \(g.imagePoint(at: pointer))")
            // Where it is drawn agrees, to the screen pixel the corner is rounded to.
            let rect = g.imageRect
            #expect(close(rect.x + under.x * g.viewScale, pointer.x, within: 0.5))
            #expect(close(rect.y + under.y * g.viewScale, pointer.y, within: 0.5))
        }
    }

    @Test("Without a point, zooming keeps the view's centre; zoom(by:) multiplies")
    func zoomAroundTheCentre() {
        var g = camera()
        g.setZoom(1, around: Point(x: 200, y: 150))
        let centre = g.center
        g.zoom(by: ZoomGeometry.zoomStep)
        #expect(g.zoom == 1.25 && close(g.center, centre))
        g.zoom(by: 1 / ZoomGeometry.zoomStep)
        #expect(close(g.zoom, 1) && close(g.center, centre))
    }

    @Test("Zooming out keeps the point as long as the picture covers the view, then centres it")
    func zoomOutCentres() {
        var g = camera()
        g.setZoom(2, around: Point(x: 0, y: 0))
        g.setZoom(0.1, around: Point(x: 0, y: 0))
        #expect(g.center == Point(x: 2000, y: 1500))
        #expect(g.imageRect == ZoomGeometry.Rect(x: 200, y: 150, width: 400, height: 300))
    }

    // MARK: Limits

    @Test("Zoom stays between half the fitting zoom and 1,600 %")
    func limits() {
        var g = camera()
        #expect(g.zoomRange == 0.1...16)
        g.setZoom(100)
        #expect(g.zoom == ZoomGeometry.maximumZoom)
        g.zoom(by: 2)
        #expect(g.zoom == 16)
        g.setZoom(0.001)
        #expect(g.zoom == 0.1)
        for _ in 0..<20 { g.zoom(by: 1 / ZoomGeometry.zoomStep) }
        #expect(g.zoom == 0.1)

        // A picture smaller than the view fits at 100 %, and goes down to 50 %.
        var small = ZoomGeometry(imageSize: Size(width: 400, height: 300), viewSize: Size(width: 800, height: 600))
        small.setZoom(0.01)
        #expect(small.zoom == 0.5)
    }

    @Test("A Ctrl+wheel notch zooms by a quarter, smooth scrolling in proportion")
    func wheelZoom() {
        #expect(close(ZoomGeometry.wheelZoomFactor(dy: -1), 1.25))
        #expect(close(ZoomGeometry.wheelZoomFactor(dy: 1), 0.8))
        #expect(close(ZoomGeometry.wheelZoomFactor(dy: -0.5), 1.25.squareRoot()))
        #expect(ZoomGeometry.wheelZoomFactor(dy: 0) == 1)
    }

    @Test("Fit and 100 % take turns; a picture that fits at 100 % just stays fitted")
    func toggleFitAndActualSize() {
        var g = camera()
        g.toggleFitAndActualSize(around: Point(x: 100, y: 100))
        #expect(!g.isFit && g.zoom == 1 && close(g.imagePoint(at: Point(x: 100, y: 100)), Point(x: 500, y: 500)))
        g.toggleFitAndActualSize()
        #expect(g.isFit && g.zoom == 0.2)

        var small = ZoomGeometry(imageSize: Size(width: 400, height: 300), viewSize: Size(width: 800, height: 600))
        small.toggleFitAndActualSize()
        #expect(small.isFit && small.zoom == 1)
        small.setZoom(2)
        small.toggleFitAndActualSize()
        #expect(small.isFit && small.zoom == 1)
    }

    // MARK: Clamping and panning

    @Test("Panning stops at the image's edges: the picture always covers the view")
    func panClamps() {
        var g = camera()
        g.setZoom(1)
        #expect(g.canPan)
        var moved = g.pan(dx: 1e6, dy: -1e6)
        #expect(moved && g.center == Point(x: 3600, y: 300))
        let rect = g.imageRect
        #expect(rect.x + rect.width == 800 && rect.y == 0)
        moved = g.pan(dx: 10, dy: -10)
        #expect(!moved, "moved past the corner")
        moved = g.pan(dx: -50, dy: 20)
        #expect(moved && g.center == Point(x: 3550, y: 320))
    }

    @Test("A drag measures from where it began, in logical pixels over the zoom")
    func dragPan() {
        var g = camera()
        g.setZoom(0.5)
        let start = g.center
        g.pan(from: start, dx: -100, dy: 0)
        g.pan(from: start, dx: -200, dy: 40)
        #expect(g.center == Point(x: start.x - 400, y: start.y + 80))
    }

    @Test("Along an axis where the picture is smaller than the view it stays centred")
    func smallerAxisCentred() {
        var g = ZoomGeometry(imageSize: Size(width: 4000, height: 500), viewSize: Size(width: 800, height: 600))
        g.setZoom(1, around: Point(x: 0, y: 0))
        #expect(g.center.y == 250)
        #expect(g.imageRect.y == 50)
        #expect(g.center.x == 400, "the left edge stays at the view's left")
        g.pan(dx: 100, dy: 100)
        #expect(g.center == Point(x: 500, y: 250))
    }

    @Test("Only a picture larger than the view pans")
    func canPan() {
        var g = camera()
        let moved = g.pan(dx: 100, dy: 100)
        #expect(!g.canPan && !moved)
        g.setZoom(0.15)
        #expect(!g.canPan)
        g.setZoom(0.21)
        #expect(g.canPan)
        var small = ZoomGeometry(imageSize: Size(width: 400, height: 300), viewSize: Size(width: 800, height: 600))
        small.setZoom(2.5)
        #expect(small.canPan)
        small.setZoom(2)
        #expect(!small.canPan, "800×600 in an 800×600 view")
    }

    // MARK: Device scale

    @Test("On a HiDPI screen zoom counts screen pixels: 100 % is half as many logical pixels")
    func deviceScale() {
        var g = camera(scale: 2)
        #expect(g.fitZoom == 0.4 && g.viewScale == 0.2)
        g.setZoom(1, around: Point(x: 0, y: 0))
        #expect(g.viewScale == 0.5)
        #expect(g.imageRect.width == 2000 && g.imageRect.height == 1500)
        // Panning by a logical pixel moves two image pixels; the corner stays on whole screen pixels.
        g.pan(dx: 0.75, dy: 0.25)
        #expect(g.center == Point(x: 801.5, y: 600.5))
        let rect = g.imageRect
        #expect((rect.x * 2).rounded() == rect.x * 2 && (rect.y * 2).rounded() == rect.y * 2)
        #expect(rect.x == -1 && rect.y == -0.5)

        // A scale below one counts as one.
        g.setDeviceScale(0)
        #expect(g.deviceScale == 1 && g.viewScale == 1)
        // Moving to a 1× screen: a fitted photo fits again at that scale.
        var fitted = camera(scale: 2)
        fitted.setDeviceScale(1)
        #expect(fitted.zoom == 0.2)
    }

    // MARK: Swipes

    @Test("A sideways drag of at least 80 pixels pages: to the left the next photo, to the right the previous")
    func swipeThreshold() {
        #expect(ZoomGeometry.swipe(dx: -80, dy: 0, pans: false) == .left)
        #expect(ZoomGeometry.swipe(dx: -80, dy: 0, pans: false)?.step == 1)
        #expect(ZoomGeometry.swipe(dx: 120, dy: 10, pans: false) == .right)
        #expect(ZoomGeometry.swipe(dx: 120, dy: 10, pans: false)?.step == -1)
        #expect(ZoomGeometry.swipe(dx: -79.9, dy: 0, pans: false) == nil)
        #expect(ZoomGeometry.swipe(dx: 79.9, dy: 0, pans: false) == nil)
        #expect(ZoomGeometry.swipe(dx: 0, dy: 0, pans: false) == nil)
    }

    @Test("A mostly vertical drag is no swipe: sideways must be more than twice up or down")
    func verticalDrags() {
        #expect(ZoomGeometry.swipe(dx: 100, dy: 50, pans: false) == nil)
        #expect(ZoomGeometry.swipe(dx: 100, dy: -49, pans: false) == .right)
        #expect(ZoomGeometry.swipe(dx: -300, dy: 200, pans: false) == nil)
        #expect(ZoomGeometry.swipe(dx: 0, dy: 400, pans: false) == nil)
    }

    @Test("A zoomed picture pans instead: its drags never page")
    func zoomedPicturesDoNotSwipe() {
        var g = camera()
        #expect(ZoomGeometry.swipe(dx: -200, dy: 0, pans: g.canPan) == .left)
        g.setZoom(1)
        #expect(ZoomGeometry.swipe(dx: -200, dy: 0, pans: g.canPan) == nil)
        // Zoomed out below fit, it cannot pan, so it pages again.
        g.setZoom(0.1)
        #expect(ZoomGeometry.swipe(dx: -200, dy: 0, pans: g.canPan) == .left)
    }
}

@Suite("Double-clicks told by the presses' own times")
struct DoubleClickTests {
    /// Which of `presses` (time, x, y) complete a double-click.
    private func doubles(_ presses: [(UInt32, Double, Double)]) -> [Bool] {
        var clicks = DoubleClick(time: 400, distance: 5)
        return presses.map { clicks.press(at: $0.0, x: $0.1, y: $0.2) }
    }

    @Test("Two presses close in time and place are a double-click; a third press starts afresh")
    func pairs() {
        let found = doubles([(1_000, 10, 10), (1_390, 14, 6), (1_450, 14, 6), (1_500, 14, 6)])
        #expect(found == [false, true, false, true])
    }

    @Test("Too late, too far, or stamped before the first: not a double-click, but a new first press")
    func misses() {
        let found = doubles([
            (1_000, 10, 10), (1_401, 10, 10), (1_500, 10, 10), (2_000, 10, 10), (2_100, 16, 10), (2_050, 16, 10),
        ])
        #expect(found == [false, false, true, false, false, false])
    }

    @Test("A press that moved past the distance was a drag: the next press is a first")
    func drags() {
        var clicks = DoubleClick(time: 400, distance: 5)
        let first = clicks.press(at: 1_000, x: 10, y: 10)
        clicks.moved(dx: 0, dy: 6)
        let afterDrag = clicks.press(at: 1_100, x: 10, y: 10)
        clicks.moved(dx: 3, dy: -4)
        let afterTremor = clicks.press(at: 1_200, x: 10, y: 10)
        #expect([first, afterDrag, afterTremor] == [false, false, true])
    }

    @Test("The server's 32-bit clock wrapping between the presses does not lose the pair")
    func wraps() {
        #expect(doubles([(UInt32.max - 100, 0, 0), (200, 0, 0)]) == [false, true])
    }
}
