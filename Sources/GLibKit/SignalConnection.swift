import CGLib
import Synchronization

/// Base of every closure box; counts live boxes so tests can prove they are freed.
class SignalBox {
    private static let live = Atomic<Int>(0)
    /// The number of closure boxes GLib still holds.
    static var liveCount: Int { live.load(ordering: .acquiring) }

    init() { Self.live.add(1, ordering: .relaxed) }
    deinit { Self.live.subtract(1, ordering: .releasing) }
}

final class ClosureBox<F>: SignalBox {
    let closure: F
    init(_ closure: F) { self.closure = closure }
}

private func unbox<F>(_ data: gpointer?, as _: F.Type) -> F {
    Unmanaged<ClosureBox<F>>.fromOpaque(data!).takeUnretainedValue().closure
}

private let releaseBox: GClosureNotify = { data, _ in
    guard let data else { return }
    Unmanaged<SignalBox>.fromOpaque(data).release()
}

/// Connects a GObject signal to a Swift closure: a live handler on one instance, disconnected
/// when the owner goes away and drops it.
///
/// Each closure lives in a box passed to GLib as user data; GLib's destroy-notify releases the
/// box when the handler is disconnected or the instance is finalized, so nothing leaks and
/// nothing is freed twice. A `SignalConnection` disconnects in `deinit` if the instance is
/// still alive (checked through a `GWeakRef`, never a dangling pointer).
///
/// The closure runs on the thread that emits the signal, which for most objects is the main
/// thread. For an object used on a thread of its own (`HTTPClient`'s session and messages),
/// connect, keep and drop the connection on that thread: the closure then never runs anywhere
/// else, and the box it lives in (immutable once made, its count atomic) may be released by
/// GLib on whichever thread finalizes the instance.
public final class SignalConnection {
    /// Counts the closure boxes not yet released by GLib (for leak tests).
    public static var liveClosureCount: Int { SignalBox.liveCount }

    public let handlerID: gulong
    private let instance: UnsafeMutablePointer<GWeakRef>

    fileprivate init(instance object: gpointer, signal: String, callback: GCallback, box: SignalBox, after: Bool) {
        instance = .allocate(capacity: 1)
        instance.initialize(to: GWeakRef())
        g_weak_ref_init(instance, object)
        let data = Unmanaged.passRetained(box).toOpaque()
        handlerID = g_signal_connect_data(
            object, signal, callback, data, releaseBox, after ? G_CONNECT_AFTER : GConnectFlags(0))
        precondition(handlerID != 0, "no signal '\(signal)' on \(String(cString: cp_object_type_name(object)))")
    }

    /// Disconnects now (a no-op if already disconnected or the instance is gone).
    public func disconnect() {
        guard let object = g_weak_ref_get(instance) else { return }
        if g_signal_handler_is_connected(object, handlerID) != 0 {
            g_signal_handler_disconnect(object, handlerID)
        }
        g_object_unref(object)
    }

    /// True while the handler is attached to a live instance.
    public var isConnected: Bool {
        guard let object = g_weak_ref_get(instance) else { return false }
        defer { g_object_unref(object) }
        return g_signal_handler_is_connected(object, handlerID) != 0
    }

    deinit {
        disconnect()
        g_weak_ref_clear(instance)
        instance.deallocate()
    }
}

// MARK: - Typed connections (one C thunk per callback shape)

extension SignalConnection {
    private static func make<F>(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool, _ closure: F, thunk: GCallback
    ) -> SignalConnection {
        SignalConnection(instance: object, signal: signal, callback: thunk, box: ClosureBox(closure), after: after)
    }

