import Foundation

/// Applies the sepia filter to a downloaded photo. It does nothing unless the record is
/// downloaded (so never after a failed or cancelled download), nor if any operation it was
/// made to depend on was cancelled.
public final class ImageFiltration: PhotoOperation, @unchecked Sendable {
    private let filter: SepiaFilter

    public init(record: PhotoRecord, filter: SepiaFilter = SepiaFilter(), gate: SuspensionGate? = nil) {
        self.filter = filter
        super.init(record: record, kind: .filter, gate: gate)
    }

    public override func main() {
        if dependencies.contains(where: \.isCancelled) { return }
        let snapshot = record.snapshot(isBusy: true)
        guard snapshot.state == .downloaded, let image = snapshot.image, beginWork() else { return }
        guard let filtered = filter.apply(to: image, isCancelled: { [unowned self] in isCancelled }),
              !isCancelled
        else { return }
        record.markFiltered(filtered)
        traceFinished(state: .filtered)
    }
}
