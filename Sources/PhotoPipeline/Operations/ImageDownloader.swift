import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// Fetches one photo's bytes (or, for a local picture, checks that it can be read), on a thread of its own (see `ThreadedPhotoOperation`): the
/// download queue waits on the network or the disk, never on the CPU. Decoding the bytes at
/// the row's size is the filtration's work, one per core (see `ImageFiltration`).
///
/// A local picture whose thumbnail the desktop's cache holds (made by a file manager, or by
/// this app before) is not read at all: the thumbnail is the download, and the filtration
/// only applies the sepia.
public final class ImageDownloader: ThreadedPhotoOperation, @unchecked Sendable {
    private let fetcher: PhotoFetcher
    private let maxPixelSize: Int
    private let thumbnails: ThumbnailCache?
    private let remoteThumbnails: ThumbnailCache?
    private let fetched = Locked<Data?>(nil)

    /// - Parameters:
    ///   - thumbnails: the desktop's thumbnail cache, read and written for local pictures
    ///     (nil: neither).
    ///   - remoteThumbnails: the app's cache of thumbnails of web photos, read (and, by the
    ///     filtration, written) for photos the server lets clients keep (nil: neither).
    public init(
        record: PhotoRecord, fetcher: PhotoFetcher, maxPixelSize: Int, thumbnails: ThumbnailCache? = nil,
        remoteThumbnails: ThumbnailCache? = nil, gate: SuspensionGate? = nil
    ) {
        self.fetcher = fetcher
        self.thumbnails = thumbnails
        self.remoteThumbnails = remoteThumbnails
        self.maxPixelSize = maxPixelSize
        super.init(record: record, kind: .download, gate: gate)
    }

    /// The bytes downloaded, once the download has succeeded (nil before, and if it failed, was
    /// cancelled or the desktop's thumbnail was used). The photo viewer, opened on this photo
    /// while it downloads, waits for the download and decodes these at its own size.
    public var bytes: Data? { fetched.withLock { $0 } }

