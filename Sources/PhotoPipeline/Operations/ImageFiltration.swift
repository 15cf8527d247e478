/// Applies the sepia filter to a downloaded photo. It does nothing unless the record is
/// downloaded (so never after a failed or cancelled download), nor if any operation it was
/// made to depend on was cancelled.
import Foundation
import Synchronization

public final class ImageFiltration: Operation, @unchecked Sendable {
    public let record: PhotoRecord
    private let filter: SepiaFilter
    private let gate: SuspensionGate?
    private let deferredFlag = Atomic<Bool>(false)
    /// True if the operation began while its queues were suspended and so did nothing.
    public var wasDeferred: Bool { deferredFlag.load(ordering: .acquiring) }

    public init(record: PhotoRecord, filter: SepiaFilter = SepiaFilter(), gate: SuspensionGate? = nil) {
        self.record = record
        self.filter = filter
        self.gate = gate
        super.init()
        name = "Filter \(record.row)"
    }

    public override func main() {
        if isCancelled || dependencies.contains(where: \.isCancelled) { return }
        if let gate, !gate.isOpen {
            deferredFlag.store(true, ordering: .releasing)
            return
        }
        let snapshot = record.snapshot
        guard snapshot.state == .downloaded, let image = snapshot.image else { return }
        let trace = Trace.shared
        let started = trace.now
        trace.emit("op.start", ["kind": "filter", "row": .int(record.row)])
        guard let filtered = filter.apply(to: image, isCancelled: { [unowned self] in isCancelled }),
              !isCancelled
        else { return }
        record.markFiltered(filtered)
        trace.emit("op.finish", ["kind": "filter", "row": .int(record.row), "ms": .double((trace.now - started) * 1000)])
        trace.emit("row.state", ["row": .int(record.row), "state": "filtered"])
    }
}
