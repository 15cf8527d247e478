import CGLib
import CGtk
import GLibKit

// Gestures: clicks, drags and pinches.

extension Handle where Kind: GestureKind {
    /// Takes the event sequence under way for this gesture, so other gestures let it go.
    public func claim() { gtk_gesture_set_state(opaque, GTK_EVENT_SEQUENCE_CLAIMED) }

    /// The centre of the points the gesture follows (the fingers of a pinch), if it has any.
    public var boundingBoxCenter: (x: Double, y: Double)? {
        var x = 0.0
        var y = 0.0
        return gtk_gesture_get_bounding_box_center(opaque, &x, &y) != 0 ? (x, y) : nil
    }

    /// When the event being handled happened (milliseconds, the display server's clock; 0 when
    /// it carries no time).
    public var currentEventTime: UInt32 { gtk_event_controller_get_current_event_time(opaque) }

    /// Connects `body` to "begin": the gesture was recognised.
    public func onBegin(_ body: @escaping () -> Void) -> SignalConnection {
        SignalConnection.connect(raw, "begin", pointer: { _ in body() })
    }
}

/// The desktop's double-click time (milliseconds) and distance (logical pixels).
public func doubleClickSettings() -> (time: UInt32, distance: Double) {
    var time: guint = 400
    var distance: guint = 5
    cp_double_click_settings(&time, &distance)
    return (time, Double(distance))
}

extension Handle where Kind == GestureClick {
    /// A new click gesture (for `addController`) for the mouse button `button` (1 is the
    /// primary, the default; 3 the secondary).
    public static func make(button: UInt32? = nil) -> Self {
        let click = gtk_gesture_click_new()!
        if let button { gtk_gesture_single_set_button(click, button) }
        return Self(UnsafeMutableRawPointer(click))
    }

    /// Connects `body` to "pressed": the number of presses in a row, and where (`x`, `y`).
    public func onPressed(_ body: @escaping (Int32, Double, Double) -> Void) -> SignalConnection {
        SignalConnection.connect(raw, "pressed", intPoint: body)
    }
}

extension Handle where Kind == GestureDrag {
    /// A new drag gesture (for `addController`).
    public static func make() -> Self { Self(UnsafeMutableRawPointer(gtk_gesture_drag_new()!)) }

    /// Connects `body` to "drag-begin": where the drag started.
    public func onDragBegin(_ body: @escaping (_ x: Double, _ y: Double) -> Void) -> SignalConnection {
        SignalConnection.connect(raw, "drag-begin", point: body)
    }

    /// Connects `body` to "drag-update": how far the drag has gone from where it started.
    public func onDragUpdate(_ body: @escaping (_ dx: Double, _ dy: Double) -> Void) -> SignalConnection {
        SignalConnection.connect(raw, "drag-update", point: body)
    }

    /// Connects `body` to "drag-end": how far the drag went, all told.
    public func onDragEnd(_ body: @escaping (_ dx: Double, _ dy: Double) -> Void) -> SignalConnection {
        SignalConnection.connect(raw, "drag-end", point: body)
    }
}

extension Handle where Kind == GestureZoom {
    /// A new pinch gesture (for `addController`).
    public static func make() -> Self { Self(UnsafeMutableRawPointer(gtk_gesture_zoom_new()!)) }

    /// Connects `body` to "scale-changed": the fingers' distance against where they began.
    public func onScaleChanged(_ body: @escaping (_ scale: Double) -> Void) -> SignalConnection {
        SignalConnection.connect(raw, "scale-changed", double: body)
    }
}
