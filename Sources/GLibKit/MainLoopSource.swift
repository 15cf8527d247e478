import CGLib
import Synchronization

/// A Swift closure attached to a GLib main context as a `GSource`: an idle call, a timeout,
/// a Unix signal or a file descriptor watch.
///
/// The closure lives in a box that GLib holds as the source's callback data and releases in
/// the source's destroy-notify: when the closure returns `.remove`, when `cancel()` is called,
/// or when the handle is dropped (its `deinit` destroys the source). An owner that keeps the
/// handle in a stored property therefore never leaves a callback behind that points at it.
/// Fire-and-forget work that must run even though nobody keeps a handle goes through
/// `attachDetached`, which GLib alone owns until the closure returns `.remove`.
///
/// Threads: the closure runs on whichever thread iterates the context it was attached to (the
/// GTK thread for the default context), never on the thread that created it unless that is the
/// same one, so it must be `@Sendable`. A handle may be created, cancelled and dropped on any
/// thread: it holds only a reference to the `GSource`, and `g_source_destroy` is thread-safe.
/// Cancelling from another thread while the closure is running lets that run finish; it never
/// starts again, and its box is released once it has returned.
public final class MainLoopSource: @unchecked Sendable {
    /// What a callback asks for once it has run: to be called again, or to be removed.
    public enum Action: Sendable {
        /// Keep the source (`G_SOURCE_CONTINUE`).
        case `continue`
        /// Destroy the source and release the closure (`G_SOURCE_REMOVE`).
        case remove
    }

    /// What wakes the source.
    public enum Trigger: Sendable {
        /// Every iteration of the context in which nothing of higher priority is ready.
        case idle
        /// After the interval, then again every interval while the callback continues.
        case timeout(milliseconds: UInt32)
        /// A Unix signal GLib can watch (`SIGHUP`, `SIGINT`, `SIGTERM`, `SIGUSR1`, `SIGUSR2`,
        /// `SIGWINCH`), delivered on the context's thread instead of in a signal handler.
        case unixSignal(Int32)
        /// A file descriptor in one of the given conditions (`G_IO_IN`, `G_IO_OUT`, ...).
        case fileDescriptor(Int32, condition: GIOCondition)
    }

    /// The number of callback boxes GLib still holds (for leak tests).
    public static var liveCallbackCount: Int { CallbackBox.live.load(ordering: .acquiring) }

    private let source: UnsafeMutablePointer<GSource>

    /// Attaches `callback` to `context` (the default main context when nil). The source stays
    /// attached until the callback returns `.remove`, `cancel()` is called or the handle is dropped.
    public init(
        _ trigger: Trigger, priority: Int32 = G_PRIORITY_DEFAULT, on context: OpaquePointer? = nil,
        _ callback: @escaping @Sendable () -> Action
    ) {
        source = Self.attach(trigger, priority: priority, on: context, callback)
    }

    /// Attaches `callback` with no handle: it runs until it returns `.remove` (or its context is
    /// destroyed), whoever created it. For one-shot work such as `MainLoop.perform`.
    public static func attachDetached(
        _ trigger: Trigger, priority: Int32 = G_PRIORITY_DEFAULT,
        on context: OpaquePointer? = nil,
        _ callback: @escaping @Sendable () -> Action
    ) {
        g_source_unref(attach(trigger, priority: priority, on: context, callback))
    }

    /// A timeout (or idle call, watch) of the default context whose callback runs on the main
    /// actor: that context is run by the main thread.
    @MainActor
    public static func onMainActor(
        _ trigger: Trigger, priority: Int32 = G_PRIORITY_DEFAULT,
        _ callback: @escaping @MainActor @Sendable () -> Action
    ) -> MainLoopSource {
        MainLoopSource(trigger, priority: priority) { MainActor.assumeIsolated { callback() } }
    }

    /// False once the source is gone: cancelled, or removed by its callback.
    public var isActive: Bool { g_source_is_destroyed(source) == 0 }

    /// Removes the source from its context and releases the closure (unless it is running on
    /// another thread right now; then it is released when that run returns). Safe to call twice.
    public func cancel() {
        g_source_destroy(source)
    }

    deinit {
        g_source_destroy(source)
        g_source_unref(source)
    }

    // MARK: - Plumbing

    /// Holds the closure GLib calls; GLib owns one retain, dropped in the destroy-notify.
    private final class CallbackBox {
        static let live = Atomic<Int>(0)
        let callback: @Sendable () -> Action
        /// GLib hands the box to the thread that runs the context under a lock of its own,
        /// which thread checkers do not see; this release and the acquire in `call` say so.
        private let published = Atomic<Bool>(false)

        init(_ callback: @escaping @Sendable () -> Action) {
            self.callback = callback
            Self.live.add(1, ordering: .relaxed)
            published.store(true, ordering: .releasing)
        }

        deinit { Self.live.subtract(1, ordering: .releasing) }

        static func call(_ data: gpointer?) -> gboolean {
            let box = Unmanaged<CallbackBox>.fromOpaque(data!).takeUnretainedValue()
            _ = box.published.load(ordering: .acquiring)
            return box.callback() == .continue ? gboolean(1) : gboolean(0)
        }
    }

    /// Creates, configures and attaches the source; returns it with the caller's reference.
    private static func attach(
        _ trigger: Trigger, priority: Int32, on context: OpaquePointer?,
        _ callback: @escaping @Sendable () -> Action
    ) -> UnsafeMutablePointer<GSource> {
        let source: UnsafeMutablePointer<GSource>
        let function: GSourceFunc
        switch trigger {
        case .idle:
            source = g_idle_source_new()
            function = { data in CallbackBox.call(data) }
        case .timeout(let milliseconds):
            source = g_timeout_source_new(milliseconds)
            function = { data in CallbackBox.call(data) }
        case .unixSignal(let signal):
            source = g_unix_signal_source_new(signal)
            function = { data in CallbackBox.call(data) }
        case .fileDescriptor(let fd, let condition):
            source = g_unix_fd_source_new(fd, condition)
            // A Unix fd source calls a GUnixFDSourceFunc (fd, condition, data) through the
            // GSourceFunc slot.
            let fdFunction: GUnixFDSourceFunc = { _, _, data in CallbackBox.call(data) }
            function = unsafeBitCast(fdFunction, to: GSourceFunc.self)
        }
        g_source_set_priority(source, priority)
        let box = Unmanaged.passRetained(CallbackBox(callback)).toOpaque()
        g_source_set_callback(source, function, box) { data in
            Unmanaged<CallbackBox>.fromOpaque(data!).release()
        }
        g_source_attach(source, context ?? g_main_context_default())
        return source
    }
}
