import CGLib
import Foundation
import GLibKit

/// Where the app's pictures are decoded: in the decoder helpers of `DecoderPool` (or in the
/// app itself when confinement is turned off for debugging). Rows, the viewer, export, the
/// thumbnail cache and embedded previews all decode through here; the pool's `decoding` says
/// where (`ConfinedDecoding` or `InProcessDecoding`).
public enum Decoding {
    /// A picture's bytes: in memory, or an open stream (a local file's is handed to the
    /// helper as its descriptor; any other is read into memory first).
    public enum Source {
        case bytes(Data)
        case stream(ObjectRef<GInputStream>)
    }

    /// `source` decoded at `size` (see `ImageDecoder.decode`); for a RAW file (`raw`), its
    /// camera's preview.
    public static func picture(
        _ source: Source, size: DecodeSize, raw: Bool = false, limits: DecodeLimits = .standard,
        budget: DecodeMemoryBudget = .shared, cancellable: Cancellable, pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> PhotoImage {
        try pool.decoding.picture(
            source, size: size, raw: raw, limits: limits, budget: budget, cancellable: cancellable)
    }

    /// The frame that stands for the video in `source` at `size`, and what its container says
    /// (see `VideoFrame.read`). A local file's stream is read as little as the container
    /// allows; any other is read into memory first.
    public static func videoFrame(
        _ source: Source, size: DecodeSize, limits: DecodeLimits = .standard, budget: DecodeMemoryBudget = .shared,
        cancellable: Cancellable, pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> (PhotoImage, VideoFacts) {
        try pool.decoding.videoFrame(source, size: size, limits: limits, budget: budget, cancellable: cancellable)
    }

    /// The preview a photo carries of itself (see `EmbeddedPreview.read`), from its first bytes.
    public static func preview(
        _ head: Data, squareSide: Int, cancellable: Cancellable = Cancellable(), pool: DecoderPool = .shared
    ) -> EmbeddedPreview? {
        // Only JPEG and HEIF files carry one: nothing to send the others for.
        guard PictureSignature.isJPEG(head) || PictureSignature.isHEIF(head.prefix(12)) else { return nil }
        return pool.decoding.preview(head, squareSide: squareSide, cancellable: cancellable)
    }

    /// What `bytes`' header and EXIF block say, and with `details` the rest of their
    /// metadata (see `ImageInfo.read`).
    public static func info(
        _ bytes: Data, details: Bool = true, limits: DecodeLimits = .standard,
        cancellable: Cancellable = Cancellable(), pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> ImageInfo {
        try pool.decoding.info(bytes, details: details, limits: limits, cancellable: cancellable)
    }

    /// What a file's metadata says (see `PhotoDetails.read`); nil where it says nothing that
    /// could be read.
    public static func details(
        _ bytes: Data, cancellable: Cancellable = Cancellable(), pool: DecoderPool = .shared
    ) -> PhotoDetails? {
        pool.decoding.details(bytes, cancellable: cancellable)
    }

    /// A RAW file's camera preview's header, with the RAW file's own metadata (see
    /// `PhotoFacts.facts`).
    public static func rawFacts(
        _ bytes: Data, cancellable: Cancellable = Cancellable(), pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> ImageInfo {
        try pool.decoding.rawFacts(.bytes(bytes), byteCount: bytes.count, cancellable: cancellable)
    }

    /// The same, of a RAW file of `byteCount` bytes whose stream is `source`: a local file's
    /// descriptor is handed to the helper, which reads of it only what it needs (its metadata
    /// and preview, not its sensor data).
    public static func rawFacts(
        _ source: Source, byteCount: Int, cancellable: Cancellable = Cancellable(), pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> ImageInfo {
        try pool.decoding.rawFacts(source, byteCount: byteCount, cancellable: cancellable)
    }

    /// A RAW file's camera preview as a picture file, and what the RAW file says of itself
    /// (see `RawPhoto.previewAndFacts`), in one trip to a helper.
    public static func rawPreview(
        _ bytes: Data, cancellable: Cancellable = Cancellable(), pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> (picture: Data, info: ImageInfo) {
        try pool.decoding.rawPreview(.bytes(bytes), byteCount: bytes.count, cancellable: cancellable)
    }

    /// The same, of a RAW file of `byteCount` bytes whose stream is `source` (a local file's
    /// descriptor is handed to the helper, which reads only what it needs).
    public static func rawPreview(
        _ source: Source, byteCount: Int, cancellable: Cancellable = Cancellable(), pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> (picture: Data, info: ImageInfo) {
        try pool.decoding.rawPreview(source, byteCount: byteCount, cancellable: cancellable)
    }

    /// An animated GIF or WebP's frames (see `AnimationDecoder.decode`).
    public static func animation(
        _ bytes: Data, header: AnimationHeader, side: Int, limits: DecodeLimits, budget: DecodeMemoryBudget,
        cancellable: Cancellable, pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> AnimationDecoder.Outcome {
        try pool.decoding.animation(
            bytes, header: header, side: side, limits: limits, budget: budget, cancellable: cancellable)
    }

    /// The marks an XMP sidecar, or a photo's first bytes, hold (see `XMPMarks.read`).
    public static func marks(
        _ bytes: Data, cancellable: Cancellable = Cancellable(), pool: DecoderPool = .shared
    ) -> PhotoMarks? {
        pool.decoding.marks(bytes, cancellable: cancellable)
    }

    /// The alt text an XMP sidecar, or a photo's first bytes, hold (see `XMPMarks.altText`).
    public static func altText(
        _ bytes: Data, cancellable: Cancellable = Cancellable(), pool: DecoderPool = .shared
    ) -> String? {
        pool.decoding.altText(bytes, cancellable: cancellable)
    }

    /// `bytes` (a sidecar, or a photo's first bytes; nil: nothing to begin from) with the
    /// marks changed from `old` to `new`, and the alt text where given, as a sidecar holds
    /// them (see `XMPMarks.update`).
    public static func updatedMarks(
        _ bytes: Data?, from old: PhotoMarks, to new: PhotoMarks, altText: AltTextChange? = nil,
        cancellable: Cancellable = Cancellable(), pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> Data {
        // Nothing read from a file: nothing to confine.
        guard let bytes, !bytes.isEmpty else { return try XMPMarks.update(nil, from: old, to: new, altText: altText) }
        return try pool.decoding.updatedMarks(bytes, from: old, to: new, altText: altText, cancellable: cancellable)
    }

    /// The photo file `photo` with its own XMP giving the marks `new`, and the alt text where
    /// given, all else as it was (see `MarksInPhoto.updated`).
    static func marksInPhoto(
        _ photo: Data, to new: PhotoMarks, altText: AltTextChange? = nil, cancellable: Cancellable = Cancellable(),
        pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> Data {
        try pool.decoding.marksInPhoto(photo, to: new, altText: altText, cancellable: cancellable)
    }

    /// `jpeg` turned, flipped and cropped as `edit` says, without decoding it (see
    /// `LosslessJPEG.apply`); with `raw`, `jpeg` is a RAW file, whose camera preview is
    /// edited (see `RawEdit.apply`).
    public static func editedJPEG(
        _ jpeg: Data, edit: PhotoEdit, raw: Bool = false, cancellable: Cancellable = Cancellable(),
        pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> (Data, LosslessJPEG.Outcome) {
        try pool.decoding.editedJPEG(
            .bytes(jpeg), byteCount: jpeg.count, edit: edit, raw: raw, cancellable: cancellable)
    }

    /// The RAW file of `byteCount` bytes whose stream is `source` edited as `editedJPEG` does
    /// with `raw` (a local file's descriptor handed to the helper, which maps it: its sensor
    /// data is not read).
    public static func editedRaw(
        _ source: Source, byteCount: Int, edit: PhotoEdit, cancellable: Cancellable = Cancellable(),
        pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> (Data, LosslessJPEG.Outcome) {
        try pool.decoding.editedJPEG(source, byteCount: byteCount, edit: edit, raw: true, cancellable: cancellable)
    }

    /// A PNG file of the thumbnail cache, decoded whole, with its `tEXt::` options set on it
    /// (nil when it cannot be read or decoded).
    static func cachedThumbnail(atPath path: String, pool: DecoderPool = .shared) -> PhotoImage? {
        pool.decoding.cachedThumbnail(atPath: path)
    }

    /// `stream` read to its end: at most `limit` bytes (`too-large` past them).
    static func readAll(
        _ stream: ObjectRef<GInputStream>, limit: Int, cancellable: Cancellable
    ) throws(PhotoFailure) -> Data {
        var data = Data()
        let buffer = ChunkBuffer()
        while !cancellable.isCancelled, let chunk = try buffer.read(stream, cancellable: cancellable) {
            data.append(contentsOf: chunk)
            if data.count > limit {
                throw PhotoFailure(
                    .tooLarge, detail: "More than \(PhotoLimits.megabytes(limit)), the most a photo may have")
            }
        }
        if cancellable.isCancelled { throw PhotoFailure.cancelled }
        return data
    }
}

/// What decoding does, wherever it runs: the decoder helpers (`ConfinedDecoding`) or the app
/// itself (`InProcessDecoding`). A pool holds one, chosen as it reads its configuration; each
/// operation is `Decoding`'s of the same name.
protocol PictureDecoding: Sendable {
    func picture(
        _ source: Decoding.Source, size: DecodeSize, raw: Bool, limits: DecodeLimits, budget: DecodeMemoryBudget,
        cancellable: Cancellable
    ) throws(PhotoFailure) -> PhotoImage

    func videoFrame(
        _ source: Decoding.Source, size: DecodeSize, limits: DecodeLimits, budget: DecodeMemoryBudget,
        cancellable: Cancellable
    ) throws(PhotoFailure) -> (PhotoImage, VideoFacts)

    /// The preview a JPEG or HEIF file carries (the others were let go before).
    func preview(_ head: Data, squareSide: Int, cancellable: Cancellable) -> EmbeddedPreview?

    func info(
        _ bytes: Data, details: Bool, limits: DecodeLimits, cancellable: Cancellable
    ) throws(PhotoFailure) -> ImageInfo

    func rawPreview(
        _ source: Decoding.Source, byteCount: Int, cancellable: Cancellable
    ) throws(PhotoFailure) -> (Data, ImageInfo)

    func rawFacts(_ source: Decoding.Source, byteCount: Int, cancellable: Cancellable) throws(PhotoFailure) -> ImageInfo

    func details(_ bytes: Data, cancellable: Cancellable) -> PhotoDetails?

    func animation(
        _ bytes: Data, header: AnimationHeader, side: Int, limits: DecodeLimits, budget: DecodeMemoryBudget,
        cancellable: Cancellable
    ) throws(PhotoFailure) -> AnimationDecoder.Outcome

    func cachedThumbnail(atPath path: String) -> PhotoImage?

    func marks(_ bytes: Data, cancellable: Cancellable) -> PhotoMarks?

    func altText(_ bytes: Data, cancellable: Cancellable) -> String?

    func updatedMarks(
        _ bytes: Data, from old: PhotoMarks, to new: PhotoMarks, altText: AltTextChange?, cancellable: Cancellable
    ) throws(PhotoFailure) -> Data

    func marksInPhoto(
        _ photo: Data, to new: PhotoMarks, altText: AltTextChange?, cancellable: Cancellable
    ) throws(PhotoFailure) -> Data

    func editedJPEG(
        _ source: Decoding.Source, byteCount: Int, edit: PhotoEdit, raw: Bool, cancellable: Cancellable
    ) throws(PhotoFailure) -> (Data, LosslessJPEG.Outcome)
}
