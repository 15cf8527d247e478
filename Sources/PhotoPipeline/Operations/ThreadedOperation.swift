/// An asynchronous `Operation` that runs its work on a thread of its own.
///
/// Foundation's queues run synchronous operations on libdispatch's pool, which on Linux keeps
/// about two threads per core busy; downloads spend their time waiting on the network, so a
/// download queue of width 8 would really run 4. Running each download on its own thread
/// lets the queue's `maxConcurrentOperationCount` mean what it says, while dependencies,
/// priorities, suspension and cancellation still come from `OperationQueue`.
import Foundation
import Synchronization

open class ThreadedOperation: Operation, @unchecked Sendable {
    private let phase = Mutex<(executing: Bool, finished: Bool)>((false, false))

    public override init() { super.init() }

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool { phase.withLock { $0.executing } }
    open override var isFinished: Bool { phase.withLock { $0.finished } }

    /// The work; runs on a dedicated thread. Subclasses check `isCancelled` as they go.
    open func execute() {}

    public final override func start() {
        if isCancelled {
            finish()
            return
        }
        willChangeValue(forKey: "isExecuting")
        phase.withLock { $0.executing = true }
        didChangeValue(forKey: "isExecuting")
        let thread = Thread { [self] in
            execute()
            finish()
        }
        thread.name = name
        thread.start()
    }

    private func finish() {
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        phase.withLock { $0 = (false, true) }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}
