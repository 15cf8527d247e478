import CEmbeddedPictures
import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// How large a decoded image may be.
public enum DecodeSize: Sendable, Equatable, Codable {
    /// Whole image, within `side`×`side` pixels.
    case fit(Int)
    /// A centred square of `side` pixels filling the box (a list thumbnail).
    case square(Int)
    /// Whole image, as a thumbnail of the shared cache's smallest size from which a square of
    /// `square` pixels can still be cut (see `ThumbnailCache.Size.fitting`): a list thumbnail
    /// that is also kept in the cache.
    case thumbnail(square: Int)
}

/// Decodes a byte stream into a pixbuf no larger than a target box, using GdkPixbufLoader.
///
/// The loader's `size-prepared` signal gives the image size before any pixels are allocated;
/// asking for a smaller size there lets the JPEG loader scale while decoding (DCT scaling),
/// so a 4000-pixel photo never exists at full size in memory just to become a thumbnail.
///
/// Limits (`DecodeLimits`) are checked on the way: bytes as they arrive (`too-large`), and
/// the size the header claims, in `size-prepared`, before the loader allocates anything
/// (`too-many-pixels`): the decode is refused by asking the loader for a 0×0 picture, which
/// every loader here treats as an error before allocating. The memory the decode will need
/// is then reserved from `budget`, waiting for room if other decodes hold it. JPEG, PNG, BMP,
/// TGA, PNM, TIFF and SVG emit `size-prepared` as soon as their header is in; GIF only once
/// all its bytes are (its loader decodes at the end), still before allocating. QuickTime
/// and Mac icon files are refused (`unsupported`): they wrap another picture whose loader
/// never sees the size asked for, so nothing could stop it decoding at full size.
///
/// The pictures the loaders would decode without those limits, or with their colours or
/// depth lost, are kept whole and decoded by their own decoders: which one, the picture's
/// first bytes say (`HeaderCheck.Route`: JPEG XL, HEIF, animated WebP, 16-bit PNG and TIFF,
/// CMYK and progressive JPEG, each in a file of its own).
public enum ImageDecoder {
    /// Reads `stream` to its end and decodes it at `size` (never enlarged). `cancellable` is
    /// checked between chunks as well as passed to each read. `onChunk` sees every chunk read
    /// (a row's download keeps its bytes this way, for the photo viewer to share).
    public static func decode(
        _ stream: ObjectRef<GInputStream>, size: DecodeSize, limits: DecodeLimits = .standard,
        budget: DecodeMemoryBudget = .shared,
        cancellable: Cancellable,
        onChunk: ((UnsafeRawBufferPointer) -> Void)? = nil
    ) throws(PhotoFailure) -> PhotoImage {
        // gdk-pixbuf's HEIF loader uses libheif, which must be set up before two threads use it.
        cp_heif_prepare()
        let loader = ObjectRef(taking: gdk_pixbuf_loader_new()!)
        let check = HeaderCheck(limits: limits, size: size, budget: budget, cancellable: cancellable)
        let fit = SignalConnection.connect(
            loader.pointer, "size-prepared",
            ints: { width, height in
                check.sizePrepared(loader.pointer, width: Int(width), height: Int(height))
            })
        let prepared = SignalConnection.connect(UnsafeMutableRawPointer(loader.pointer), "area-prepared") {
            check.areaPrepared(loader.pointer)
        }
        let updated = SignalConnection.connect(
            UnsafeMutableRawPointer(loader.pointer), "area-updated",
            fourInts: { _, y, _, height in check.rowsDone(upTo: Int(y) + Int(height)) })
        defer {
            fit.disconnect()
            prepared.disconnect()
            updated.disconnect()
            // Bands still being turned into sRGB are written into the loader's pixels.
            check.colours?.wait()
            gdk_pixbuf_loader_close(loader.pointer, nil)
            check.reservation?.release()
        }

        let buffer = ChunkBuffer()
        func feed(_ chunk: UnsafeRawBufferPointer) throws(PhotoFailure) {
            do throws(PhotoFailure) {
                try loaderCall(loader) {
                    gdk_pixbuf_loader_write(
                        loader.pointer, chunk.cBytes,
                        gsize(chunk.count), $0)
                }
            } catch {
                // A CMYK or progressive JPEG's loader was stopped on purpose (see
                // `HeaderCheck.takeJPEG`).
                if check.route.isTakenJPEG, check.refusal == nil { return }
                throw check.refusal ?? check.unsupportedFormat(error) ?? error
            }
            if let refusal = check.refusal { throw refusal }
        }
        /// Ends the gdk-pixbuf loader's decode: its picture (the loader's), and its colours
        /// turned into sRGB as its profile says.
        func finishLoading() throws(PhotoFailure) -> DecodedPicture {
            // HEIF and AVIF are decoded whole when the loader is closed, and an animated WebP is
            // held back from its loader until here: their sizes are checked first.
            try check.checkWholeFile()
            if check.hasHeldBytes { try check.releaseHeld { bytes throws(PhotoFailure) in try feed(bytes) } }
            do throws(PhotoFailure) {
                try loaderCall(loader) { gdk_pixbuf_loader_close(loader.pointer, $0) }
            } catch {
                // A CMYK or progressive JPEG shorter than the few kilobytes gdk-pixbuf waits for
                // before it picks a loader reaches its frame header only now, and is stopped there.
                if check.route.isTakenJPEG, check.refusal == nil, let jpeg = try check.decodeKept() { return jpeg }
                throw check.refusal ?? check.unsupportedFormat(error) ?? error
            }
            if let refusal = check.refusal { throw refusal }
            guard let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader.pointer) else {
                let detail = "No picture could be decoded from the data"
                throw formatName(loader).map { PhotoFailure(.damaged(format: $0), detail: detail) }
                    ?? PhotoFailure(.notImage, detail: detail)
            }
            // Colours as the picture's profile says, turned into sRGB (after the loader's
            // scaling: a thumbnail's few pixels, not the photo's many), unless that was done as
            // it decoded.
            if let started = check.colours { return (pixbuf, started.finish(), nil) }
            let embedded = ColorProfile.embedded(in: pixbuf)
            let profile: Data?
            switch check.pngColours {
            case .replaces(let described): profile = described
            case .fallback(let described): profile = embedded ?? described
            case .none: profile = embedded ?? check.webPProfile ?? check.exifProfile ?? check.nclxProfile
            }
            return (pixbuf, profile.map { ColorProfile.convert(pixbuf, from: $0) } ?? .assumedSRGB, nil)
        }

