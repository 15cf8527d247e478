/// Applies the sepia filter to a downloaded photo. Depends on its download, if it has one,
/// and does nothing when that download failed or was cancelled.
import Foundation

public final class ImageFiltration: Operation, @unchecked Sendable {
    public let record: PhotoRecord
    private let filter: SepiaFilter

    public init(record: PhotoRecord, filter: SepiaFilter = SepiaFilter()) {
        self.record = record
        self.filter = filter
        super.init()
        name = "Filter \(record.row)"
    }

    public override func main() {
        if isCancelled || dependencies.contains(where: \.isCancelled) { return }
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
