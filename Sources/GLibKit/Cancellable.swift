import CGLib
import Synchronization

/// A `GCancellable` that Swift code can cancel from any thread, and bridge to task cancellation.
public final class Cancellable: @unchecked Sendable {
    private let ref: ObjectRef<GCancellable>

    public init() {
        ref = ObjectRef(taking: g_cancellable_new())
    }

    /// The C object to pass to GIO / libsoup calls.
    public var pointer: UnsafeMutablePointer<GCancellable> { ref.pointer }

    /// Cancels every call using this cancellable; safe from any thread, idempotent.
    public func cancel() { g_cancellable_cancel(ref.pointer) }

    public var isCancelled: Bool { g_cancellable_is_cancelled(ref.pointer) != 0 }

    /// Runs `action` when this is cancelled, on the thread that cancels (at once, here, if it is
    /// cancelled already), until the returned handler is disconnected.
    public func onCancel(_ action: @escaping @Sendable () -> Void) -> CancelHandler {
        CancelHandler(self, action)
    }

    /// Runs `body` with a fresh cancellable that is cancelled when the current task is.
    public static func bridgingTask<R>(_ body: (Cancellable) async throws -> R) async rethrows -> R {
        let cancellable = Cancellable()
        return try await withTaskCancellationHandler {
            try await body(cancellable)
        } onCancel: {
            cancellable.cancel()
        }
    }
}

/// An action connected to a `Cancellable` (see `Cancellable.onCancel`); `disconnect()` it when
/// the work it guards ends.
public final class CancelHandler: Sendable {
    private let cancellable: Cancellable
    private let handler: gulong

    /// The action, handed to the callback on another thread.
    private final class Box: Sendable {
        let action: @Sendable () -> Void
        let published = Atomic<Bool>(false)
        init(_ action: @escaping @Sendable () -> Void) { self.action = action }
    }

    fileprivate init(_ cancellable: Cancellable, _ action: @escaping @Sendable () -> Void) {
        self.cancellable = cancellable
        let box = Box(action)
        // GLib orders the callback after the connection with a lock of its own, which thread
        // checkers do not see; the release here and the acquire in the callback say so to them.
        box.published.store(true, ordering: .releasing)
        let callback: @convention(c) (UnsafeMutablePointer<GCancellable>?, gpointer?) -> Void = { _, data in
            let box = Unmanaged<Box>.fromOpaque(data!).takeUnretainedValue()
            _ = box.published.load(ordering: .acquiring)
            box.action()
        }
        handler = g_cancellable_connect(
            cancellable.pointer, unsafeBitCast(callback, to: GCallback.self),
            Unmanaged.passRetained(box).toOpaque()
        ) { data in
            Unmanaged<Box>.fromOpaque(data!).release()
        }
    }

    /// Stops watching (waits for the action if it is running on another thread).
    public func disconnect() {
        g_cancellable_disconnect(cancellable.pointer, handler)
    }
}
