import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The viewer's slideshow: the next photo every few seconds (3, 5 or 10, as chosen in the
/// viewer's menu), looping at the end, with the controls and the pointer hidden. Moving the
/// pointer or pressing a key pauses it and shows the controls; two seconds without input and
/// it goes on. The viewer says what "next" is, and stops it (Escape, F5).
@MainActor
final class ViewerSlideshow {
    /// Seconds between photos.
    var interval: UInt32 = 5 {
        didSet { if isRunning, !isPaused { schedule() } }
    }
    private(set) var isRunning = false
    private(set) var isPaused = false
    /// Shows the next photo (the first after the last).
    var onAdvance: (() -> Void)?
    /// Shows (true) or hides the viewer's controls.
    var onShowControls: ((Bool) -> Void)?
    private let root: Widget<Overlay>
    private var timer: MainLoopSource?
    /// Goes on once input has stopped for `resumeMilliseconds`.
    private lazy var resuming = Debounce.onMainActor { [weak self] in self?.resume() }
    private var startedAt = Date.distantPast
    private var lastPointer: (x: Double, y: Double)?
    private var connections: [SignalConnection] = []

    /// How long input must stop before the slideshow goes on.
    static let resumeMilliseconds: UInt32 = 2_000

    init(root: Widget<Overlay>) {
        self.root = root
        let motion = Handle<MotionController>.make()
        connections.append(motion.onMotion { [unowned self] x, y in pointerMoved(x: x, y: y) })
        root.addController(motion)
    }

    func start() {
        guard !isRunning else { return }
        isRunning = true
        isPaused = false
        startedAt = Date()
        lastPointer = nil
        Trace.shared.emit(.slideshowStart)
        showControls(false)
        schedule()
    }

    func stop() {
        guard isRunning else { return }
        isRunning = false
        isPaused = false
        timer = nil
        resuming.cancel()
        showControls(true)
        Trace.shared.emit(.slideshowStop)
    }

    /// The user did something (a key, the pointer): pause, show the controls, and go on once
    /// input has stopped for a while.
    func userActed() {
        guard isRunning else { return }
        isPaused = true
        timer = nil
        showControls(true)
        resuming.schedule(afterMilliseconds: Self.resumeMilliseconds)
    }

    private func resume() {
        isPaused = false
        showControls(false)
        schedule()
    }

    /// The photo changed by hand (Left, Right): the full interval starts again.
    func restartInterval() {
        if isRunning, !isPaused { schedule() }
    }

    private func schedule() {
        timer = MainLoopSource.onMainActor(.timeout(milliseconds: interval * 1_000)) { [weak self] in
            self?.onAdvance?()
            return .continue
        }
    }

    private func pointerMoved(x: Double, y: Double) {
        guard isRunning else { return }
        // Going fullscreen moves the picture under a still pointer, and GTK reports that as
        // motion: the first second's reports only set where the pointer is.
        guard let last = lastPointer, Date().timeIntervalSince(startedAt) > 1 else {
            lastPointer = (x, y)
            return
        }
        guard abs(x - last.x) + abs(y - last.y) > 3 else { return }
        lastPointer = (x, y)
        userActed()
    }

    private func showControls(_ shown: Bool) {
        onShowControls?(shown)
        root.setCursor(named: shown ? nil : "none")
    }
}
