import CGLib

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