    public override func main() {
        guard beginWork() else { return }
        let limits = fetcher.limits
        // The photo's deadline cancels its transfer alone, and says so: a timeout, where
        // cancelling the operation is a cancellation.
        let link = LinkedCancellable(parent: cancellable)
        let deadline = Deadline(seconds: limits.photoSeconds, cancelling: link.child)
        defer { deadline.stop(); link.disconnect() }
        do throws(PhotoFailure) {
            let url = try record.entry.resolvedURL()
            let key = thumbnails?.key(for: url)
            if let thumbnails, let key,
                let cached = thumbnails.thumbnail(
                    of: key, atLeast: .serving(squareSide: maxPixelSize), shorterSide: maxPixelSize)
            {
                return downloaded(thumbnail: cached)
            }
            if url.isFileURL {
                // Checked (this host, a regular file, not too large); only the thumbnail the
                // photo holds is read here, the rest by its decode if still needed.
                let stream = try PhotoFetcher.openFile(url, cancellable: link.child, byteLimit: limits.maxPhotoBytes)
                let preview =
                    RawPhoto.isRaw(url)
                    ? nil
                    : try embeddedPreview(
                        stream, byteLimit: limits.maxPhotoBytes,
                        cancellable: link.child)
                g_input_stream_close(stream.pointer, nil, nil)
                if isCancelled { return }
                if let preview, preview.covers(squareSide: maxPixelSize) { return downloaded(thumbnail: preview.image) }
                let shown = preview.map { ImageDecoder.centreSquare(of: $0.image, side: maxPixelSize) }
                record.markDownloaded(file: url, thumbnailKey: key, preview: shown)
                traceFinished(state: .downloaded)
                return
            }
            guard url.isWebAddress else {
                throw PhotoFetcher.unsupported(url)
            }
            if let remoteThumbnails,
                let cached = remoteThumbnails.thumbnail(
                    ofRemote: url, atLeast: .serving(squareSide: maxPixelSize), shorterSide: maxPixelSize)
            {
                // Thumbnailed before, and the server's permission to keep the photo still holds.
                return downloaded(thumbnail: cached)
            }
            let response: HTTPResponse
            if Self.readsHeadFirst(url) {
                switch try fetcher.fetchHead(
                    url, bytes: Self.headBytes, cancellable: link.child, byteLimit: limits.maxPhotoBytes,
                    policy: record.entry.addressPolicy)
                {
                case .whole(let whole):
                    response = whole
                case .partial(let head, let total, let freshUntil):
                    if isCancelled { return }
                    if let preview = traced(Decoding.preview(head, squareSide: maxPixelSize, cancellable: link.child)),
                        preview.covers(squareSide: maxPixelSize)
                    {
                        keep(preview, of: url, totalBytes: total, freshUntil: freshUntil)
                        return downloaded(thumbnail: preview.image)
                    }
                    // The head cannot serve the row: the whole photo, in a request of its own
                    // (one the disk cache may keep, which a part never is).
                    response = try fetcher.fetchHTTP(
                        url, cancellable: link.child, byteLimit: limits.maxPhotoBytes,
                        policy: record.entry.addressPolicy)
                }
            } else {
                response = try fetcher.fetchHTTP(
                    url, cancellable: link.child, byteLimit: limits.maxPhotoBytes, policy: record.entry.addressPolicy)
            }
            if isCancelled { return }
            let data = response.data
            guard !data.isEmpty else { throw PhotoFailure(.empty, detail: "The file or response holds no data") }
            fetched.withLock { $0 = data }
            // A whole JPEG (a server that ignored the range, or a head that could not serve):
            // its thumbnail still spares the decode, if large enough.
            if PictureSignature.isJPEG(data),
                let preview = traced(
                    Decoding.preview(data.prefix(128 << 10), squareSide: maxPixelSize, cancellable: link.child)),
                preview.covers(squareSide: maxPixelSize)
            {
                keep(preview, of: url, totalBytes: data.count, freshUntil: response.freshUntil)
                return downloaded(thumbnail: preview.image)
            }
            let remoteKey =
                remoteThumbnails == nil
                ? nil
                : response.freshUntil.map { ThumbnailCache.remoteKey(for: url, bytes: data.count, expires: $0) }
            record.markDownloaded(bytes: data, thumbnailKey: remoteKey)
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

    /// The thumbnail the photo at the start of `stream` holds, if any can be trusted (traced as
    /// `row.preview`): a JPEG's EXIF thumbnail lies in its first segments, so 128 KB are read;
    /// a HEIF file is read whole (its thumbnail item may lie anywhere).
    private func embeddedPreview(
        _ stream: ObjectRef<GInputStream>, byteLimit: Int,
        cancellable: Cancellable
    ) throws(PhotoFailure) -> EmbeddedPreview? {
        let buffer = ChunkBuffer()
        guard let first = try buffer.read(stream, cancellable: cancellable) else { return nil }
        var head = Data(first)
        let isHEIF = PictureSignature.isHEIF(head.prefix(12))
        guard isHEIF || PictureSignature.isJPEG(head) else { return nil }
        let wanted = isHEIF ? byteLimit : 128 << 10
        while head.count < wanted, !isCancelled, let chunk = try buffer.read(stream, cancellable: cancellable) {
            head.append(contentsOf: chunk)
        }
        guard !isCancelled else { return nil }
        return traced(Decoding.preview(head, squareSide: maxPixelSize, cancellable: cancellable))
    }

    /// `preview`, traced as `row.preview` if there is one.
    private func traced(_ preview: EmbeddedPreview?) -> EmbeddedPreview? {
        guard let preview else { return nil }
        Trace.shared.emit(
            .rowPreview(
                row: record.position, id: record.id, source: preview.origin.rawValue,
                w: preview.image.width, h: preview.image.height,
                covers: preview.covers(squareSide: maxPixelSize)))
        return preview
    }

    /// How much of a web photo is asked for first: a camera JPEG's EXIF block, thumbnail and
    /// all, lies within its first 64 KB (a JPEG segment holds at most that much).
    static let headBytes = 64 << 10

    /// Whether a web photo's head is asked for first: JPEGs by their address (and addresses
    /// that do not say), whose EXIF block may hold a thumbnail. Other formats carry none
    /// that the head would hold, and a second request would only cost them a round trip.
    static func readsHeadFirst(_ url: URL) -> Bool {
        ["", "jpg", "jpeg", "jpe", "jfif"].contains(url.pathExtension.lowercased())
    }

    /// Keeps a web photo's EXIF thumbnail in the app's cache of web thumbnails, for as long as
    /// the server lets the photo be kept, as the `normal` size (128 pixels), scaled down to
    /// it: never enlarged to pose as a larger size.
    private func keep(_ preview: EmbeddedPreview, of url: URL, totalBytes: Int?, freshUntil: Date?) {
        guard let remoteThumbnails, let freshUntil, let totalBytes else { return }
        let box = ThumbnailCache.Size.normal
        let (width, height) = ImageDecoder.scaledSize(
            width: preview.image.width, height: preview.image.height, for: .fit(box.rawValue))
        guard max(preview.image.width, preview.image.height) >= box.rawValue,
            let scaled = gdk_pixbuf_scale_simple(preview.image.pixbuf, Int32(width), Int32(height), GDK_INTERP_BILINEAR)
        else { return }
        remoteThumbnails.store(
            PhotoImage(taking: scaled), of: ThumbnailCache.remoteKey(for: url, bytes: totalBytes, expires: freshUntil),
            size: box)
    }

    /// A cached thumbnail is the download: the row's square is cut from it, and the filtration
    /// only applies the sepia.
    private func downloaded(thumbnail: PhotoImage) {
        if isCancelled { return }
        record.markDownloaded(ImageDecoder.centreSquare(of: thumbnail, side: maxPixelSize))
        traceFinished(state: .downloaded)
    }
}
