import Dispatch

/// Lets go of `value` on a worker thread, leaving `empty` in its place: the rows of a folder
/// of 100,000 photos, or their sort facts, took the main thread tens of milliseconds to free.
///
/// The worker empties the box it is handed. Were the value only captured by the worker's
/// closure, whichever thread let go of it last would free it, and that was the main thread
/// whenever the worker ran first.
public func releaseOnWorker<Value: Sendable>(_ value: inout Value, leaving empty: Value) {
    let box = Locked(value)
    value = empty
    DispatchQueue.global(qos: .utility).async { box.withLock { $0 = empty } }
}
