import Foundation
import GLibKit

/// Fetches one photo's bytes (or, for a local picture, checks that it can be read), on a thread of its own (see `ThreadedPhotoOperation`): the
/// download queue waits on the network or the disk, never on the CPU. Decoding the bytes at
/// the row's size is the filtration's work, one per core (see `ImageFiltration`).
///
/// Where the download comes from is its chain's business (see `DownloadChain`): a cached
/// thumbnail, the one the photo holds, the file, or the web, head first. A thumbnail that
/// serves the row is the download, and the filtration only applies the sepia.
public final class ImageDownloader: ThreadedPhotoOperation, @unchecked Sendable {
    private let fetcher: PhotoFetcher
    private let frame: ThumbnailFrame
    private let chain: DownloadChain
    private let fetched = Locked<Data?>(nil)
    /// This download's place among the rows' downloads the viewer may join (see `start()`).
    private let shared = Locked<WorkSharing<PhotoRequest, Operation, Data?>.Ticket?>(nil)

    /// - Parameters:
    ///   - thumbnails: the desktop's thumbnail cache, read and written for local pictures
    ///     (nil: neither).
    ///   - remoteThumbnails: the app's cache of thumbnails of web photos, read (and, by the
    ///     filtration, written) for photos the server lets clients keep (nil: neither).
    public init(
        record: PhotoRecord, fetcher: PhotoFetcher, frame: ThumbnailFrame, thumbnails: ThumbnailCache? = nil,
        remoteThumbnails: ThumbnailCache? = nil, gate: SuspensionGate? = nil
    ) {
        self.fetcher = fetcher
        self.frame = frame
        chain = .standard(thumbnails: thumbnails, remoteThumbnails: remoteThumbnails)
        super.init(record: record, kind: .download, gate: gate)
    }

    /// A download for a row's square of `maxPixelSize` pixels.
    public convenience init(record: PhotoRecord, fetcher: PhotoFetcher, maxPixelSize: Int) {
        self.init(record: record, fetcher: fetcher, frame: .square(maxPixelSize))
    }

    /// The bytes downloaded, once the download has succeeded (nil before, and if it failed, was
    /// cancelled or the desktop's thumbnail was used). The photo viewer, opened on this photo
    /// while it downloads, waits for the download and decodes these at its own size.
    public var bytes: Data? { fetched.withLock { $0 } }

    /// Offers the download to the viewer as it starts: the viewer, opened on this photo while it
    /// runs, joins it for its bytes.
    public override func start() {
        if !isCancelled, let url = try? record.entry.resolvedURL() {
            let request = PhotoRequest(address: url, size: nil, kind: .rowDownload(record.id))
            let ticket = fetcher.rowDownloads.join(request) { _ in self }
            shared.withLock { $0 = ticket }
        }
        super.start()
    }

    /// A cancelled download is not joined any more: a new one for its row takes its place.
    public override func cancel() {
        super.cancel()
        endSharing()
    }

    public override func main() {
        defer { endSharing() }
        guard beginWork() else { return }
        let limits = fetcher.limits
        // The photo's deadline cancels its transfer alone, and says so: a timeout, where
        // cancelling the operation is a cancellation.
        let link = LinkedCancellable(parent: cancellable)
        let deadline = Deadline(seconds: limits.photoSeconds, cancelling: link.child)
        defer { deadline.stop(); link.disconnect() }
        do throws(PhotoFailure) {
            let attempt = DownloadAttempt(
                record: record, url: try record.entry.resolvedURL(), frame: frame, fetcher: fetcher,
                cancellable: link.child, isCancelled: { [unowned self] in isCancelled },
                onBody: { [fetched] body in fetched.withLock { $0 = body } })
            guard let result = try chain.download(attempt), !isCancelled else { return }
            record.markDownloaded(result.shaped(for: frame))
            traceFinished(state: .downloaded)
        } catch {
            if isCancelled { return }
            if error.isCancellation {
                guard deadline.stop() else { return }
                fail(
                    PhotoFailure(
                        .timeout,
                        detail: "The photo took longer than \(PhotoLimits.seconds(limits.photoSeconds)) to load"))
                return
            }
            fail(error)
        }
    }

    /// Hands the viewer, if it joined, the bytes downloaded (nil if none, or cancelled: it reads
    /// the photo itself). Once only.
    private func endSharing() {
        guard
            let ticket = shared.withLock({ ticket in
                defer { ticket = nil }; return ticket
            })
        else { return }
        if ticket.started {
            fetcher.rowDownloads.finish(ticket.work, .success(bytes))
        } else {
            fetcher.rowDownloads.leave(ticket)
        }
    }
}
