/// Downloads one photo and decodes it at the size its row shows it.
import Foundation
import GLibKit

public final class ImageDownloader: PhotoOperation, @unchecked Sendable {
    private let fetcher: PhotoFetcher
    private let maxPixelSize: Int
    // Cancelling the GCancellable aborts the transfer in flight, not just the next step.
    private let cancellable = Cancellable()

    public init(record: PhotoRecord, fetcher: PhotoFetcher, maxPixelSize: Int, gate: SuspensionGate? = nil) {
        self.fetcher = fetcher
        self.maxPixelSize = maxPixelSize
        super.init(record: record, kind: "download", gate: gate)
    }

    public override func cancel() {
        super.cancel()
        cancellable.cancel()
    }

    public override func main() {
        guard beginWork() else { return }
        do {
            let stream = try fetcher.open(record.url, cancellable: cancellable)
            if isCancelled { return }
            let image = try ImageDecoder.decode(stream, size: .square(maxPixelSize), cancellable: cancellable,
                                                isCancelled: { [unowned self] in isCancelled })
            if isCancelled { return }
            record.markDownloaded(image)
            traceFinished(state: .downloaded)
        } catch {
            if isCancelled || error.isCancellation { return }
            record.markFailed(error.description)
            traceFailed(error.description)
        }
    }
}
