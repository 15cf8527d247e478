import Foundation
import GLibKit
import Synchronization

/// A photo operation whose work runs on a thread of its own: `start()` hands `main()` to a new
/// thread and returns, and the operation is finished when `main()` returns.
///
/// Foundation's queues on Linux run operations on libdispatch's shared pool, about two threads
/// per core, which grows only about one thread a second while its threads are blocked; work
/// that waits on the network or a disk held those threads, so no more than two or three
/// transfers ran at once and a ready filtration waited for a whole transfer to end before it
/// got a thread. Cancelling also cancels `cancellable`, which aborts a transfer in flight, not
/// just the next step.
open class ThreadedPhotoOperation: PhotoOperation, @unchecked Sendable {
    /// Cancelled with the operation; pass it to every blocking call of the work.
    public let cancellable = Cancellable()
    private let running = Atomic<Bool>(false)
    private let done = Atomic<Bool>(false)

    public override func cancel() {
        super.cancel()
        cancellable.cancel()
    }

    public override var isAsynchronous: Bool { true }
    public override var isExecuting: Bool { running.load(ordering: .acquiring) }
    public override var isFinished: Bool { done.load(ordering: .acquiring) }

    public override func start() {
        if isCancelled {
            finish()
            return
        }
        running.store(true, ordering: .releasing)
        didChangeValue(forKey: "isExecuting")
        let thread = Thread { [self] in
            main()
            finish()
        }
        thread.name = name
        thread.start()
    }

    private func finish() {
        running.store(false, ordering: .releasing)
        didChangeValue(forKey: "isExecuting")
        done.store(true, ordering: .releasing)
        didChangeValue(forKey: "isFinished")
        releaseDependents()
    }
}