    /// A signal with no arguments and no return value, e.g. `clicked`, `value-changed`.
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        _ handler: @escaping () -> Void
    ) -> SignalConnection {
        typealias F = () -> Void
        let thunk: @convention(c) (gpointer?, gpointer?) -> Void = { _, data in unbox(data, as: F.self)() }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }

    /// A signal with one pointer argument, e.g. a list item factory's `bind`.
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        pointer handler: @escaping (UnsafeMutableRawPointer?) -> Void
    ) -> SignalConnection {
        typealias F = (UnsafeMutableRawPointer?) -> Void
        let thunk: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, a, data in unbox(data, as: F.self)(a)
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }

    /// `GtkWidget::query-tooltip` (the pointer's place and the keyboard mode, which are not
    /// passed on, and the `GtkTooltip` to fill in); the handler says whether to show it.
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        tooltip handler: @escaping (UnsafeMutableRawPointer?) -> Bool
    ) -> SignalConnection {
        typealias F = (UnsafeMutableRawPointer?) -> Bool
        let thunk: @convention(c) (gpointer?, gint, gint, gboolean, gpointer?, gpointer?) -> gboolean = {
            _, _, _, _, tooltip, data in
            unbox(data, as: F.self)(tooltip) ? 1 : 0
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }

    /// A signal with no arguments returning a gboolean, e.g. `close-request`.
    public static func connectReturning(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        _ handler: @escaping () -> Bool
    ) -> SignalConnection {
        typealias F = () -> Bool
        let thunk: @convention(c) (gpointer?, gpointer?) -> gboolean = { _, data in unbox(data, as: F.self)() ? 1 : 0 }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }

    /// A signal with two doubles returning a gboolean, e.g. `GtkEventControllerScroll::scroll`.
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        doubles handler: @escaping (Double, Double) -> Bool
    ) -> SignalConnection {
        typealias F = (Double, Double) -> Bool
        let thunk: @convention(c) (gpointer?, Double, Double, gpointer?) -> gboolean = { _, x, y, data in
            unbox(data, as: F.self)(x, y) ? 1 : 0
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }

    /// A signal with three unsigned integers, e.g. `GListModel::items-changed`.
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        uints handler: @escaping (UInt32, UInt32, UInt32) -> Void
    ) -> SignalConnection {
        typealias F = (UInt32, UInt32, UInt32) -> Void
        let thunk: @convention(c) (gpointer?, guint, guint, guint, gpointer?) -> Void = { _, a, b, c, data in
            unbox(data, as: F.self)(a, b, c)
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }

    /// A signal with three unsigned integers returning a gboolean, e.g. `GtkEventControllerKey::key-pressed`.
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        keys handler: @escaping (UInt32, UInt32, UInt32) -> Bool
    ) -> SignalConnection {
        typealias F = (UInt32, UInt32, UInt32) -> Bool
        let thunk: @convention(c) (gpointer?, guint, guint, guint, gpointer?) -> gboolean = { _, a, b, c, data in
            unbox(data, as: F.self)(a, b, c) ? 1 : 0
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }

    /// A signal with three unsigned integers, e.g. `GtkEventControllerKey::key-released`.
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        keysReleased handler: @escaping (UInt32, UInt32, UInt32) -> Void
    ) -> SignalConnection {
        typealias F = (UInt32, UInt32, UInt32) -> Void
        let thunk: @convention(c) (gpointer?, guint, guint, guint, gpointer?) -> Void = { _, a, b, c, data in
            unbox(data, as: F.self)(a, b, c)
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }

    /// A signal with one integer argument, e.g. `GtkDialog::response`.
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        int handler: @escaping (Int32) -> Void
    ) -> SignalConnection {
        typealias F = (Int32) -> Void
        let thunk: @convention(c) (gpointer?, gint, gpointer?) -> Void = { _, a, data in unbox(data, as: F.self)(a) }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }
}

extension SignalConnection {
    /// A signal with an integer (or an enumeration) and a pointer, e.g. `SoupMessage::network-event`
    /// (the `GSocketClientEvent`, and the connection).
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        intPointer handler: @escaping (Int32, UnsafeMutableRawPointer?) -> Void
    ) -> SignalConnection {
        typealias F = (Int32, UnsafeMutableRawPointer?) -> Void
        let thunk: @convention(c) (gpointer?, gint, gpointer?, gpointer?) -> Void = { _, n, a, data in
            unbox(data, as: F.self)(n, a)
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }

    /// A signal with two integer arguments, e.g. `GdkPixbufLoader::size-prepared`.
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        ints handler: @escaping (Int32, Int32) -> Void
    ) -> SignalConnection {
        typealias F = (Int32, Int32) -> Void
        let thunk: @convention(c) (gpointer?, gint, gint, gpointer?) -> Void = { _, a, b, data in
            unbox(data, as: F.self)(a, b)
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }
}

extension SignalConnection {
    /// A signal with four integer arguments, e.g. `GdkPixbufLoader::area-updated` (x, y, width,
    /// height).
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        fourInts handler: @escaping (Int32, Int32, Int32, Int32) -> Void
    ) -> SignalConnection {
        typealias F = (Int32, Int32, Int32, Int32) -> Void
        let thunk: @convention(c) (gpointer?, gint, gint, gint, gint, gpointer?) -> Void = { _, a, b, c, d, data in
            unbox(data, as: F.self)(a, b, c, d)
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }
}

extension SignalConnection {
    /// A signal with one pointer argument returning a gboolean, e.g. `GtkEventControllerLegacy::event`.
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        pointerReturning handler: @escaping (UnsafeMutableRawPointer?) -> Bool
    ) -> SignalConnection {
        typealias F = (UnsafeMutableRawPointer?) -> Bool
        let thunk: @convention(c) (gpointer?, gpointer?, gpointer?) -> gboolean = { _, a, data in
            unbox(data, as: F.self)(a) ? 1 : 0
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }
}

