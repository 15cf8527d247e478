import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// An animated photo's frames as the viewer plays them: every frame composited and scaled to
/// one size, each with how long it shows. Immutable, so the worker that decodes it hands it
/// to the main thread as it is, and the main thread only picks which frame to show.
public struct ViewerAnimation: Sendable {
    public let frames: [PhotoImage]
    /// Milliseconds each frame shows (`AnimationHeader.playbackDelay`), one per frame.
    public let delays: [Int]
    /// How many times it plays; 0 for ever.
    public let plays: Int

    public init(frames: [PhotoImage], delays: [Int], plays: Int) {
        precondition(frames.count == delays.count && !frames.isEmpty)
        self.frames = frames
        self.delays = delays
        self.plays = plays
    }

    /// The same animation through `filter` (a filtered copy of every frame), or nil if
    /// `isCancelled` turned true part-way.
    public func filtered(by filter: SepiaFilter, isCancelled: @Sendable () -> Bool) -> ViewerAnimation? {
        var filtered: [PhotoImage] = []
        filtered.reserveCapacity(frames.count)
        for frame in frames {
            guard let copy = filter.apply(to: frame, isCancelled: isCancelled) else { return nil }
            filtered.append(copy)
        }
        return ViewerAnimation(frames: filtered, delays: delays, plays: plays)
    }
}

/// Decodes an animated GIF or WebP into a `ViewerAnimation`, within bounds of its own on top
/// of the pipeline's limits (pixels, bytes, the decode memory budget):
///
/// - at most `maxFrames` frames in the file;
/// - at most `maxCompositedPixels` canvas pixels composited over all frames (the decoding
///   work: each frame is composited at the canvas size before it is scaled);
/// - at most `maxFrameBytes` for the decoded frames, the original and the sepia copy of each
///   together. Frames are decoded at the size the viewer asked for, or smaller so that they
///   fit, but not below a third of it.
///
/// An animation beyond these plays as a still picture, its first frame, decoded as any photo;
/// except an animated WebP, whose loader decodes every frame at the canvas size even for the
/// still picture: it fails (`too-many-pixels`) instead. What gdk-pixbuf allocates while
/// decoding (the GIF loader's canvas and frame buffers, the WebP loader's frames) and the
/// frames made are reserved from the decode memory budget first.
public enum AnimationDecoder {
    public static let maxFrames = 1000
    public static let maxCompositedPixels = 500_000_000
    public static let maxFrameBytes = 64 << 20
    /// The smallest frames may be made to fit `maxFrameBytes`, as a share of the size asked for.
    public static let minScale = 1.0 / 3.0

    /// What to do with a photo whose header says it is animated.
    public enum Outcome: Sendable {
        case animation(ViewerAnimation)
        /// Beyond the bounds (or not animated after all): show the first frame as a still photo.
        case still(reason: String)
    }

