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
                // `HeaderCheck.takeCMYK` and `takeProgressive`).
                if check.isCMYK || check.isProgressive, check.refusal == nil { return }
                throw check.refusal ?? check.unsupportedFormat(error) ?? error
            }
            if let refusal = check.refusal { throw refusal }
        }
        /// Ends the gdk-pixbuf loader's decode: its picture (the loader's), and its colours
        /// turned into sRGB as its profile says.
        func finishLoading() throws(PhotoFailure) -> (OpaquePointer, ColorProfile.Outcome, PhotoImage?) {
            // HEIF and AVIF are decoded whole when the loader is closed, and an animated WebP is
            // held back from its loader until here: their sizes are checked first.
            try check.checkWholeFile()
            if check.hasHeldBytes { try check.releaseHeld { bytes throws(PhotoFailure) in try feed(bytes) } }
            do throws(PhotoFailure) {
                try loaderCall(loader) { gdk_pixbuf_loader_close(loader.pointer, $0) }
            } catch {
                // A CMYK JPEG shorter than the few kilobytes gdk-pixbuf waits for before it
                // picks a loader reaches its frame header only now, and is stopped there.
                if check.isCMYK, check.refusal == nil { return try check.decodeCMYK() }
                if check.isProgressive, check.refusal == nil { return try check.decodeProgressive() }
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
        let (pixbuf, colours, decodedApart) =
            if check.isJXL {
                try check.decodeJXL()
            } else if check.isCMYK {
                try check.decodeCMYK()
            } else if check.isProgressive {
                try check.decodeProgressive()
            } else if let deep = try check.decodeDeep() {
                deep
            } else {
                try finishLoading()
            }
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

    /// The limit checks of one decode, run from the loader's signals (on the decoding thread).
    private final class HeaderCheck {
        let limits: DecodeLimits
        let size: DecodeSize
        let budget: DecodeMemoryBudget
        let cancellable: Cancellable
        /// Why the decode was refused, once it was.
        var refusal: PhotoFailure?
        var reservation: DecodeMemoryBudget.Reservation?
        private var sizeKnown = false
        /// The first bytes, which hold the header, until the size is known.
        private var header: [UInt8] = []
        /// Whether a JPEG's EXIF says it is Adobe RGB without a profile of its own.
        private(set) var exifAdobeRGB = false
        var exifProfile: Data? { exifAdobeRGB ? ColorProfile.adobeRGB : nil }
        /// What a PNG's `cICP`, `sRGB`, `gAMA` and `cHRM` chunks say of its colours.
        private(set) var pngColours: ColourDescription.PNGChunks.Choice = .none
        /// A HEIF or AVIF picture's `nclx` colour description as a profile, where it has no ICC
        /// profile (the HEIF standard's order).
        private(set) var nclxProfile: Data?
        /// Whether the picture is a JPEG decoded top to bottom once (not progressive): its rows
        /// are final as the loader reports them, and may be turned into sRGB while it decodes.
        private var sequentialJPEG = false
        /// The turning of a large sequential JPEG's rows into sRGB, begun while it decodes.
        private(set) var colours: ColorProfile.RowConversion?
        /// A WebP's colour profile, read from its header (see `PictureSignature.webPProfile`).
        private(set) var webPProfile: Data?
        private var webPProfileLooked = false

        init(limits: DecodeLimits, size: DecodeSize, budget: DecodeMemoryBudget, cancellable: Cancellable) {
            self.limits = limits
            self.size = size
            self.budget = budget
            self.cancellable = cancellable
        }

        /// How many of the first bytes are kept until the size is known: enough for a JPEG's
        /// EXIF block and a large CMYK profile before its frame header.
        static let headerLimit = 4 << 20

        /// A CMYK JPEG's profile: the JPEG is kept whole and its inks decoded with libjpeg, to
        /// be turned into RGB through the profile (gdk-pixbuf's loader would turn them by a
        /// formula first).
        private(set) var cmykProfile: Data?
        var isCMYK: Bool { cmykProfile != nil }
        private var cmykSize = (width: 0, height: 0)
        private var cmykOrientation = 1

        /// At a JPEG's frame header: if it is CMYK with a CMYK profile (or none, when there is a
        /// default CMYK profile) and all its bytes so far
        /// are kept, checks its size, reserves the memory its decode needs, and stops its
        /// loader, to decode it with libjpeg once all its bytes are in. Says whether it did.
        private func takeCMYK(_ loader: UnsafeMutablePointer<GdkPixbufLoader>, width: Int, height: Int) -> Bool {
            guard PictureSignature.isJPEG(header), header.count < Self.headerLimit,
                header.withUnsafeBytes({ DecodeCost.jpegInfo($0)?.components }) == 4
            else { return false }
            // Its own CMYK profile, or, where it has none at all, the default CMYK one.
            let embedded = ColorProfile.jpegProfile(in: Data(header))
            guard let profile = embedded.map({ ColorProfile.isCMYKProfile($0) ? $0 : nil }) ?? ColorProfile.defaultCMYK
            else { return false }
            // The inks at libjpeg's scale (at most twice the size asked for, each way), its
            // buffers, and the RGB picture made of them.
            guard takeWhole(loader, width: width, height: height, extraPerPixel: 3 * 4) else { return true }
            cmykProfile = profile
            cmykSize = (width, height)
            cmykOrientation = ExifReader.read(Data(header)).orientation
            return true
        }

        /// Takes a JPEG away from its loader, to be decoded with libjpeg once all its bytes are
        /// in: checks its size and reserves what its decode needs (`extraPerPixel` bytes for each
        /// pixel of the size asked for besides), refusing it if either fails, and stops the
        /// loader before it allocates (its next write fails, and none follows). Whether the
        /// JPEG was taken (not refused).
        private func takeWhole(
            _ loader: UnsafeMutablePointer<GdkPixbufLoader>, width: Int, height: Int, extraPerPixel: Int = 0
        ) -> Bool {
            let pixels = width.multipliedReportingOverflow(by: height)
            guard width > 0, height > 0, !pixels.overflow, pixels.partialValue <= limits.maxPixels else {
                refuse(loader, ImageDecoder.tooManyPixels(width: width, height: height, limit: limits.maxPixels))
                return false
            }
            let (w, h) = scaledSize(width: width, height: height, for: size)
            let cost = header.withUnsafeBytes {
                DecodeCost.estimate(format: "jpeg", width: width, height: height, target: (w, h), header: $0)
            }
            do {
                reservation = try budget.reserve(cost + extraPerPixel * w * h, cancellable: cancellable)
            } catch {
                refuse(loader, error)
                return false
            }
            gdk_pixbuf_loader_set_size(loader, 0, 0)
            return true
        }

        /// Decodes the CMYK JPEG kept whole with libjpeg at a scale covering the size asked
        /// for, turns its inks into sRGB through its profile, and scales it to that size.
        func decodeCMYK() throws(PhotoFailure) -> (OpaquePointer, ColorProfile.Outcome, PhotoImage?) {
            let bytes = header
            header = []
            let (w, h) = ImageDecoder.scaledSize(width: cmykSize.width, height: cmykSize.height, for: size)
            var picture = cp_cmyk_picture()
            var message = [CChar](repeating: 0, count: 256)
            let status = bytes.withUnsafeBytes {
                cp_cmyk_jpeg_decode(
                    $0.baseAddress, $0.count, Int32(w), Int32(h), Int64(limits.maxPixels), &picture, &message,
                    message.count)
            }
            defer { free(picture.inks) }
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard status == 0, let inks = picture.inks,
                let profile = cmykProfile,
                let (inRGB, colours) = ColorProfile.rgb(
                    fromInks: inks, width: Int(picture.width), height: Int(picture.height),
                    inverted: picture.inverted != 0, profile: profile)
            else {
                throw PhotoFailure(
                    .damaged(format: "JPEG"), detail: text.isEmpty ? "The CMYK JPEG could not be read" : text)
            }
            let image = try ImageDecoder.scaled(inRGB, width: w, height: h)
            // Turned upright later, as the loader's pictures are, by the EXIF orientation.
            if cmykOrientation != 1 { gdk_pixbuf_set_option(image.pixbuf, "orientation", "\(cmykOrientation)") }
            return (image.pixbuf, colours, image)
        }

        /// A progressive JPEG (of YCbCr, RGB or grey): kept whole and decoded in one pass by
        /// libjpeg. gdk-pixbuf's loader makes the whole picture once for each of its scans as
        /// they arrive (a 12-megapixel photo: 440 ms against 220 in one pass here), and its rows
        /// are final only after the last, so its colours could not be turned as it decoded.
        private(set) var isProgressive = false
        private var progressiveSize = (width: 0, height: 0)
        private var progressiveOrientation = 1

        /// At a progressive JPEG's frame header, with all its bytes so far kept: checks its
        /// size, reserves the memory its decode needs, and stops its loader, to decode it with
        /// libjpeg once all its bytes are in. Says whether it did.
        private func takeProgressive(
            _ loader: UnsafeMutablePointer<GdkPixbufLoader>, width: Int, height: Int
        ) -> Bool {
            guard PictureSignature.isJPEG(header), header.count < Self.headerLimit,
                let info = header.withUnsafeBytes({ DecodeCost.jpegInfo($0) }), info.progressive,
                info.components == 1 || info.components == 3
            else { return false }
            guard takeWhole(loader, width: width, height: height) else { return true }
            isProgressive = true
            progressiveSize = (width, height)
            progressiveOrientation = ExifReader.read(Data(header)).orientation
            return true
        }

        /// Decodes the progressive JPEG kept whole with libjpeg, in one pass, at a scale covering
        /// the size asked for. Its colours are turned into sRGB from its profile as its rows
        /// come when that is the size asked for (the viewer's), else after it is scaled.
        func decodeProgressive() throws(PhotoFailure) -> (OpaquePointer, ColorProfile.Outcome, PhotoImage?) {
            let bytes = header
            header = []
            let (w, h) = ImageDecoder.scaledSize(
                width: progressiveSize.width, height: progressiveSize.height, for: size)
            let profile = ColorProfile.jpegProfile(in: Data(bytes.prefix(Self.headerLimit))) ?? exifProfile
            let target = RowsTarget(profile: profile, wanted: (w, h))
            var message = [CChar](repeating: 0, count: 256)
            let rows = cp_jpeg_rows_target(
                prepare: { context, width, height, stride in
                    CallbackData.borrow(context, as: RowsTarget.self).prepare(
                        width: Int(width), height: Int(height), stride: stride)
                },
                rows_done: { context, rows in
                    CallbackData.borrow(context, as: RowsTarget.self).conversion?.ready(upTo: Int(rows))
                })
            let status = withExtendedLifetime(target) {
                bytes.withUnsafeBytes {
                    cp_rgb_jpeg_decode(
                        $0.baseAddress, $0.count, Int32(w), Int32(h), Int64(limits.maxPixels), rows,
                        CallbackData.lend(target), &message, message.count)
                }
            }
            guard status == 0, let decoded = target.image else {
                target.conversion?.wait()
                let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if status == -2, !text.isEmpty, target.image == nil {
                    throw PhotoFailure(.tooManyPixels, detail: text)
                }
                throw PhotoFailure(
                    .damaged(format: "JPEG"), detail: text.isEmpty ? "The progressive JPEG could not be read" : text)
            }
            let image: PhotoImage
            let colours: ColorProfile.Outcome
            if let conversion = target.conversion {
                colours = conversion.finish()
                image = try ImageDecoder.scaled(decoded, width: w, height: h)
            } else {
                image = try ImageDecoder.scaled(decoded, width: w, height: h)
                colours = profile.map { ColorProfile.convert(image.pixbuf, from: $0) } ?? .assumedSRGB
            }
            // Turned upright later, as the loader's pictures are, by the EXIF orientation.
            if progressiveOrientation != 1 {
                gdk_pixbuf_set_option(image.pixbuf, "orientation", "\(progressiveOrientation)")
            }
            return (image.pixbuf, colours, image)
        }

        /// Where libjpeg's rows go: a picture made at the decoded size, and, when that is the
        /// size asked for and there is a profile, the turning of its rows as they come.
        private final class RowsTarget {
            let profile: Data?
            let wanted: (Int, Int)
            private(set) var image: PhotoImage?
            private(set) var conversion: ColorProfile.RowConversion?

            init(profile: Data?, wanted: (Int, Int)) {
                self.profile = profile
                self.wanted = wanted
            }

            func prepare(width: Int, height: Int, stride: UnsafeMutablePointer<Int32>?) -> UnsafeMutablePointer<UInt8>?
            {
                guard let made = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, Int32(width), Int32(height)) else {
                    return nil
                }
                let image = PhotoImage(taking: made)
                self.image = image
                stride?.pointee = gdk_pixbuf_get_rowstride(made)
                // Turned as the rows come where that is worth a thread (a large picture, of RGB:
                // a grey profile is used only once its pixels are seen to be grey).
                if let profile, (width, height) == wanted, width * height >= SepiaFilter.parallelPixels,
                    ColorProfile.isRGBProfile(profile)
                {
                    conversion = ColorProfile.RowConversion(ColorProfile.Conversion(made, from: profile))
                }
                return gdk_pixbuf_get_pixels(made)
            }
        }

        /// A JPEG XL file: kept whole, and decoded with libjxl rather than a gdk-pixbuf loader.
        private(set) var isJXL = false

        /// Decodes the JPEG XL file kept whole, scales it to the size asked for, and turns its
        /// colours into sRGB: the picture (owned by the image returned with it).
        func decodeJXL() throws(PhotoFailure) -> (OpaquePointer, ColorProfile.Outcome, PhotoImage?) {
            let bytes = header
            header = []
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(PhotoFailure) in
                    try JXLDecoder.decode(raw, limits: limits, budget: budget, cancellable: cancellable)
                }
            }
            let decoded = try result.get()
            let whole = decoded.image
            let (w, h) = ImageDecoder.scaledSize(width: whole.width, height: whole.height, for: size)
            let image = try ImageDecoder.scaled(whole, width: w, height: h)
            let colours =
                decoded.turned ?? decoded.profile.map { ColorProfile.convert(image.pixbuf, from: $0) }
                ?? decoded.describedAs.map { .srgb($0) } ?? .assumedSRGB
            return (image.pixbuf, colours, image)
        }

        /// A 16-bit PNG, or a TIFF (which may be one): kept whole and held back from the loader,
        /// to be decoded at 16 bits with libpng or libtiff (see `DeepPicture`).
        private var deep: DeepPicture.Kind?
        private var deepLooked = false

        /// Whether the bytes go to the gdk-pixbuf loader as they arrive (a HEIF file's loader
        /// decodes only when closed: its bytes are held back until it is known to need it).
        var feedsLoader: Bool { !holdsBack && !isJXL && !isCMYK && !isProgressive && !isHEIF && deep == nil }
        /// How many bytes went to the loader as they arrived (before the kind was known).
        var fed = 0

        /// Decodes a 16-bit PNG or TIFF kept whole and turns it into sRGB from its 16 bits, or a
        /// HEIF or AVIF file of 10 or 12 bits asked for whole (`fit`: the viewer, saving), from
        /// those bits; nil for a TIFF of another kind, whose bytes then go to the loader (see
        /// `releaseHeld`), and for a HEIF of 8 bits or one made into a thumbnail (scaled down
        /// from 8 bits, then turned, as other pictures are).
        func decodeDeep() throws(PhotoFailure) -> (OpaquePointer, ColorProfile.Outcome, PhotoImage?)? {
            let kind: DeepPicture.Kind
            if let deep {
                kind = deep
            } else if isHEIF, !sizeKnown, case .fit = size {
                kind = .heif
            } else {
                return nil
            }
            let bytes = header
            let probed = bytes.withUnsafeBytes { raw in
                Result { () throws(PhotoFailure) in try DeepPicture.probe(raw, kind: kind) }
            }
            guard let (width, height) = try probed.get() else {
                // A HEIF's bytes stay in `header`, for `checkWholeFile`.
                if kind != .heif {
                    deep = nil
                    held = bytes
                }
                return nil
            }
            if kind == .heif {
                // The way from 16 bits needs more memory than the loader's: where the budget
                // cannot give it (a very large photo, or not in time), the loader's 8 bits are
                // turned instead.
                do {
                    try checkAhead(
                        width: width, height: height, bytesPerPixel: DeepPicture.heifBytesPerPixel, format: kind.name)
                } catch  where error.reason == .tooManyPixels || error.reason == .timeout {
                    (sizeKnown, checkedAhead, header) = (false, false, bytes)
                    return nil
                }
            } else {
                try checkAhead(
                    width: width, height: height, bytesPerPixel: DeepPicture.bytesPerPixel, format: kind.name)
            }
            var fallback: Data?
            var replacing: Data??
            if kind == .heif {
                fallback = Self.nclxProfile(of: bytes)
            } else if kind == .png, let chunks = ColourDescription.PNGChunks.read(bytes) {
                switch chunks.profile {
                case .replaces(let described): replacing = .some(described)
                case .fallback(let described): fallback = described
                case .none: break
                }
            }
            let decoded = bytes.withUnsafeBytes { raw in
                Result { () throws(PhotoFailure) in
                    try DeepPicture.decode(raw, kind: kind, limits: limits, fallback: fallback, replacing: replacing)
                }
            }
            if kind == .heif, case .failure(let error) = decoded, !error.isCancellation {
                // libheif would not give it at its depth: the loader may still read it in 8 bits.
                reservation?.release()
                reservation = nil
                (sizeKnown, checkedAhead, header) = (false, false, bytes)
                return nil
            }
            let (whole, colours) = try decoded.get()
            let (w, h) = ImageDecoder.scaledSize(width: whole.width, height: whole.height, for: size)
            let image = try ImageDecoder.scaled(whole, width: w, height: h)
            if let orientation = gdk_pixbuf_get_option(whole.pixbuf, "orientation"), image !== whole {
                gdk_pixbuf_set_option(image.pixbuf, "orientation", orientation)
            }
            return (image.pixbuf, colours, image)
        }

        private var kindChecked = false
        private var signatureRead = false
        /// A HEIF or AVIF file: kept whole, as its size is read (with libheif) from boxes that
        /// may lie anywhere in it, before the loader decodes it when closed.
        private var isHEIF = false
        /// An animated WebP: kept whole and held back from the loader, which decodes every
        /// frame at full size, until its frames are counted.
        private(set) var holdsBack = false
        /// The size was read and checked, and the memory reserved, before the loader saw the
        /// bytes (WebP and HEIF loaders allocate the whole picture whatever size is asked for).
        private var checkedAhead = false

        /// Keeps the first bytes (up to 1 MB; a HEIF file whole) until the size is known, and
        /// checks the kind of picture as soon as there are enough of them.
        func keepHeader(_ chunk: UnsafeRawBufferPointer) throws(PhotoFailure) {
            let whole = isHEIF || holdsBack || isJXL || isCMYK || isProgressive || deep != nil
            guard !sizeKnown, whole || header.count < Self.headerLimit else { return }
            header.append(contentsOf: whole ? chunk[...] : chunk.prefix(Self.headerLimit - header.count))
            if !kindChecked, header.count >= 8 {
                kindChecked = true
                try refuseWrappers(header)
            }
            if !webPProfileLooked, header.count >= 38 {
                // Extended WebP with a profile: its ICCP chunk comes right after VP8X.
                if header[12..<16].elementsEqual("VP8X".utf8), header[20] & 0x20 != 0,
                    header[0..<4].elementsEqual("RIFF".utf8)
                {
                    webPProfile = PictureSignature.webPProfile(header)
                    webPProfileLooked = webPProfile != nil || header.count >= 1 << 20
                } else {
                    webPProfileLooked = true
                }
            }
            if !deepLooked, header.count >= 33 {
                deepLooked = true
                deep = DeepPicture.Kind(header)
            }
            if !signatureRead, header.count >= 30 {
                signatureRead = true
                if JXLDecoder.isJXL(header) {
                    isJXL = true
                } else if PictureSignature.isHEIF(header) {
                    isHEIF = true
                } else if let webP = PictureSignature.webPSize(header), webP.animated {
                    holdsBack = true
                } else if let webP = PictureSignature.webPSize(header) {
                    // gdk-pixbuf's WebP loader allocates the canvas when it reads the header,
                    // and an animation's composited frame beside it.
                    try checkAhead(
                        width: webP.width, height: webP.height, bytesPerPixel: webP.animated ? 8 : 4, format: "webp")
                }
            }
        }

        /// Checks a HEIF or AVIF file's size before its loader decodes it (at full size: it
        /// scales only afterwards), once all its bytes are in.
        func checkWholeFile() throws(PhotoFailure) {
            if holdsBack, !sizeKnown { return try checkAnimatedWebP() }
            guard isHEIF, !sizeKnown else { return }
            var width: Int32 = 0, height: Int32 = 0, thumbnails: Int32 = 0
            var message: UnsafeMutablePointer<CChar>?
            let status = header.withUnsafeBytes {
                cp_heif_probe($0.baseAddress, $0.count, &width, &height, &thumbnails, &message)
            }
            defer { free(message) }
            guard status == 0 else {
                throw PhotoFailure(
                    .damaged(format: "HEIF"),
                    detail: "The HEIF file could not be read: \(message.map { String(cString: $0) } ?? "unknown error")"
                )
            }
            nclxProfile = Self.nclxProfile(of: header)
            // Held back from the loader until now (see `feedsLoader`).
            held = header
            // libheif decodes to planes of up to 16 bits a sample, then to 8-bit RGBA.
            try checkAhead(width: Int(width), height: Int(height), bytesPerPixel: 10, format: "heif")
        }

        /// A HEIF or AVIF file's `nclx` colour description as a profile, where its primary
        /// picture has no ICC profile; nil when it has one, or neither, or sRGB.
        static func nclxProfile(of bytes: [UInt8]) -> Data? {
            var colour = cp_heif_colour()
            defer { free(colour.icc) }
            guard bytes.withUnsafeBytes({ cp_heif_primary_colour($0.baseAddress, $0.count, &colour, nil) }) == 0,
                colour.icc == nil, colour.primaries != 0
            else { return nil }
            return ColourDescription.profile(
                primaries: Int(colour.primaries), transfer: Int(colour.transfer), from: "nclx")
        }

        /// An animated WebP's canvas and frames: gdk-pixbuf's loader composites every frame at
        /// the canvas's size, so all of them are reserved, and together they may hold at most
        /// the pixel limit (a million tiny frames on a big canvas would otherwise be cheap to
        /// send and ruinous to decode).
        private func checkAnimatedWebP() throws(PhotoFailure) {
            held = header
            guard let animation = AnimationHeader.read(Data(header), maxFrames: 10_000),
                let canvas = PictureSignature.webPSize(header)
            else {
                throw PhotoFailure(
                    .damaged(format: "WebP"),
                    detail: "The animated WebP's frames could not be read")
            }
            let frames = max(1, animation.frames.count) + 1
            let pixels = canvas.width.multipliedReportingOverflow(by: canvas.height)
            let all = pixels.partialValue.multipliedReportingOverflow(by: frames)
            guard !pixels.overflow, !all.overflow, all.partialValue <= limits.maxPixels, !animation.truncated else {
                throw PhotoFailure(
                    .tooManyPixels,
                    detail: "\(animation.frames.count) frames of \(canvas.width)×\(canvas.height) "
                        + "are more pixels than a photo may have")
            }
            try checkAhead(width: canvas.width, height: canvas.height, bytesPerPixel: 4 * frames, format: "webp")
        }

        private var held: [UInt8] = []
        var hasHeldBytes: Bool { !held.isEmpty }

        /// Hands the bytes held back to `feed` (less those that went to the loader as they
        /// arrived, before the kind was known), and lets go of them.
        func releaseHeld(_ feed: (UnsafeRawBufferPointer) throws(PhotoFailure) -> Void) throws(PhotoFailure) {
            let bytes = held
            held = []
            holdsBack = false
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(PhotoFailure) in
                    try feed(UnsafeRawBufferPointer(rebasing: raw[min(fed, raw.count)...]))
                }
            }
            try result.get()
        }

        /// Checks a size read from the file's header by the decoder itself (not the loader),
        /// and reserves the memory its decode will take.
        private func checkAhead(width: Int, height: Int, bytesPerPixel: Int, format: String) throws(PhotoFailure) {
            sizeKnown = true
            header = []
            let pixels = width.multipliedReportingOverflow(by: height)
            guard width > 0, height > 0, !pixels.overflow, pixels.partialValue <= limits.maxPixels else {
                throw ImageDecoder.tooManyPixels(width: width, height: height, limit: limits.maxPixels)
            }
            let (w, h) = scaledSize(width: width, height: height, for: size)
            reservation = try budget.reserve(
                pixels.partialValue * bytesPerPixel + 3 * 4 * w * h, cancellable: cancellable)
            checkedAhead = true
        }

        /// "Format not supported (…)" when the loaders failed on bytes that are a picture of a
        /// kind none of them reads (a Photoshop file), by their content; nil otherwise.
        func unsupportedFormat(_ failure: PhotoFailure) -> PhotoFailure? {
            guard failure.reason == .notImage, !sizeKnown, !header.isEmpty else { return nil }
            if let name = PictureSignature.unsupportedPicture(header) {
                return PhotoFailure(
                    .formatNotSupported(name: name),
                    detail: "\(name) pictures cannot be opened: nothing here decodes them")
            }
            let guessed = header.withUnsafeBytes {
                g_content_type_guess(nil, $0.cBytes, gsize($0.count), nil)
            }
            guard let guessed else { return nil }
            defer { g_free(guessed) }
            let type = String(cString: guessed)
            guard let description = PictureTypes.unreadablePictureDescription(type) else { return nil }
            return PhotoFailure(
                .formatNotSupported(name: description),
                detail: "\(description) files (\(type)) cannot be opened: no decoder for them is installed")
        }

        /// Refuses the formats that hand their data to an inner loader this one cannot limit,
        /// by the signatures gdk-pixbuf recognises them by (before any byte reaches it).
        private func refuseWrappers(_ first: [UInt8]) throws(PhotoFailure) {
            if let kind = ImageDecoder.wrapperKind(first) {
                throw PhotoFailure(
                    .unsupportedPicture,
                    detail: "\(kind) pictures are not opened: their size cannot be checked before they are decoded")
            }
        }

        func sizePrepared(_ loader: UnsafeMutablePointer<GdkPixbufLoader>, width: Int, height: Int) {
            // A JPEG's EXIF comes before its frame header: all of it is in the header kept.
            if let chunks = ColourDescription.PNGChunks.read(header) { pngColours = chunks.profile }
            if PictureSignature.isJPEG(header) {
                exifAdobeRGB = ExifReader.read(Data(header)).isAdobeRGB
                sequentialJPEG = header.withUnsafeBytes { DecodeCost.jpegInfo($0)?.progressive == false }
            }
            if takeCMYK(loader, width: width, height: height) { return }
            if takeProgressive(loader, width: width, height: height) { return }
            if checkedAhead {
                let (w, h) = scaledSize(width: width, height: height, for: size)
                if w != width || h != height { gdk_pixbuf_loader_set_size(loader, Int32(w), Int32(h)) }
                return
            }
            sizeKnown = true
            defer { header = [] }
            let format = gdk_pixbuf_loader_get_format(loader).flatMap { gdk_pixbuf_format_get_name($0) }
            let name = format.map { String(cString: $0) }
            if let format { g_free(format) }
            if name == "qtif" || name == "icns" {
                refuse(
                    loader,
                    PhotoFailure(
                        .unsupportedPicture,
                        detail: "Pictures of this kind (\(name!)) are not opened"))
                return
            }
            let pixels = width.multipliedReportingOverflow(by: height)
            guard width > 0, height > 0, !pixels.overflow, pixels.partialValue <= limits.maxPixels else {
                refuse(loader, ImageDecoder.tooManyPixels(width: width, height: height, limit: limits.maxPixels))
                return
            }
            let (w, h) = scaledSize(width: width, height: height, for: size)
            let cost = header.withUnsafeBytes {
                DecodeCost.estimate(format: name, width: width, height: height, target: (w, h), header: $0)
            }
            do {
                reservation = try budget.reserve(cost, cancellable: cancellable)
            } catch {
                refuse(loader, error)
                return
            }
            if w != width || h != height {
                gdk_pixbuf_loader_set_size(loader, Int32(w), Int32(h))
            }
        }

        /// The pixels are allocated: a loader that never said its size is checked now (late,
        /// but before it decodes further).
        func areaPrepared(_ loader: UnsafeMutablePointer<GdkPixbufLoader>) {
            // A large sequential JPEG with a profile (the loader has set it by now): its rows
            // are turned into sRGB on another core as they are decoded.
            if sequentialJPEG, refusal == nil, let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader),
                Int(gdk_pixbuf_get_width(pixbuf)) * Int(gdk_pixbuf_get_height(pixbuf)) >= SepiaFilter.parallelPixels,
                let profile = ColorProfile.embedded(in: pixbuf) ?? exifProfile, ColorProfile.isRGBProfile(profile)
            {
                colours = ColorProfile.RowConversion(ColorProfile.Conversion(pixbuf, from: profile))
            }
            guard !sizeKnown, refusal == nil, let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader) else { return }
            let width = Int(gdk_pixbuf_get_width(pixbuf)), height = Int(gdk_pixbuf_get_height(pixbuf))
            if width * height > limits.maxPixels {
                refusal = ImageDecoder.tooManyPixels(width: width, height: height, limit: limits.maxPixels)
            }
        }

        /// The loader has finished the rows above `row`.
        func rowsDone(upTo row: Int) { colours?.ready(upTo: row) }

        private func refuse(_ loader: UnsafeMutablePointer<GdkPixbufLoader>, _ failure: PhotoFailure) {
            refusal = failure
            // A 0×0 picture: each loader stops with an error before allocating its pixels.
            gdk_pixbuf_loader_set_size(loader, 0, 0)
        }
    }

    /// `image` at `width` × `height` (itself if it is that size already).
    static func scaled(_ image: PhotoImage, width: Int, height: Int) throws(PhotoFailure) -> PhotoImage {
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
