import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// How the filtration turns a downloaded photo's bytes into its row's picture.
public struct RowDecoding: Sendable {
    /// The box the picture is made for, in device pixels (the row's or cell's size × scale factor).
    public var frame: ThumbnailFrame
    public var limits: DecodeLimits
    /// The memory decodes in flight share.
    public var budget: DecodeMemoryBudget
    /// The desktop's thumbnail cache, written for local pictures (nil: not used).
    public var thumbnails: ThumbnailCache?
    /// The app's cache of thumbnails of web photos, written for photos the server lets
    /// clients keep (nil: not used).
    public var remoteThumbnails: ThumbnailCache?
    /// Pictures shared by rows showing the same photo (nil: each row decodes its own).
    public var shared: SharedPictures?

    public init(
        frame: ThumbnailFrame, limits: DecodeLimits = .standard, budget: DecodeMemoryBudget = .shared,
        thumbnails: ThumbnailCache? = nil, remoteThumbnails: ThumbnailCache? = nil, shared: SharedPictures? = nil
    ) {
        self.frame = frame
        self.limits = limits
        self.budget = budget
        self.thumbnails = thumbnails
        self.remoteThumbnails = remoteThumbnails
        self.shared = shared
    }
}

/// Turns a downloaded photo into the picture its row shows: decodes its bytes at the row's
/// size (scaling while decoding, so a camera photo never exists at full size) and applies the
/// sepia filter. This is the CPU's share of a photo's work; the filtration queue runs one per
/// core, visible rows first, so the photos on screen do not share the processor with those
/// ahead of it. It does nothing unless the record is downloaded (so never after a failed or
/// cancelled download), nor if any operation it was made to depend on was cancelled.
public final class ImageFiltration: PhotoOperation, @unchecked Sendable {
    private let filter: SepiaFilter
    private let decoding: RowDecoding
    private let cancellable = Cancellable()

    public init(
        record: PhotoRecord, filter: SepiaFilter = SepiaFilter(),
        decoding: RowDecoding = RowDecoding(frame: .square(160)),
        gate: SuspensionGate? = nil
    ) {
        self.filter = filter
        self.decoding = decoding
        super.init(record: record, kind: .filter, gate: gate)
    }

    public override func cancel() {
        super.cancel()
        cancellable.cancel() // a decode waiting for room in the memory budget stops waiting
    }

    public override func main() {
        if dependencies.contains(where: \.isCancelled) { return }
        guard let downloaded = record.downloaded, beginWork() else { return }
        let work = { () throws(PhotoFailure) -> PhotoImage in
            // A picture decoded here is this operation's alone, so the sepia goes into it in
            // place; one the record holds (a cached thumbnail) is copied first.
            let image: PhotoImage
            switch downloaded {
            case .picture(let decoded):
                image = PhotoImage(taking: gdk_pixbuf_copy(decoded.pixbuf)!)
                decoded.passVideoMarks(to: image)
            case .bytes(let bytes, let key) where self.record.entry.isVideo:
                // A video from the web or a share, read whole: its frame from memory.
                image = try self.videoFrame(.bytes(bytes), thumbnailKey: key)
            case .bytes(let bytes, let key):
                let raw = (try? self.record.entry.resolvedURL()).map(RawPhoto.isRaw) ?? false
                image = try self.decode(.bytes(bytes), raw: raw, thumbnailKey: key)
            case .file(let url, let key, _) where VideoFile.isVideo(url):
                // A video is opened whatever its size: its frame is found through its index.
                let stream = try PhotoFetcher.openFile(url, cancellable: self.cancellable, byteLimit: .max)
                image = try self.videoFrame(.stream(stream), thumbnailKey: key)
            case .file(let url, let key, _):
                // A RAW file is read whole for LibRaw; its camera's preview is what is decoded.
                let stream = try PhotoFetcher.openFile(
                    url, cancellable: self.cancellable, byteLimit: self.decoding.limits.maxBytes)
                image = try self.decode(.stream(stream), raw: RawPhoto.isRaw(url), thumbnailKey: key)
            }
            if self.isCancelled { throw PhotoFailure.cancelled }
            self.noteMotion(on: image)
            guard self.filter.applyInPlace(image, isCancelled: { [unowned self] in isCancelled }) else {
                throw PhotoFailure.cancelled
            }
            return image
        }
        let filtered: PhotoImage
        do throws(PhotoFailure) {
            // Another row showing the same photo at this size shares its decode and picture.
            if let shared = decoding.shared, let key = SharedPictures.key(record.entry, frame: decoding.frame) {
                filtered = try shared.produce(key, work)
            } else {
                filtered = try work()
            }
        } catch {
            if !isCancelled, !error.isCancellation { fail(error) }
            return
        }
        if isCancelled { return }
        record.markFiltered(filtered, frame: decoding.frame)
        traceFinished(state: .filtered)
    }