    /// Decodes the animation `header` describes from `bytes`, its longest side at most `side`
    /// pixels. Throws cancellation, a failure of the whole photo (see above), or gdk-pixbuf's
    /// error.
    public static func decode(
        _ bytes: Data, header: AnimationHeader, side: Int, limits: DecodeLimits,
        budget: DecodeMemoryBudget, cancellable: Cancellable
    ) throws(PhotoFailure) -> Outcome {
        let canvas = (w: header.canvasWidth, h: header.canvasHeight)
        let canvasPixels = canvas.w.multipliedReportingOverflow(by: canvas.h)
        guard canvas.w > 0, canvas.h > 0, !canvasPixels.overflow, canvasPixels.partialValue <= limits.maxPixels else {
            throw ImageDecoder.tooManyPixels(width: canvas.w, height: canvas.h, limit: limits.maxPixels)
        }
        /// Too much for an animation: a GIF shows its first frame; a WebP fails.
        func beyond(_ reason: String) throws(PhotoFailure) -> Outcome {
            if header.format == .webp { throw PhotoFailure(.tooManyPixels, detail: reason) }
            return .still(reason: reason)
        }
        let count = header.frames.count
        if header.truncated { return try beyond("More than \(maxFrames) frames") }
        guard header.isAnimated else { return .still(reason: "One frame") }
        if count * canvasPixels.partialValue > maxCompositedPixels {
            return try beyond(
                "\(count) frames of \(canvas.w)×\(canvas.h) are more than \(maxCompositedPixels / 1_000_000) megapixels to composite"
            )
        }
        // A GIF frame larger than its canvas is allocated at its own size by gdk-pixbuf.
        if header.frames.contains(where: { $0.width * $0.height > canvasPixels.partialValue }) {
            return try beyond("A frame is larger than the picture")
        }

        // The frames' size: the viewer's, or smaller to fit the frame budget.
        var (w, h) = ImageDecoder.scaledSize(width: canvas.w, height: canvas.h, for: .fit(max(1, side)))
        let perPixel = 2 * 4 * count // original and sepia, RGBA, every frame
        if w * h * perPixel > maxFrameBytes {
            let scale = (Double(maxFrameBytes) / Double(w * h * perPixel)).squareRoot()
            guard scale >= minScale else {
                return try beyond(
                    "\(count) frames do not fit in \(PhotoLimits.megabytes(maxFrameBytes)) at a third of their size")
            }
            w = max(1, Int(Double(w) * scale))
            h = max(1, Int(Double(h) * scale))
        }

        // What gdk-pixbuf holds while decoding, and the frames made (the originals; their
        // sepia copies are made after this reservation is returned).
        let loaderBytes =
            header.format == .gif ? 5 * canvasPixels.partialValue : 4 * canvasPixels.partialValue * (count + 1)
        let reservation = try budget.reserve(loaderBytes + 4 * w * h * count, cancellable: cancellable)
        defer { reservation.release() }
        if cancellable.isCancelled { throw PhotoFailure.cancelled }

        let animation = try load(bytes)
        defer { g_object_unref(UnsafeMutableRawPointer(animation)) }
        guard gdk_pixbuf_animation_is_static_image(animation) == 0,
            Int(gdk_pixbuf_animation_get_width(animation)) == canvas.w,
            Int(gdk_pixbuf_animation_get_height(animation)) == canvas.h,
            let iter = cp_pixbuf_animation_iter_new(animation)
        else { return .still(reason: "gdk-pixbuf reads it as a still picture") }
        defer { g_object_unref(UnsafeMutableRawPointer(iter)) }

        var frames: [PhotoImage] = []
        var delays: [Int] = []
        frames.reserveCapacity(count)
        // Each frame is reached by moving the iterator's clock to 1 ms into it (the WebP
        // iterator still shows the earlier frame at the exact boundary), counting time the
        // way the loader does; a frame it skips (no time of its own) adds its delay to the
        // frame before.
        var start = 0
        for (index, frame) in header.frames.enumerated() {
            if cancellable.isCancelled { throw PhotoFailure.cancelled }
            if index > 0 {
                start += loaderDelay(header.format, header.frames[index - 1].delayMs)
                guard cp_pixbuf_animation_iter_advance_to(iter, start + 1) != 0 else {
                    delays[delays.count - 1] += AnimationHeader.playbackDelay(frame.delayMs)
                    continue
                }
            }
            guard let pixbuf = gdk_pixbuf_animation_iter_get_pixbuf(iter) else {
                throw PhotoFailure(
                    .damaged(format: header.format == .gif ? "GIF" : "WebP"),
                    detail: "Frame \(index + 1) could not be decoded")
            }
            // Always a copy: the GIF iterator composites every frame into the same pixbuf.
            let made =
                w == canvas.w && h == canvas.h
                ? gdk_pixbuf_copy(pixbuf)
                : gdk_pixbuf_scale_simple(pixbuf, Int32(w), Int32(h), GDK_INTERP_BILINEAR)
            guard let made else { throw PhotoFailure(.tooManyPixels, detail: "No memory for frame \(index + 1)") }
            frames.append(PhotoImage(taking: made))
            delays.append(AnimationHeader.playbackDelay(frame.delayMs))
        }
        guard frames.count > 1 else { return .still(reason: "One frame shown") }
        return .animation(ViewerAnimation(frames: frames, delays: delays, plays: header.plays))
    }

    /// How long gdk-pixbuf's iterator holds a frame the file gives `delayMs`: its GIF loader
    /// makes 0 into 100 ms and anything under 20 into 20; the WebP loader takes it as it is.
    static func loaderDelay(_ format: AnimationHeader.Format, _ delayMs: Int) -> Int {
        guard format == .gif else { return delayMs }
        return delayMs == 0 ? 100 : max(20, delayMs)
    }

    /// The animation gdk-pixbuf makes of `bytes` (a reference the caller owns).
    private static func load(_ bytes: Data) throws(PhotoFailure) -> OpaquePointer {
        let loader = ObjectRef(taking: gdk_pixbuf_loader_new()!)
        var error: UnsafeMutablePointer<GError>?
        let written = bytes.withUnsafeBytes { raw in
            gdk_pixbuf_loader_write(
                loader.pointer, raw.cBytes, gsize(raw.count), &error) != 0
        }
        let closed = written && gdk_pixbuf_loader_close(loader.pointer, &error) != 0
        if !written { gdk_pixbuf_loader_close(loader.pointer, nil) }
        defer { if let error { g_error_free(error) } }
        guard closed, let animation = gdk_pixbuf_loader_get_animation(loader.pointer) else {
            let message =
                error.map { String(cString: $0.pointee.message) } ?? "No animation could be decoded from the data"
            throw PhotoFailure(.notImage, detail: message)
        }
        g_object_ref(UnsafeMutableRawPointer(animation))
        return animation
    }
}
