import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// Where the app's pictures are decoded: in the decoder helpers of `DecoderPool` (or in the
/// app itself when confinement is turned off for debugging). Rows, the viewer, export, the
/// thumbnail cache and embedded previews all decode through here.
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
        if pool.confinement == .inProcess {
            switch source {
            case .bytes(let bytes):
                return try ImageDecoder.decode(
                    raw ? RawPhoto.preview(of: bytes) : bytes, size: size, limits: limits, budget: budget,
                    cancellable: cancellable)
            case .stream(let stream) where !raw:
                return try ImageDecoder.decode(
                    stream, size: size, limits: limits, budget: budget, cancellable: cancellable)
            case .stream(let stream):
                let bytes = try readAll(stream, limit: limits.maxBytes, cancellable: cancellable)
                return try ImageDecoder.decode(
                    RawPhoto.preview(of: bytes), size: size, limits: limits, budget: budget, cancellable: cancellable)
            }
        }
        let decoded = try pool.run(
            .picture(size: size, raw: raw), input: try input(source, limits: limits, cancellable),
            limits: limits, budget: budget, cancellable: cancellable)
        guard let image = decoded.image else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper sent no picture")
        }
        if case .picture(_, let options) = decoded.outcome { ColorProfile.restore(options, on: image) }
        return image
    }

    /// The preview a photo carries of itself (see `EmbeddedPreview.read`), from its first bytes.
    public static func preview(
        _ head: Data, squareSide: Int, cancellable: Cancellable = Cancellable(), pool: DecoderPool = .shared
    ) -> EmbeddedPreview? {
        // Only JPEG and HEIF files carry one: nothing to send the others for.
        guard PictureSignature.isJPEG(head) || PictureSignature.isHEIF(head.prefix(12)) else { return nil }
        if pool.confinement == .inProcess { return EmbeddedPreview.read(head, squareSide: squareSide) }
        let limits = DecodeLimits(maxBytes: max(head.count, 1), maxPixels: DecodeLimits.standard.maxPixels)
        guard
            let decoded = try? pool.run(
                .preview(squareSide: squareSide), input: .bytes(head), limits: limits,
                budget: .shared, cancellable: cancellable),
            case .preview(_, let origin, let photoWidth, let photoHeight, let options) = decoded.outcome,
            let image = decoded.image
        else { return nil }
        ColorProfile.restore(options, on: image)
        return EmbeddedPreview(origin: origin, image: image, photoWidth: photoWidth, photoHeight: photoHeight)
    }

    /// What `bytes`' header and EXIF block say (see `ImageInfo.read`).
    public static func info(
        _ bytes: Data, limits: DecodeLimits = .standard, cancellable: Cancellable = Cancellable(),
        pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> ImageInfo {
        if pool.confinement == .inProcess { return try ImageInfo.read(bytes) }
        let decoded = try pool.run(
            .info, input: .bytes(bytes), limits: limits, budget: .shared,
            cancellable: cancellable)
        guard case .info(let info) = decoded.outcome else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper answered with something else")
        }
        return info
    }

    /// A RAW file's camera preview as a picture file (see `RawPhoto.preview`).
    public static func rawPreview(
        _ bytes: Data, cancellable: Cancellable = Cancellable(), pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> Data {
        if pool.confinement == .inProcess { return try RawPhoto.preview(of: bytes) }
        let limits = DecodeLimits(maxBytes: max(1, bytes.count), maxPixels: DecodeLimits.standard.maxPixels)
        let decoded = try pool.run(
            .rawPreview, input: .bytes(bytes), limits: limits, budget: .shared,
            cancellable: cancellable)
        guard let file = decoded.file else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper answered with something else")
        }
        return file
    }

    /// An animated GIF or WebP's frames (see `AnimationDecoder.decode`).
    public static func animation(
        _ bytes: Data, header: AnimationHeader, side: Int, limits: DecodeLimits, budget: DecodeMemoryBudget,
        cancellable: Cancellable, pool: DecoderPool = .shared
    ) throws(PhotoFailure) -> AnimationDecoder.Outcome {
        if pool.confinement == .inProcess {
            return try AnimationDecoder.decode(
                bytes, header: header, side: side, limits: limits, budget: budget, cancellable: cancellable)
        }
        let decoded = try pool.run(
            .animation(side: side), input: .bytes(bytes), limits: limits, budget: budget, cancellable: cancellable)
        switch decoded.outcome {
        case .still(let reason): return .still(reason: reason)
        case .animation(let layouts, _, let delays, let plays) where layouts.count == delays.count:
            return .animation(ViewerAnimation(frames: decoded.frames, delays: delays, plays: plays))
        default:
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper answered with something else")
        }
    }

    /// A PNG file of the thumbnail cache, decoded whole, with its `tEXt::` options set on it
    /// (nil when it cannot be read or decoded).
    static func cachedThumbnail(atPath path: String, pool: DecoderPool = .shared) -> PhotoImage? {
        if pool.confinement == .inProcess { return gdk_pixbuf_new_from_file(path, nil).map(PhotoImage.init(taking:)) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        // Thumbnails are at most 1024 pixels a side; anything larger is not one.
        let limits = DecodeLimits(maxBytes: 16 << 20, maxPixels: 1 << 20)
        guard
            let decoded = try? pool.run(
                .cachedThumbnail, input: .descriptor(fd), limits: limits,
                budget: .shared, cancellable: Cancellable()),
            case .picture(_, let options) = decoded.outcome, let image = decoded.image
        else { return nil }
        for (name, value) in options { gdk_pixbuf_set_option(image.pixbuf, name, value) }
        return image
    }

    private static func input(
        _ source: Source, limits: DecodeLimits, _ cancellable: Cancellable
    ) throws(PhotoFailure) -> DecoderPool.Input {
        switch source {
        case .bytes(let bytes): return .bytes(bytes)
        case .stream(let stream):
            if let file = GObjectCast.instance(
                stream.pointer, of: g_unix_input_stream_get_type(), as: GUnixInputStream.self)
            {
                return .descriptor(g_unix_input_stream_get_fd(file))
            }
            return .bytes(try readAll(stream, limit: limits.maxBytes, cancellable: cancellable))
        }
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
