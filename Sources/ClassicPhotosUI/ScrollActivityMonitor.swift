import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// Turns every way of scrolling into one "began" / "ended" pair.
///
/// GTK reports scroll phases only for touchpads (`scroll-begin` / `scroll-end`); a mouse wheel,
/// a scrollbar drag, the keyboard and programmatic moves only change the adjustment. So
/// "began" is the first sign of any of them, and "ended" is a quiet period (150 ms by default)
/// with no movement, no finger on the touchpad and no button held on the scrollbar. Kinetic
/// deceleration keeps moving the adjustment, so it extends the scroll until it stops.
@MainActor
final class ScrollActivityMonitor {
    var onBegan: ((ScrollVia) -> Void)?
    var onEnded: (() -> Void)?
    /// The person moved the view (a key that scrolls, the wheel, the touchpad, the scrollbar),
    /// told before the view handles it.
    var onUserMove: (() -> Void)?
    private(set) var isScrolling = false

    private let quietPeriodMs: UInt32
    private var connections: [SignalConnection] = []
    private var fingerOnTouchpad = false
    private var touchpadLiftedAt: Int = .min / 2
    private var scrollbarHeld = false
    private var lastKeyAt: Int = .min / 2
    private var lastWheelAt: Int = .min / 2
    /// Ends the scroll when it fires; put off by every movement, cancelled with the monitor.
    private lazy var quiet = Debounce.onMainActor { [weak self] in self?.quietPeriodElapsed() }

    /// - Parameters:
    ///   - scrolledWindow: the scrolled window around the list.
    ///   - keyTarget: the widget whose key presses can scroll (the window).
    ///   - quietMilliseconds: the quiet period (the configuration's, which tests and slow
    ///     machines set with `CLASSIC_PHOTOS_SCROLL_QUIET_MS`).
    init(
        scrolledWindow: Widget<ScrolledWindow>, keyTarget: Widget<some WidgetKind>,
        quietMilliseconds: UInt32 = AppConfiguration.current.testSwitches.scrollQuietMilliseconds
    ) {
        quietPeriodMs = quietMilliseconds

        // Wheel and touchpad, seen before the scrolled window handles them (capture phase).
        let scroll = Handle<ScrollController>.make(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES)
        scroll.setPropagationPhase(GTK_PHASE_CAPTURE)
        connections.append(
            scroll.connect("scroll-begin") { [unowned self] in
                fingerOnTouchpad = true
                onUserMove?()
                begin(.touchpad)
            })
        connections.append(
            scroll.connect("scroll-end") { [unowned self] in
                fingerOnTouchpad = false
                touchpadLiftedAt = g_get_monotonic_time()
                restartQuietTimer()
            })
        connections.append(
            scroll.onScroll { [unowned self] _, _ in
                // Ctrl and the wheel zoom the grid, which keeps its own place.
                if scroll.currentModifiers.rawValue & GDK_CONTROL_MASK.rawValue == 0 { onUserMove?() }
                if scroll.unit == GDK_SCROLL_UNIT_WHEEL {
                    lastWheelAt = g_get_monotonic_time()
                    begin(.wheel)
                } else {
                    begin(.touchpad)
                }
                return false // let the scrolled window scroll
            })
        scrolledWindow.addController(scroll)

        // A button held on the scrollbar is a drag in progress, moving or not.
        if let scrollbar = scrolledWindow.verticalScrollbar {
            let legacy = Handle<LegacyController>.make()
            legacy.setPropagationPhase(GTK_PHASE_CAPTURE)
            connections.append(
                legacy.onEvent { [unowned self] type in
                    switch type {
                    case GDK_BUTTON_PRESS, GDK_TOUCH_BEGIN:
                        scrollbarHeld = true
                        onUserMove?()
                        begin(.scrollbar)
                    case GDK_BUTTON_RELEASE, GDK_TOUCH_END, GDK_TOUCH_CANCEL:
                        scrollbarHeld = false
                        restartQuietTimer()
                    default: break
                    }
                    return false
                })
            scrollbar.addController(legacy)
        }

        // Keys that scroll the list; the list view itself handles them.
        let keys = Handle<KeyController>.make()
        keys.setPropagationPhase(GTK_PHASE_CAPTURE)
        connections.append(
            keys.onKeyPressed { [unowned self] keyval, _, _ in
                if Self.scrollingKeys.contains(keyval) {
                    lastKeyAt = g_get_monotonic_time()
                    onUserMove?()
                }
                return false
            })
        keyTarget.addController(keys)

        // Every movement, whatever caused it.
        let adjustment = scrolledWindow.verticalAdjustment!
        connections.append(
            adjustment.connect("value-changed") { [unowned self] in
                if isScrolling { restartQuietTimer() } else { begin(inferSource()) }
            })
    }

    private static let scrollingKeys: Set<UInt32> = [
        UInt32(GDK_KEY_Page_Up), UInt32(GDK_KEY_Page_Down), UInt32(GDK_KEY_Home), UInt32(GDK_KEY_End),
        UInt32(GDK_KEY_Up), UInt32(GDK_KEY_Down), UInt32(GDK_KEY_KP_Page_Up), UInt32(GDK_KEY_KP_Page_Down),
        UInt32(GDK_KEY_KP_Home), UInt32(GDK_KEY_KP_End), UInt32(GDK_KEY_KP_Up), UInt32(GDK_KEY_KP_Down),
        UInt32(GDK_KEY_space),
    ]

    /// What moved the adjustment, judged from the input seen just before.
    private func inferSource() -> ScrollVia {
        let now = g_get_monotonic_time()
        if scrollbarHeld { return .scrollbar }
        if fingerOnTouchpad { return .touchpad }
        if now - touchpadLiftedAt < 1_000_000 { return .kinetic }
        if now - lastKeyAt < 500_000 { return .keyboard }
        if now - lastWheelAt < 500_000 { return .wheel }
        return .program
    }

    /// Movement the monitor cannot see by itself (the grid's cells made larger or smaller):
    /// a scroll begins, or goes on, and ends after the quiet period as any other.
    func noteMovement(_ source: ScrollVia) { begin(source) }

    /// The scroll that has just ended is not over (the view is still being laid out): it goes
    /// on, without beginning again, and ends after another quiet period.
    func goOn() {
        isScrolling = true
        restartQuietTimer()
    }

    /// Notes movement: the quiet period starts over, and the scroll begins if it had not.
    private func begin(_ source: ScrollVia) {
        restartQuietTimer()
        guard !isScrolling else { return }
        isScrolling = true
        onBegan?(source)
    }

    private func restartQuietTimer() {
        quiet.schedule(afterMilliseconds: quietPeriodMs)
    }

    private func quietPeriodElapsed() {
        // A finger still on the touchpad or a button still on the scrollbar: not over yet;
        // their end events restart the timer.
        guard isScrolling, !fingerOnTouchpad, !scrollbarHeld else { return }
        isScrolling = false
        onEnded?()
    }

    /// Stops listening; call before the widgets go away.
    func invalidate() {
        quiet.cancel()
        connections.removeAll()
        onBegan = nil
        onEnded = nil
    }
}
