import CDecoderSandbox
import Foundation
import GLibKit
import Synchronization

/// The kinds of photo work, as the trace's `op.*` events name them: a row's download and
/// filter, and the photo viewer's own load (download or read, decode at the viewer's size) and
/// filter, which leave the row's state alone.
public enum OperationKind: String, Sendable, CaseIterable {
    case download, filter
    case view
    case viewFilter = "view-filter"
}

/// What the download and the filtration have in common: the record they work on, the
/// suspension gate they pass before any work, and their trace events (which name the photo's
/// position at that moment as `row`, and its identity as `id`).
open class PhotoOperation: Operation, @unchecked Sendable {
    public let record: PhotoRecord
    public let kind: OperationKind
    private let gate: SuspensionGate?
    private let deferredFlag = Atomic<Bool>(false)
    private let startedAt = Locked<Double>(0)
    /// Operations that depend on this one, kept alive until it has finished (see `addDependency`).
    private let dependents = Locked<[Operation]>([])

    public init(record: PhotoRecord, kind: OperationKind, gate: SuspensionGate?) {
        self.record = record
        self.kind = kind
        self.gate = gate
        super.init()
        name = "\(kind) \(record.id)"
    }

    /// Makes this operation wait for `operation`, which may sit in another queue.
    ///
    /// Foundation on Linux records the dependent on `operation` without retaining it and
    /// visits it when `operation` finishes. A dependent that was cancelled, ran (doing
    /// nothing) and was released in the meantime (a filtration whose row scrolled away while
    /// its download was still running) would then be read after being freed, which crashed
    /// the queue. So `operation` holds this one until it has finished. Add dependencies
    /// before queueing either operation.
    public override func addDependency(_ operation: Operation) {
        super.addDependency(operation)
        if let operation = operation as? PhotoOperation, !operation.isFinished {
            operation.dependents.withLock { $0.append(self) }
        }
    }

    /// Runs the operation, then lets go of its dependents: by the time `super.start()`
    /// returns, Foundation has told them that this operation finished.
    public override func start() {
        super.start()
        releaseDependents()
    }

    /// Call once Foundation has been told that this operation finished.
    func releaseDependents() {
        dependents.withLock { $0.removeAll() }
    }

    /// When the work began (`Trace.now` seconds), or 0 if it has not.
    var startTime: Double { startedAt.withLock { $0 } }

    /// True if the operation began while its queues were suspended and so did nothing.
    public var wasDeferred: Bool { deferredFlag.load(ordering: .acquiring) }

    /// Call first in `main()`: false means do nothing (cancelled, or deferred by a closed
    /// gate); true means the work begins, and `op.start` is traced.
    func beginWork() -> Bool {
        if isCancelled { return false }
        if let gate, !gate.isOpen {
            deferredFlag.store(true, ordering: .releasing)
            return false
        }
        // Photo work is background work: when it and the main loop both want a core, the main
        // loop goes first (Linux weighs a thread niced to 10 at a tenth of one at 0). The
        // decoder helpers are niced the same.
        _ = cp_nice_thread(10)
        let trace = Trace.shared
        startedAt.withLock { $0 = trace.now }
        trace.emit(.opStart(kind: kind, row: record.position, id: record.id))
        return true
    }

    /// Traces the work's success and the record's new state.
    func traceFinished(state: PhotoState) {
        traceWorkFinished()
        Trace.shared.emit(.rowState(row: record.position, id: record.id, state: state))
    }

    /// Traces the work's success (`op.finish`) alone, for work that does not change the record.
    func traceWorkFinished() {
        let trace = Trace.shared
        let ms = (trace.now - startedAt.withLock { $0 }) * 1000
        trace.emit(.opFinish(kind: kind, row: record.position, id: record.id, ms: ms))
    }

    /// Marks the record failed and traces it with its reason code.
    func fail(_ failure: PhotoFailure) {
        record.markFailed(failure)
        let trace = Trace.shared
        trace.emit(
            .opFail(kind: kind, row: record.position, id: record.id, error: failure.detail, reason: failure.reason))
        trace.emit(.rowState(row: record.position, id: record.id, state: .failed))
    }
}
