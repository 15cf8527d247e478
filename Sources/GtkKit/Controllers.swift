import CGLib
import CGtk
import GLibKit

// Event controllers: keys, the wheel and touchpad, the pointer's motion, and raw events.

extension Handle where Kind: ControllerKind {
    /// When it sees events: `GTK_PHASE_CAPTURE` before the widget under the pointer (or with
    /// the focus) does, `GTK_PHASE_BUBBLE` (the default) after.
    public func setPropagationPhase(_ phase: GtkPropagationPhase) {
        gtk_event_controller_set_propagation_phase(opaque, phase)
    }

    /// The modifier keys held during the event being handled.
    public var currentModifiers: GdkModifierType { gtk_event_controller_get_current_event_state(opaque) }
}

extension Handle where Kind == KeyController {
    /// A new key controller (for `addController`).
    public static func make() -> Self { Self(UnsafeMutableRawPointer(gtk_event_controller_key_new()!)) }

    /// Connects `body` to "key-pressed" (the key's value, its hardware code, the modifiers);
    /// `body` says whether it handled the key.
    public func onKeyPressed(_ body: @escaping (UInt32, UInt32, UInt32) -> Bool) -> SignalConnection {
        SignalConnection.connect(raw, "key-pressed", keys: body)
    }

    /// `body(keyval, keycode, state)` as a key is let go (a key held repeats its presses
    /// alone, and is released once).
    public func onKeyReleased(_ body: @escaping (UInt32, UInt32, UInt32) -> Void) -> SignalConnection {
        SignalConnection.connect(raw, "key-released", keysReleased: body)
    }
}

extension Handle where Kind == ScrollController {
    /// A new scroll controller (for `addController`) reporting the directions in `flags`.
    public static func make(_ flags: GtkEventControllerScrollFlags) -> Self {
        Self(UnsafeMutableRawPointer(gtk_event_controller_scroll_new(flags)!))
    }

    /// Whether the scroll being handled comes in wheel notches or in pixels (a touchpad).
    public var unit: GdkScrollUnit { gtk_event_controller_scroll_get_unit(opaque) }

    /// Connects `body` to "scroll" (how far, across and down); `body` says whether it handled
    /// it, or lets it go on to the widgets behind.
    public func onScroll(_ body: @escaping (_ dx: Double, _ dy: Double) -> Bool) -> SignalConnection {
        SignalConnection.connect(raw, "scroll", doubles: body)
    }
}

extension Handle where Kind == FocusController {
    /// A new focus controller (for `addController`); its "leave" comes when the focus leaves
    /// the widget and everything in it.
    public static func make() -> Self { Self(UnsafeMutableRawPointer(gtk_event_controller_focus_new()!)) }
}

extension Handle where Kind == MotionController {
    /// A new motion controller (for `addController`).
    public static func make() -> Self { Self(UnsafeMutableRawPointer(gtk_event_controller_motion_new()!)) }

    /// Connects `body` to "motion": the pointer moved to `x`, `y` over the widget.
    public func onMotion(_ body: @escaping (_ x: Double, _ y: Double) -> Void) -> SignalConnection {
        SignalConnection.connect(raw, "motion", point: body)
    }

    /// Connects `body` to "enter": the pointer came over the widget at `x`, `y`.
    public func onEnter(_ body: @escaping (_ x: Double, _ y: Double) -> Void) -> SignalConnection {
        SignalConnection.connect(raw, "enter", point: body)
    }
}

extension Handle where Kind == LegacyController {
    /// A new controller (for `addController`) that sees every event the widget gets.
    public static func make() -> Self { Self(UnsafeMutableRawPointer(gtk_event_controller_legacy_new()!)) }

    /// Connects `body` to "event", with the event's type; `body` says whether it handled it.
    public func onEvent(_ body: @escaping (GdkEventType) -> Bool) -> SignalConnection {
        SignalConnection.connect(
            raw, "event",
            pointerReturning: { event in
                guard let event else { return false }
                return body(gdk_event_get_event_type(OpaquePointer(event)))
            })
    }
}
