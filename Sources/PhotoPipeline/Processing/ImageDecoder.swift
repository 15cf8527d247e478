/// Decodes a byte stream into a pixbuf no larger than a target box, using GdkPixbufLoader.
///
/// The loader's `size-prepared` signal gives the image size before any pixels are allocated;
/// asking for a smaller size there lets the JPEG loader scale while decoding (DCT scaling),
/// so a 4000-pixel photo never exists at full size in memory just to become a thumbnail.
import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

public enum ImageDecoder {
    /// Reads `stream` to its end and decodes it to fit within `maxSize`×`maxSize` pixels
    /// (never enlarged). `isCancelled` is checked between chunks.
    public static func decode(_ stream: ObjectRef<GInputStream>, maxSize: Int, cancellable: Cancellable,
                              isCancelled: () -> Bool = { false }) throws(FetchError) -> PhotoImage {
        let loader = ObjectRef(taking: gdk_pixbuf_loader_new()!)
        let fit = SignalConnection.connect(loader.pointer, "size-prepared", ints: { width, height in
            let (w, h) = fittedSize(width: Int(width), height: Int(height), maxSize: maxSize)
            if w != Int(width) || h != Int(height) {
                gdk_pixbuf_loader_set_size(loader.pointer, Int32(w), Int32(h))
            }
        })
        defer { fit.disconnect(); gdk_pixbuf_loader_close(loader.pointer, nil) }

        let buffer = ChunkBuffer()
        var total = 0
        while true {
            if isCancelled() { throw .cancelled }
            guard let chunk = try buffer.read(stream, cancellable: cancellable) else { break }
            total += chunk.count
            var error: UnsafeMutablePointer<GError>? = nil
            gdk_pixbuf_loader_write(loader.pointer, chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), gsize(chunk.count), &error)
            if let error { throw FetchError("Not an image: \(GLibError(consuming: error).message)") }
        }
        g_input_stream_close(stream.pointer, nil, nil)
        if isCancelled() { throw .cancelled }
        guard total > 0 else { throw FetchError("Empty response: no image data") }
        var closeError: UnsafeMutablePointer<GError>? = nil
        gdk_pixbuf_loader_close(loader.pointer, &closeError)
        if let closeError { throw FetchError("Not an image: \(GLibError(consuming: closeError).message)") }
        guard let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader.pointer) else {
            throw FetchError("Not an image: no picture could be decoded")
        }
        // Honour EXIF orientation; this returns a new reference either way.
        let oriented = gdk_pixbuf_apply_embedded_orientation(pixbuf)!
        return PhotoImage(taking: oriented)
    }

    /// The largest size with the same aspect ratio that fits in `maxSize`×`maxSize`.
    public static func fittedSize(width: Int, height: Int, maxSize: Int) -> (Int, Int) {
        guard width > maxSize || height > maxSize, width > 0, height > 0 else { return (width, height) }
        let scale = Double(maxSize) / Double(max(width, height))
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }
}