        var total = 0
        while true {
            if cancellable.isCancelled { throw PhotoFailure.cancelled }
            guard let chunk = try buffer.read(stream, cancellable: cancellable) else { break }
            total += chunk.count
            if total > limits.maxBytes {
                throw PhotoFailure(
                    .tooLarge, detail: "More than \(PhotoLimits.megabytes(limits.maxBytes)), the most a photo may have")
            }
            onChunk?(chunk)
            // gdk-pixbuf picks a loader once it has 1 KB; the kind is checked before that.
            try check.keepHeader(chunk)
            if check.feedsLoader {
                try feed(chunk)
                check.fed += chunk.count
            }
        }
        g_input_stream_close(stream.pointer, nil, nil)
        if cancellable.isCancelled { throw PhotoFailure.cancelled }
        guard total > 0 else { throw PhotoFailure(.empty, detail: "The file or response holds no data") }
        // A picture kept whole goes to the decoder of its kind (see `HeaderCheck.Route`); the
        // others, and those that decoder passes back, to the loader's end.
        let kept = try check.decodeKept()
        let (pixbuf, colours, decodedApart) = if let kept { kept } else { try finishLoading() }
        defer { withExtendedLifetime(decodedApart) {} }
        // Honour EXIF orientation; this returns a new reference either way.
        let oriented = PhotoImage(taking: gdk_pixbuf_apply_embedded_orientation(pixbuf)!)
        let image: PhotoImage
        if case .square(let side) = size {
            image = centreSquare(of: oriented, side: side)
        } else {
            image = oriented
        }
        ColorProfile.mark(image.pixbuf, colours)
        return image
    }

    /// A picture decoded: its pixbuf, how its colours were turned, and the image that owns the
    /// pixbuf when it is not the loader's (decoded apart from it, or scaled).
    typealias DecodedPicture = (pixbuf: OpaquePointer, colours: ColorProfile.Outcome, owner: PhotoImage?)

    /// Decodes a whole file held in memory (see the stream version), without copying it.
    public static func decode(
        _ data: Data, size: DecodeSize, limits: DecodeLimits = .standard,
        budget: DecodeMemoryBudget = .shared, cancellable: Cancellable
    ) throws(PhotoFailure) -> PhotoImage {
        let result: Result<PhotoImage, PhotoFailure> = data.withUnsafeBytes { raw in
            // Static: the stream reads the data in place, and is gone before the closure returns.
            let bytes = g_bytes_new_static(raw.baseAddress, gsize(raw.count))!
            defer { g_bytes_unref(bytes) }
            let stream = ObjectRef(taking: g_memory_input_stream_new_from_bytes(bytes)!)
            return Result { () throws(PhotoFailure) in
                try decode(stream, size: size, limits: limits, budget: budget, cancellable: cancellable)
            }
        }
        return try result.get()
    }

    /// The centred square of `image`, scaled down to `side` pixels if it is larger (a list
    /// thumbnail cut from a picture, or from a thumbnail of the whole picture).
    public static func centreSquare(of image: PhotoImage, side: Int) -> PhotoImage {
        let shorter = min(image.width, image.height)
        guard image.width != image.height || shorter > side else { return image }
        let square = gdk_pixbuf_new_subpixbuf(
            image.pixbuf, Int32((image.width - shorter) / 2),
            Int32((image.height - shorter) / 2), Int32(shorter), Int32(shorter))!
        defer { g_object_unref(UnsafeMutableRawPointer(square)) }
        guard shorter > side else {
            return PhotoImage(taking: gdk_pixbuf_copy(square)!) // its own pixels, not a view of the larger ones
        }
        return PhotoImage(taking: gdk_pixbuf_scale_simple(square, Int32(side), Int32(side), GDK_INTERP_BILINEAR)!)
    }

    /// `image` at `width` × `height` (itself if it is that size already).
    public static func scaled(_ image: PhotoImage, width: Int, height: Int) throws(PhotoFailure) -> PhotoImage {
        guard (width, height) != (image.width, image.height) else { return image }
        guard let scaled = gdk_pixbuf_scale_simple(image.pixbuf, Int32(width), Int32(height), GDK_INTERP_BILINEAR)
        else {
            throw PhotoFailure(.tooManyPixels, detail: "No memory to scale the picture to \(width)×\(height)")
        }
        return PhotoImage(taking: scaled)
    }

    /// "QuickTime" or "Mac icon" if the first 8 bytes are the signature of a format that hands
    /// its data to an inner loader whose size cannot be limited; nil otherwise.
    static func wrapperKind<Bytes: Collection<UInt8>>(_ first: Bytes) -> String? {
        let head = Array(first.prefix(8))
        guard head.count == 8 else { return nil }
        let tag = String(decoding: head[4..<8], as: UTF8.self)
        if tag == "idsc" || tag == "idat" { return "QuickTime" }
        if head.starts(with: Array("icns".utf8)) { return "Mac icon" }
        return nil
    }

    static func tooManyPixels(width: Int, height: Int, limit: Int) -> PhotoFailure {
        let megapixels = { (pixels: Double) in
            pixels >= 1e7 ? "\(Int(pixels / 1e6))" : String(format: "%.1f", pixels / 1e6)
        }
        return PhotoFailure(
            .tooManyPixels,
            detail: "\(width)×\(height) is \(megapixels(Double(width) * Double(height))) megapixels; "
                + "a photo may have at most \(megapixels(Double(limit)))")
    }

    /// Runs a loader call. A GError from it means the data is a picture of the kind the loader
    /// reads that it refused (damaged, or a variant it does not read) once a loader was chosen
    /// for it; before that, that the data is not a picture gdk-pixbuf reads.
    private static func loaderCall(
        _ loader: ObjectRef<GdkPixbufLoader>,
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> gboolean
    ) throws(PhotoFailure) {
        do { _ = try withGError(body) } catch {
            let pixbufDomain = String(cString: g_quark_to_string(gdk_pixbuf_error_quark()))
            let code = error.domain == pixbufDomain ? GdkPixbufError(rawValue: UInt32(bitPattern: error.code)) : nil
            if code == GDK_PIXBUF_ERROR_UNSUPPORTED_OPERATION {
                throw PhotoFailure(.unsupportedPicture, detail: error.message)
            }
            if let format = formatName(loader) {
                throw PhotoFailure(.damaged(format: format), detail: error.message)
            }
            throw PhotoFailure(.notImage, detail: error.message)
        }
    }

    /// The kind of picture the loader took the data for, as people call it ("JPEG", "BMP"),
    /// once it has chosen one; nil before.
    static func formatName(_ loader: ObjectRef<GdkPixbufLoader>) -> String? {
        guard let format = gdk_pixbuf_loader_get_format(loader.pointer),
            let name = gdk_pixbuf_format_get_name(format)
        else { return nil }
        defer { g_free(name) }
        return displayName(ofFormat: String(cString: name))
    }

    /// A gdk-pixbuf loader's name as people call its format.
    static func displayName(ofFormat name: String) -> String {
        switch name {
        case "webp": "WebP"
        case "ico": "Windows icon"
        case "ani": "animated cursor"
        case "icns": "Mac icon"
        case "qtif": "QuickTime"
        case "svg": "SVG"
        default: name.uppercased()
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
        case .thumbnail(let square):
            scale =
                Double(ThumbnailCache.Size.fitting(square: square, width: width, height: height).rawValue)
                / Double(max(width, height))
        }
        guard scale < 1 else { return (width, height) }
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }
}
