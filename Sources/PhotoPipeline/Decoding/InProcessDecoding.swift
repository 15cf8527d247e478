import CGLib
import CGdkPixbuf
import Foundation
import GLibKit

/// Decoding in the app's own process, by the decoders themselves (`ImageDecoder`,
/// `EmbeddedPreview`, `ImageInfo`, `RawPhoto`, `AnimationDecoder`, gdk-pixbuf): where
/// confinement is turned off (`CLASSIC_PHOTOS_SANDBOX=off`, for debugging) or the decoder
/// helper is not installed.
struct InProcessDecoding: PictureDecoding {
    func picture(
        _ source: Decoding.Source, size: DecodeSize, raw: Bool, limits: DecodeLimits, budget: DecodeMemoryBudget,
        cancellable: Cancellable
    ) throws(PhotoFailure) -> PhotoImage {
        switch source {
        case .bytes(let bytes):
            return try ImageDecoder.decode(
                raw ? RawPhoto.preview(of: bytes) : bytes, size: size, limits: limits, budget: budget,
                cancellable: cancellable)
        case .stream(let stream) where !raw:
            return try ImageDecoder.decode(
                stream, size: size, limits: limits, budget: budget, cancellable: cancellable)
        case .stream(let stream):
            let bytes = try Decoding.readAll(stream, limit: limits.maxBytes, cancellable: cancellable)
            return try ImageDecoder.decode(
                RawPhoto.preview(of: bytes), size: size, limits: limits, budget: budget, cancellable: cancellable)
        }
    }

    func videoFrame(
        _ source: Decoding.Source, size: DecodeSize, limits: DecodeLimits, budget: DecodeMemoryBudget,
        cancellable: Cancellable
    ) throws(PhotoFailure) -> (PhotoImage, VideoFacts) {
        // FFmpeg reads through a descriptor: a local file's own, or a memfd of the bytes.
        let bytes: Data
        switch source {
        case .stream(let stream):
            if let file = GObjectCast.instance(
                stream.pointer, of: g_unix_input_stream_get_type(), as: GUnixInputStream.self)
            {
                return try VideoFrame.read(
                    g_unix_input_stream_get_fd(file), size: size, limits: limits, cancellable: cancellable)
            }
            bytes = try Decoding.readAll(stream, limit: limits.maxBytes, cancellable: cancellable)
        case .bytes(let given): bytes = given
        }
        let fd = try SealedPixels.sealedFile(holding: bytes)
        defer { close(fd) }
        return try VideoFrame.read(fd, size: size, limits: limits, cancellable: cancellable)
    }

    func preview(_ head: Data, squareSide: Int, cancellable: Cancellable) -> EmbeddedPreview? {
        EmbeddedPreview.read(head, squareSide: squareSide)
    }

    func info(
        _ bytes: Data, details: Bool, limits: DecodeLimits, cancellable: Cancellable
    ) throws(PhotoFailure) -> ImageInfo {
        try ImageInfo.read(bytes, details: details)
    }

    func details(_ bytes: Data, cancellable: Cancellable) -> PhotoDetails? {
        PhotoDetails.read(bytes).flatMap { $0.isEmpty ? nil : $0 }
    }

    func rawPreview(
        _ source: Decoding.Source, byteCount: Int, cancellable: Cancellable
    ) throws(PhotoFailure) -> (Data, ImageInfo) {
        try RawPhoto.previewAndFacts(of: Self.bytes(of: source, byteCount: byteCount, cancellable))
    }

    func rawFacts(
        _ source: Decoding.Source, byteCount: Int, cancellable: Cancellable
    ) throws(PhotoFailure) -> ImageInfo {
        try RawPhoto.facts(of: Self.bytes(of: source, byteCount: byteCount, cancellable))
    }

    /// The bytes of `source`: a stream of `byteCount` bytes read whole.
    private static func bytes(
        of source: Decoding.Source, byteCount: Int, _ cancellable: Cancellable
    ) throws(PhotoFailure) -> Data {
        switch source {
        case .bytes(let bytes): bytes
        case .stream(let stream): try Decoding.readAll(stream, limit: max(1, byteCount), cancellable: cancellable)
        }
    }

    func animation(
        _ bytes: Data, header: AnimationHeader, side: Int, limits: DecodeLimits, budget: DecodeMemoryBudget,
        cancellable: Cancellable
    ) throws(PhotoFailure) -> AnimationDecoder.Outcome {
        try AnimationDecoder.decode(
            bytes, header: header, side: side, limits: limits, budget: budget, cancellable: cancellable)
    }

    func cachedThumbnail(atPath path: String) -> PhotoImage? {
        gdk_pixbuf_new_from_file(path, nil).map(PhotoImage.init(taking:))
    }

    func marks(_ bytes: Data, cancellable: Cancellable) -> PhotoMarks? { XMPMarks.read(bytes) }

    func altText(_ bytes: Data, cancellable: Cancellable) -> String? { XMPMarks.altText(bytes) }

    func updatedMarks(
        _ bytes: Data, from old: PhotoMarks, to new: PhotoMarks, altText: AltTextChange?, cancellable: Cancellable
    ) throws(PhotoFailure) -> Data {
        try XMPMarks.update(bytes, from: old, to: new, altText: altText)
    }

    func marksInPhoto(
        _ photo: Data, to new: PhotoMarks, altText: AltTextChange?, cancellable: Cancellable
    ) throws(PhotoFailure) -> Data {
        try MarksInPhoto.updated(photo, to: new, altText: altText)
    }

    func editedJPEG(
        _ source: Decoding.Source, byteCount: Int, edit: PhotoEdit, raw: Bool, cancellable: Cancellable
    ) throws(PhotoFailure) -> (Data, LosslessJPEG.Outcome) {
        let jpeg = try Self.bytes(of: source, byteCount: byteCount, cancellable)
        return try raw ? RawEdit.apply(edit, to: jpeg) : LosslessJPEG.apply(edit, to: jpeg)
    }
}
