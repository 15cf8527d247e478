import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// How large a decoded image may be.
public enum DecodeSize: Sendable, Equatable {
    /// Whole image, within `side`×`side` pixels.
    case fit(Int)
    /// A centred square of `side` pixels filling the box (a list thumbnail).
    case square(Int)
}

/// Decodes a byte stream into a pixbuf no larger than a target box, using GdkPixbufLoader.
///
/// The loader's `size-prepared` signal gives the image size before any pixels are allocated;
/// asking for a smaller size there lets the JPEG loader scale while decoding (DCT scaling),
/// so a 4000-pixel photo never exists at full size in memory just to become a thumbnail.
public enum ImageDecoder {
    /// Reads `stream` to its end and decodes it at `size` (never enlarged). `cancellable` is
    /// checked between chunks as well as passed to each read. `onChunk` sees every chunk read
    /// (a row's download keeps its bytes this way, for the photo viewer to share).
    public static func decode(_ stream: ObjectRef<GInputStream>, size: DecodeSize,
                              cancellable: Cancellable,
                              onChunk: ((UnsafeRawBufferPointer) -> Void)? = nil) throws(PhotoFailure) -> PhotoImage {
        let loader = ObjectRef(taking: gdk_pixbuf_loader_new()!)
        let fit = SignalConnection.connect(loader.pointer, "size-prepared", ints: { width, height in
            let (w, h) = scaledSize(width: Int(width), height: Int(height), for: size)
            if w != Int(width) || h != Int(height) {
                gdk_pixbuf_loader_set_size(loader.pointer, Int32(w), Int32(h))
            }
        })
        defer { fit.disconnect(); gdk_pixbuf_loader_close(loader.pointer, nil) }

        let buffer = ChunkBuffer()
        var total = 0
        while true {
            if cancellable.isCancelled { throw PhotoFailure.cancelled }
            guard let chunk = try buffer.read(stream, cancellable: cancellable) else { break }
            total += chunk.count
            onChunk?(chunk)
            try loaderCall { gdk_pixbuf_loader_write(loader.pointer, chunk.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                                     gsize(chunk.count), $0) }
        }
        g_input_stream_close(stream.pointer, nil, nil)
        if cancellable.isCancelled { throw PhotoFailure.cancelled }
        guard total > 0 else { throw PhotoFailure(.empty, detail: "The file or response holds no data") }
        try loaderCall { gdk_pixbuf_loader_close(loader.pointer, $0) }
        guard let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader.pointer) else {
            throw PhotoFailure(.notImage, detail: "No picture could be decoded from the data")
        }
        // Honour EXIF orientation; this returns a new reference either way.
        let oriented = PhotoImage(taking: gdk_pixbuf_apply_embedded_orientation(pixbuf)!)
        guard case .square = size, oriented.width != oriented.height else { return oriented }
        let side = min(oriented.width, oriented.height)
        let square = gdk_pixbuf_new_subpixbuf(oriented.pixbuf, Int32((oriented.width - side) / 2),
                                              Int32((oriented.height - side) / 2), Int32(side), Int32(side))!
        defer { g_object_unref(UnsafeMutableRawPointer(square)) }
        return PhotoImage(taking: gdk_pixbuf_copy(square)!) // its own pixels, not a view of the larger ones
    }

    /// Runs a loader call; a GError from it means the data is not a picture gdk-pixbuf reads.
    private static func loaderCall(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> gboolean) throws(PhotoFailure) {
        do { _ = try withGError(body) } catch {
            let pixbufDomain = String(cString: g_quark_to_string(gdk_pixbuf_error_quark()))
            let code = error.domain == pixbufDomain ? GdkPixbufError(rawValue: UInt32(bitPattern: error.code)) : nil
            switch code {
            case GDK_PIXBUF_ERROR_CORRUPT_IMAGE:
                throw PhotoFailure(.notImage, summary: "Damaged picture", detail: error.message)
            case GDK_PIXBUF_ERROR_UNSUPPORTED_OPERATION:
                throw PhotoFailure(.unsupported, summary: "Unsupported picture", detail: error.message)
            default:
                throw PhotoFailure(.notImage, detail: error.message)
            }
        }
    }

    /// The decode size for an image of `width`×`height`: scaled down (never up) so that it fits
    /// the box, or, for a square, so that its shorter side fills it.
    public static func scaledSize(width: Int, height: Int, for size: DecodeSize) -> (Int, Int) {
        guard width > 0, height > 0 else { return (width, height) }
        let scale: Double
        switch size {
        case .fit(let side): scale = Double(side) / Double(max(width, height))
        case .square(let side): scale = Double(side) / Double(min(width, height))
        }
        guard scale < 1 else { return (width, height) }
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }
}
