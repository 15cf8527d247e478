import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// Decoding in the pool's decoder helpers: each operation is a job sent to a helper (see
/// `HelperRoster.run`), and what it answers is made back into the value the app uses: pixels
/// into pictures with their colour options, outcomes into previews, facts and animations.
struct ConfinedDecoding: PictureDecoding {
    let helpers: HelperRoster

    func picture(
        _ source: Decoding.Source, size: DecodeSize, raw: Bool, limits: DecodeLimits, budget: DecodeMemoryBudget,
        cancellable: Cancellable
    ) throws(PhotoFailure) -> PhotoImage {
        let decoded = try helpers.run(
            .picture(size: size, raw: raw), input: try input(source, limits: limits, cancellable),
            limits: limits, budget: budget, cancellable: cancellable)
        guard let image = decoded.image else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper sent no picture")
        }
        if case .picture(_, let options) = decoded.outcome { ColorProfile.restore(options, on: image) }
        return image
    }

    func videoFrame(
        _ source: Decoding.Source, size: DecodeSize, limits: DecodeLimits, budget: DecodeMemoryBudget,
        cancellable: Cancellable
    ) throws(PhotoFailure) -> (PhotoImage, VideoFacts) {
        let decoded = try helpers.run(
            .videoFrame(size: size), input: try input(source, limits: limits, cancellable), limits: limits,
            budget: budget, cancellable: cancellable)
        guard case .video(_, let facts) = decoded.outcome, let image = decoded.image else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper answered with something else")
        }
        image.markVideo(seconds: Int((facts.duration ?? 0).rounded()))
        return (image, facts)
    }

    func preview(_ head: Data, squareSide: Int, cancellable: Cancellable) -> EmbeddedPreview? {
        let limits = DecodeLimits(maxBytes: max(head.count, 1), maxPixels: DecodeLimits.standard.maxPixels)
        guard
            let decoded = try? helpers.run(
                .preview(squareSide: squareSide), input: .bytes(head), limits: limits,
                budget: .shared, cancellable: cancellable),
            case .preview(_, let origin, let photoWidth, let photoHeight, let options) = decoded.outcome,
            let image = decoded.image
        else { return nil }
        ColorProfile.restore(options, on: image)
        return EmbeddedPreview(origin: origin, image: image, photoWidth: photoWidth, photoHeight: photoHeight)
    }

    func info(
        _ bytes: Data, details: Bool, limits: DecodeLimits, cancellable: Cancellable
    ) throws(PhotoFailure) -> ImageInfo {
        let decoded = try helpers.run(
            .info(details: details), input: .bytes(bytes), limits: limits, budget: .shared,
            cancellable: cancellable)
        guard case .info(let info) = decoded.outcome else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper answered with something else")
        }
        return info
    }

    func details(_ bytes: Data, cancellable: Cancellable) -> PhotoDetails? {
        let limits = DecodeLimits(maxBytes: max(1, bytes.count), maxPixels: DecodeLimits.standard.maxPixels)
        guard
            let decoded = try? helpers.run(
                .details, input: .bytes(bytes), limits: limits, budget: .shared, cancellable: cancellable),
            case .details(let details) = decoded.outcome
        else { return nil }
        return details
    }

    func rawFacts(
        _ source: Decoding.Source, byteCount: Int, cancellable: Cancellable
    ) throws(PhotoFailure) -> ImageInfo {
        let limits = DecodeLimits(maxBytes: max(1, byteCount), maxPixels: DecodeLimits.standard.maxPixels)
        let decoded = try helpers.run(
            .rawFacts, input: input(source, limits: limits, cancellable), limits: limits, budget: .shared,
            cancellable: cancellable)
        guard case .info(let info) = decoded.outcome else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper answered with something else")
        }
        return info
    }

    func rawPreview(
        _ source: Decoding.Source, byteCount: Int, cancellable: Cancellable
    ) throws(PhotoFailure) -> (Data, ImageInfo) {
        let limits = DecodeLimits(maxBytes: max(1, byteCount), maxPixels: DecodeLimits.standard.maxPixels)
        let decoded = try helpers.run(
            .rawPreview, input: input(source, limits: limits, cancellable), limits: limits, budget: .shared,
            cancellable: cancellable)
        guard case .rawPreview(let info, _) = decoded.outcome, let file = decoded.file else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper answered with something else")
        }
        return (file, info)
    }

    func animation(
        _ bytes: Data, header: AnimationHeader, side: Int, limits: DecodeLimits, budget: DecodeMemoryBudget,
        cancellable: Cancellable
    ) throws(PhotoFailure) -> AnimationDecoder.Outcome {
        let decoded = try helpers.run(
            .animation(side: side), input: .bytes(bytes), limits: limits, budget: budget, cancellable: cancellable)
        switch decoded.outcome {
        case .still(let reason): return .still(reason: reason)
        case .animation(let layouts, _, let delays, let plays) where layouts.count == delays.count:
            return .animation(ViewerAnimation(frames: decoded.frames, delays: delays, plays: plays))
        default:
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper answered with something else")
        }
    }

    func cachedThumbnail(atPath path: String) -> PhotoImage? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        // Thumbnails are at most 1024 pixels a side; anything larger is not one.
        let limits = DecodeLimits(maxBytes: 16 << 20, maxPixels: 1 << 20)
        guard
            let decoded = try? helpers.run(
                .cachedThumbnail, input: .descriptor(fd), limits: limits,
                budget: .shared, cancellable: Cancellable()),
            case .picture(_, let options) = decoded.outcome, let image = decoded.image
        else { return nil }
        for (name, value) in options { gdk_pixbuf_set_option(image.pixbuf, name, value) }
        return image
    }

    func marks(_ bytes: Data, cancellable: Cancellable) -> PhotoMarks? {
        guard
            let decoded = try? helpers.run(
                .marks, input: .bytes(bytes), limits: Self.marksLimits(bytes), budget: .shared,
                cancellable: cancellable),
            case .marks(let marks) = decoded.outcome
        else { return nil }
        return marks
    }

    func altText(_ bytes: Data, cancellable: Cancellable) -> String? {
        guard
            let decoded = try? helpers.run(
                .altText, input: .bytes(bytes), limits: Self.marksLimits(bytes), budget: .shared,
                cancellable: cancellable),
            case .text(let text) = decoded.outcome
        else { return nil }
        return text
    }

    func updatedMarks(
        _ bytes: Data, from old: PhotoMarks, to new: PhotoMarks, altText: AltTextChange?, cancellable: Cancellable
    ) throws(PhotoFailure) -> Data {
        let decoded = try helpers.run(
            .updatedMarks(old: old, new: new, altText: altText), input: .bytes(bytes), limits: Self.marksLimits(bytes),
            budget: .shared, cancellable: cancellable)
        guard let file = decoded.file else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper answered with something else")
        }
        return file
    }

    func marksInPhoto(
        _ photo: Data, to new: PhotoMarks, altText: AltTextChange?, cancellable: Cancellable
    ) throws(PhotoFailure) -> Data {
        // No pixels; the photo comes back as large as it was, its XMP a little larger.
        let limits = DecodeLimits(maxBytes: photo.count + (1 << 20), maxPixels: 1)
        let decoded = try helpers.run(
            .marksInPhoto(new: new, altText: altText), input: .bytes(photo), limits: limits, budget: .shared,
            cancellable: cancellable)
        guard let file = decoded.file else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper answered with something else")
        }
        return file
    }

    func editedJPEG(
        _ source: Decoding.Source, byteCount: Int, edit: PhotoEdit, raw: Bool, cancellable: Cancellable
    ) throws(PhotoFailure) -> (Data, LosslessJPEG.Outcome) {
        // No pixels are decoded; the result is about as large as the file (a progressive one
        // saved baseline a little larger), or as a RAW file's preview, which is smaller.
        let limits = DecodeLimits(maxBytes: 2 * byteCount + (1 << 20), maxPixels: DecodeLimits.standard.maxPixels)
        let decoded = try helpers.run(
            raw ? .editedRaw(edit) : .editedJPEG(edit), input: input(source, limits: limits, cancellable),
            limits: limits, budget: .shared, cancellable: cancellable)
        guard case .editedJPEG(let outcome, _) = decoded.outcome, let file = decoded.file else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper answered with something else")
        }
        return (file, outcome)
    }

    /// XMP is text, and no pixels: what is sent, and what comes back (the same packet, its
    /// marks changed, laid out anew) a little larger.
    private static func marksLimits(_ bytes: Data) -> DecodeLimits {
        DecodeLimits(maxBytes: 2 * bytes.count + (64 << 10), maxPixels: 1)
    }

    /// What `source` is handed to a helper as: a local file's stream as its descriptor, any
    /// other stream read into memory first.
    private func input(
        _ source: Decoding.Source, limits: DecodeLimits, _ cancellable: Cancellable
    ) throws(PhotoFailure) -> HelperRoster.Input {
        switch source {
        case .bytes(let bytes): return .bytes(bytes)
        case .stream(let stream):
            if let file = GObjectCast.instance(
                stream.pointer, of: g_unix_input_stream_get_type(), as: GUnixInputStream.self)
            {
                return .descriptor(g_unix_input_stream_get_fd(file))
            }
            return .bytes(try Decoding.readAll(stream, limit: limits.maxBytes, cancellable: cancellable))
        }
    }
}
