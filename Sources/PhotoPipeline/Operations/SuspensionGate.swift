import Synchronization

/// Tells operations whether their queues are suspended at the moment they begin.
///
/// Suspending a Foundation `OperationQueue` stops it from scheduling more operations, but on
/// Linux the ones it already handed to libdispatch still begin as soon as a pool thread is
/// free, which can be in the middle of a scroll. An operation that begins while the gate is
/// closed does no work and reports itself deferred; the processor then forgets it, and the
/// scroll's end starts the row again if it is still wanted. (Waiting at the gate instead
/// would hold a pool thread, and Foundation's queue lock with it, for the whole scroll.)
public final class SuspensionGate: Sendable {
    private let state = Atomic<Bool>(true)

    public init() {}

    public var isOpen: Bool {
        get { state.load(ordering: .acquiring) }
        set { state.store(newValue, ordering: .releasing) }
    }
}
