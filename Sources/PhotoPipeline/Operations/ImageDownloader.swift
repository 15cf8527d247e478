/// Downloads one photo and decodes it at the size its row shows it.
import Foundation
import Synchronization
import GLibKit

public final class ImageDownloader: Operation, @unchecked Sendable {
    public let record: PhotoRecord
    private let fetcher: PhotoFetcher
    private let maxPixelSize: Int
    private let gate: SuspensionGate?
    private let deferredFlag = Atomic<Bool>(false)
    /// True if the operation began while its queues were suspended and so did nothing.
    public var wasDeferred: Bool { deferredFlag.load(ordering: .acquiring) }
    // Cancelling the GCancellable aborts the transfer in flight, not just the next step.
    private let cancellable = Cancellable()

    public init(record: PhotoRecord, fetcher: PhotoFetcher, maxPixelSize: Int, gate: SuspensionGate? = nil) {
        self.record = record
        self.fetcher = fetcher
        self.maxPixelSize = maxPixelSize
        self.gate = gate
        super.init()
        name = "Download \(record.row)"
    }

    public override func cancel() {
        super.cancel()
        cancellable.cancel()
    }

    public override func main() {
        if isCancelled { return }
        if let gate, !gate.isOpen {
            deferredFlag.store(true, ordering: .releasing)
            return
        }
        let trace = Trace.shared
        let started = trace.now
        trace.emit("op.start", ["kind": "download", "row": .int(record.row)])
        do {
            let stream = try fetcher.open(record.url, cancellable: cancellable)
            if isCancelled { return }
            let image = try ImageDecoder.decode(stream, size: .square(maxPixelSize), cancellable: cancellable,
                                                isCancelled: { [unowned self] in isCancelled })
            if isCancelled { return }
            record.markDownloaded(image)
            trace.emit("op.finish", ["kind": "download", "row": .int(record.row), "ms": .double((trace.now - started) * 1000)])
            trace.emit("row.state", ["row": .int(record.row), "state": "downloaded"])
        } catch {
            if isCancelled || error.isCancellation { return }
            record.markFailed(error.description)
            trace.emit("op.fail", ["kind": "download", "row": .int(record.row), "error": .string(error.description)])
            trace.emit("row.state", ["row": .int(record.row), "state": "failed"])
        }
    }
}
