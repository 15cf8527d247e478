import Foundation
import GLibKit
import Synchronization

/// Downloads one photo and decodes it at the size its row shows it, on a thread of its own
/// (see `ThreadedPhotoOperation`).
public final class ImageDownloader: ThreadedPhotoOperation, @unchecked Sendable {
    private let fetcher: PhotoFetcher
    private let maxPixelSize: Int
    private let thumbnails: ThumbnailCache?

    /// - Parameter thumbnails: the desktop's thumbnail cache, read and written for local
    ///   pictures (nil: neither).
    public init(record: PhotoRecord, fetcher: PhotoFetcher, maxPixelSize: Int, thumbnails: ThumbnailCache? = nil,
                gate: SuspensionGate? = nil) {
        self.fetcher = fetcher
        self.thumbnails = thumbnails
        self.maxPixelSize = maxPixelSize
        super.init(record: record, kind: .download, gate: gate)
    }

    /// The bytes read so far, kept while the download runs so that the photo viewer, opened on
    /// this photo meanwhile, can decode them at its own size instead of downloading the photo
    /// again. Dropped when the download ends unless `shareBytes()` asked for them.
    private struct ByteShare {
        var bytes = Data()
        var wanted = false
        var ended = false
        var tooLarge = false
    }
    private let byteShare = Mutex(ByteShare())
    /// Beyond this many bytes a download keeps none for sharing (the viewer reads the photo itself).
    public static let maxSharedBytes = 64 << 20

    /// Asks the download to hand over the bytes it read once it has finished. False if they
    /// are gone already (the download ended and dropped them, or the photo is too large).
    public func shareBytes() -> Bool {
        byteShare.withLock { share in
            guard !share.tooLarge, !(share.ended && !share.wanted) else { return false }
            share.wanted = true
            return true
        }
    }

    /// The whole photo as downloaded, after a successful download asked to share it; nil
    /// otherwise (failed, cancelled, not asked, or taken already).
    public func takeSharedBytes() -> Data? {
        byteShare.withLock { share in
            guard share.ended, share.wanted, !share.tooLarge, !share.bytes.isEmpty else { return nil }
            defer { share.bytes = Data() }
            return share.bytes
        }
    }

    private func keep(_ chunk: UnsafeRawBufferPointer) {
        byteShare.withLock { share in
            guard !share.tooLarge else { return }
            if share.bytes.count + chunk.count > Self.maxSharedBytes {
                share.tooLarge = true
                share.bytes = Data()
            } else {
                share.bytes.append(contentsOf: chunk)
            }
        }
    }

    /// The download ended: its bytes stay only if they are complete and wanted.
    private func endSharing(complete: Bool) {
        byteShare.withLock { share in
            share.ended = true
            if !complete || !share.wanted { share.bytes = Data() }
        }
    }

    public override func main() {
        var complete = false
        defer { endSharing(complete: complete) }
        guard beginWork() else { return }
        let limits = fetcher.limits
        // The photo's deadline cancels its transfer and decode alone, and says so: a timeout,
        // where cancelling the operation is a cancellation.
        let link = LinkedCancellable(parent: cancellable)
        let deadline = Deadline(seconds: limits.photoSeconds, cancelling: link.child)
        defer { deadline.stop(); link.disconnect() }
        do {
            let url = try record.entry.resolvedURL()
            let key = thumbnails?.key(for: url)
            if let thumbnails, let key,
               let cached = thumbnails.thumbnail(of: key, atLeast: .serving(squareSide: maxPixelSize), shorterSide: maxPixelSize) {
                // The desktop's thumbnail cache has this version of the picture: no decode.
                if isCancelled { return }
                record.markDownloaded(ImageDecoder.centreSquare(of: cached, side: maxPixelSize))
                traceFinished(state: .downloaded)
                return
            }
            let stream = try fetcher.open(url, cancellable: link.child)
            if isCancelled { return }
            // A local picture is decoded whole, as a thumbnail of the cache's sizes, stored there
            // for next time (and for the file manager), and the row's square is cut from it.
            let size: DecodeSize = key == nil ? .square(maxPixelSize) : .thumbnail(square: maxPixelSize)
            var image = try ImageDecoder.decode(stream, size: size, limits: limits.decode,
                                                budget: fetcher.budget, cancellable: link.child,
                                                onChunk: { [self] in keep($0) })
            complete = true
            if let thumbnails, let key, !isCancelled {
                // Scaled to a size's box exactly, or (a smaller picture) whole, in the size that
                // would have been used had it been larger.
                let box = ThumbnailCache.Size(rawValue: max(image.width, image.height))
                    ?? .fitting(square: maxPixelSize, width: image.width, height: image.height)
                thumbnails.store(image, of: key, size: box)
                image = ImageDecoder.centreSquare(of: image, side: maxPixelSize)
            }
            if isCancelled { return }
            record.markDownloaded(image)
            traceFinished(state: .downloaded)
        } catch {
            if isCancelled { return }
            if error.isCancellation {
                guard deadline.stop() else { return }
                fail(PhotoFailure(.timeout, detail: "The photo took longer than \(PhotoLimits.seconds(limits.photoSeconds)) to load"))
                return
            }
            fail(error)
        }
    }
}