extension SignalConnection {
    /// A signal with one pointer argument returning an int, e.g. `GApplication::command-line`.
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        pointerReturningInt handler: @escaping (UnsafeMutableRawPointer?) -> Int32
    ) -> SignalConnection {
        typealias F = (UnsafeMutableRawPointer?) -> Int32
        let thunk: @convention(c) (gpointer?, gpointer?, gpointer?) -> gint = { _, a, data in unbox(data, as: F.self)(a)
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }

    /// A signal with a pointer, an integer and a second pointer, e.g. `GApplication::open`
    /// (files, number of files, hint).
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        pointerIntPointer handler: @escaping (UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?) -> Void
    )
        -> SignalConnection
    {
        typealias F = (UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?) -> Void
        let thunk: @convention(c) (gpointer?, gpointer?, gint, gpointer?, gpointer?) -> Void = { _, a, n, b, data in
            unbox(data, as: F.self)(a, n, b)
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }
}

extension SignalConnection {
    /// A signal with two doubles returning a pointer, e.g. `GtkDragSource::prepare` (where the
    /// drag began; the content offered, a reference the caller gives).
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        doublesReturningPointer handler: @escaping (Double, Double) -> UnsafeMutableRawPointer?
    ) -> SignalConnection {
        typealias F = (Double, Double) -> UnsafeMutableRawPointer?
        let thunk: @convention(c) (gpointer?, Double, Double, gpointer?) -> gpointer? = { _, x, y, data in
            unbox(data, as: F.self)(x, y)
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }

    /// A signal with a pointer and two doubles returning a gboolean, e.g. `GtkDropTarget::drop`
    /// (the dropped value, and where it was dropped).
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        pointerDoubles handler: @escaping (UnsafeMutableRawPointer?, Double, Double) -> Bool
    )
        -> SignalConnection
    {
        typealias F = (UnsafeMutableRawPointer?, Double, Double) -> Bool
        let thunk: @convention(c) (gpointer?, gpointer?, Double, Double, gpointer?) -> gboolean = { _, a, x, y, data in
            unbox(data, as: F.self)(a, x, y) ? 1 : 0
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }
}

extension SignalConnection {
    /// A signal with two pointers and an integer, e.g. `GFileMonitor::changed` (the file, the
    /// other file of a move, the kind of event).
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        pointerPointerInt handler: @escaping (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32) -> Void
    )
        -> SignalConnection
    {
        typealias F = (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32) -> Void
        let thunk: @convention(c) (gpointer?, gpointer?, gpointer?, gint, gpointer?) -> Void = { _, a, b, n, data in
            unbox(data, as: F.self)(a, b, n)
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }
}

extension SignalConnection {
    /// A signal with one double, e.g. `GtkGestureZoom::scale-changed`.
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        double handler: @escaping (Double) -> Void
    ) -> SignalConnection {
        typealias F = (Double) -> Void
        let thunk: @convention(c) (gpointer?, Double, gpointer?) -> Void = { _, value, data in
            unbox(data, as: F.self)(value)
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }

    /// A signal with two doubles and no return value, e.g. `GtkEventControllerMotion::motion`
    /// or `GtkGestureDrag::drag-update` (a point, or how far from one).
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        point handler: @escaping (Double, Double) -> Void
    ) -> SignalConnection {
        typealias F = (Double, Double) -> Void
        let thunk: @convention(c) (gpointer?, Double, Double, gpointer?) -> Void = { _, x, y, data in
            unbox(data, as: F.self)(x, y)
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }

    /// A signal with an integer and two doubles, e.g. `GtkGestureClick::pressed` (the number of
    /// presses in a row, and where).
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        intPoint handler: @escaping (Int32, Double, Double) -> Void
    ) -> SignalConnection {
        typealias F = (Int32, Double, Double) -> Void
        let thunk: @convention(c) (gpointer?, gint, Double, Double, gpointer?) -> Void = { _, n, x, y, data in
            unbox(data, as: F.self)(n, x, y)
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }

    /// A signal with a pointer and an integer, e.g. `GtkPrintOperation::draw-page` (the print
    /// context and the page number).
    public static func connect(
        _ object: UnsafeMutableRawPointer, _ signal: String, after: Bool = false,
        pointerInt handler: @escaping (UnsafeMutableRawPointer?, Int32) -> Void
    ) -> SignalConnection {
        typealias F = (UnsafeMutableRawPointer?, Int32) -> Void
        let thunk: @convention(c) (gpointer?, gpointer?, gint, gpointer?) -> Void = { _, a, n, data in
            unbox(data, as: F.self)(a, n)
        }
        return make(object, signal, after: after, handler, thunk: unsafeBitCast(thunk, to: GCallback.self))
    }
}