    /// The row's square, or the cell's whole photo. A local picture is decoded whole, as a
    /// thumbnail of the desktop cache's sizes, stored there for next time (and for the file
    /// manager), and the frame's picture is made from it; so is a web photo the server lets
    /// clients keep, in the app's own cache.
    private func decode(_ input: Decoding.Source, raw: Bool, size: DecodeSize) throws(PhotoFailure) -> PhotoImage {
        try Decoding.picture(
            input, size: size, raw: raw, limits: decoding.limits, budget: decoding.budget, cancellable: cancellable)
    }

    private func decode(
        _ input: Decoding.Source, raw: Bool, thumbnailKey key: ThumbnailCache.Key?
    ) throws(PhotoFailure) -> PhotoImage {
        try cached(thumbnailKey: key) { size throws(PhotoFailure) in try decode(input, raw: raw, size: size) }
    }

    private func videoFrame(
        _ input: Decoding.Source, thumbnailKey key: ThumbnailCache.Key?
    ) throws(PhotoFailure)
        -> PhotoImage
    {
        try cached(thumbnailKey: key) { size throws(PhotoFailure) in
            try Decoding.videoFrame(
                input, size: size, limits: decoding.limits, budget: decoding.budget, cancellable: cancellable
            ).0
        }
    }

    /// The picture `decode` makes at the size the row's frame needs, or (where there is a
    /// thumbnail cache for it) at a cache's size, stored there, and shaped for the frame.
    private func cached(
        thumbnailKey key: ThumbnailCache.Key?, _ decode: (DecodeSize) throws(PhotoFailure) -> PhotoImage
    ) throws(PhotoFailure) -> PhotoImage {
        let frame = decoding.frame
        guard let key, let thumbnails = key.isPrivate ? decoding.remoteThumbnails : decoding.thumbnails else {
            return try decode(frame.decodeSize)
        }
        let image = try decode(frame.cachedDecodeSize)
        // Known before it is stored, the answer is kept with the thumbnail: not asked again.
        noteMotion(on: image)
        if !isCancelled {
            // Scaled to a size's box exactly, or (a smaller picture) whole, in the size that
            // would have been used had it been larger.
            let box =
                ThumbnailCache.Size(rawValue: max(image.width, image.height))
                ?? frame.cacheSize(width: image.width, height: image.height)
            thumbnails.store(image, of: key, size: box)
        }
        return frame.shape(image)
    }

    /// Marks whether a local photo's picture is of a motion photo (its row's "Live" badge),
    /// unless the picture says already (a thumbnail that kept the answer, or a video's frame).
    private func noteMotion(on image: PhotoImage) {
        guard image.isMotion == nil, image.videoSeconds == nil, let url = try? record.entry.resolvedURL(),
            url.isFileURL
        else { return }
        image.markMotion(MotionPhoto.motion(ofPhotoAt: url))
    }
}
