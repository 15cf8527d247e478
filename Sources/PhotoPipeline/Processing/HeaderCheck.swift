import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

extension ImageDecoder {
    /// The limit checks of one decode, run from the loader's signals (on the decoding thread),
    /// and the way its picture is decoded (`route`), from what its first bytes say it is.
    final class HeaderCheck {
        /// How a picture is decoded. Most go to gdk-pixbuf's loader as their bytes arrive; those
        /// it would decode without limits, or with their colours or depth lost, are kept whole
        /// for a decoder of their own.
        enum Route {
            /// gdk-pixbuf's loader, fed the bytes as they arrive.
            case loader
            /// JPEG XL: libjxl (`JXLDecoder`).
            case jxl
            /// HEIF or AVIF: kept whole, as its size is read (with libheif, `HEIFHeader`) from
            /// boxes that may lie anywhere in it, before the loader decodes it when closed; at
            /// 10 or 12 bits asked for whole, by `DeepPicture`.
            case heif
            /// An animated WebP: held back from the loader, which decodes every frame at full
            /// size, until its frames are counted (`WebPHeader`).
            case animatedWebP
            /// A 16-bit PNG, or a TIFF (which may be one): `DeepPicture`, at 16 bits.
            case deep(DeepPicture.Kind)
            /// Taken from the loader at its frame header, a CMYK JPEG: libjpeg, through its profile.
            case cmyk(CMYKJPEG)
            /// Taken from the loader at its frame header, a progressive JPEG: libjpeg, in one pass.
            case progressive(ProgressiveJPEG)

            /// A JPEG whose loader was stopped on purpose at its frame header.
            var isTakenJPEG: Bool {
                switch self {
                case .cmyk, .progressive: true
                default: false
                }
            }
        }

        let limits: DecodeLimits
        let size: DecodeSize
        let budget: DecodeMemoryBudget
        let cancellable: Cancellable
        /// Why the decode was refused, once it was.
        var refusal: PhotoFailure?
        var reservation: DecodeMemoryBudget.Reservation?
        /// How the picture is decoded, as far as its bytes so far tell.
        private(set) var route = Route.loader
        private var sizeKnown = false
        /// The first bytes, which hold the header, until the size is known (a picture kept
        /// whole: all of them).
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
        /// A WebP's colour profile, read from its header (see `WebPHeader.profile`).
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

        /// Whether the bytes go to the gdk-pixbuf loader as they arrive.
        var feedsLoader: Bool {
            if case .loader = route { true } else { false }
        }
        /// How many bytes went to the loader as they arrived (before the kind was known).
        var fed = 0

        private var kindChecked = false
        private var signatureRead = false
        private var deepLooked = false
        /// The size was read and checked, and the memory reserved, before the loader saw the
        /// bytes (WebP and HEIF loaders allocate the whole picture whatever size is asked for).
        private var checkedAhead = false

        /// Keeps the first bytes (up to `headerLimit`; a picture kept whole, all of them) until
        /// the size is known, and finds the route by the picture's signature as soon as there
        /// are enough of them.
        func keepHeader(_ chunk: UnsafeRawBufferPointer) throws(PhotoFailure) {
            let whole = !feedsLoader
            guard !sizeKnown, whole || header.count < Self.headerLimit else { return }
            header.append(contentsOf: whole ? chunk[...] : chunk.prefix(Self.headerLimit - header.count))
            if !kindChecked, header.count >= 8 {
                kindChecked = true
                try refuseWrappers(header)
            }
            if !webPProfileLooked, header.count >= 38 {
                (webPProfile, webPProfileLooked) = WebPHeader.profile(header)
            }
            if !deepLooked, header.count >= 33 {
                deepLooked = true
                if let kind = DeepPicture.Kind(header) { route = .deep(kind) }
            }
            if !signatureRead, header.count >= 30 {
                signatureRead = true
                if JXLDecoder.isJXL(header) {
                    route = .jxl
                } else if PictureSignature.isHEIF(header) {
                    route = .heif
                } else if let webP = PictureSignature.webPSize(header), webP.animated {
                    route = .animatedWebP
                } else if let webP = PictureSignature.webPSize(header) {
                    // gdk-pixbuf's WebP loader allocates the canvas when it reads the header.
                    try checkAhead(width: webP.width, height: webP.height, bytesPerPixel: 4, format: "webp")
                }
            }
        }

        /// Decodes a picture kept whole with the decoder its route names, once all its bytes
        /// are in; nil for one the loader decodes (a TIFF of 8 bits, a HEIF of 8 bits or one
        /// made into a thumbnail, whose bytes then go to the loader: see `releaseHeld`).
        func decodeKept() throws(PhotoFailure) -> DecodedPicture? {
            switch route {
            case .jxl:
                return try JXLDecoder.decode(
                    takeKept(), size: size, limits: limits, budget: budget, cancellable: cancellable)
            case .cmyk(let jpeg):
                return try jpeg.decode(takeKept(), size: size, limits: limits)
            case .progressive(let jpeg):
                return try jpeg.decode(takeKept(), size: size, limits: limits, exifProfile: exifProfile)
            case .deep(let kind):
                return try decodeDeep(kind)
            case .heif where !sizeKnown:
                guard case .fit = size else { return nil }
                return try decodeDeep(.heif)
            case .heif, .animatedWebP, .loader:
                return nil
            }
        }

        /// The bytes kept, let go of here.
        private func takeKept() -> [UInt8] {
            defer { header = [] }
            return header
        }

        /// Decodes a 16-bit PNG or TIFF kept whole and turns it into sRGB from its 16 bits, or a
        /// HEIF or AVIF file of 10 or 12 bits asked for whole (`fit`: the viewer, saving), from
        /// those bits; nil for a TIFF of another kind, and for a HEIF of 8 bits (scaled down
        /// from 8 bits, then turned, as other pictures are).
        private func decodeDeep(_ kind: DeepPicture.Kind) throws(PhotoFailure) -> DecodedPicture? {
            let bytes = header
            let probed = bytes.withUnsafeBytes { raw in
                Result { () throws(PhotoFailure) in try DeepPicture.probe(raw, kind: kind) }
            }
            guard let (width, height) = try probed.get() else {
                // A HEIF's bytes stay in `header`, for `checkWholeFile`.
                if kind != .heif {
                    route = .loader
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
            let decoded = DeepPicture.decode(bytes, kind: kind, limits: limits)
            if kind == .heif, case .failure(let error) = decoded, !error.isCancellation {
                // libheif would not give it at its depth: the loader may still read it in 8 bits.
                reservation?.release()
                reservation = nil
                (sizeKnown, checkedAhead, header) = (false, false, bytes)
                return nil
            }
            let (whole, colours) = try decoded.get()
            return try DeepPicture.scaled(whole, colours: colours, to: size)
        }

        /// Checks the size of a picture the loader decodes only when closed, once all its bytes
        /// are in: a HEIF or AVIF file's (decoded at full size: it scales only afterwards), an
        /// animated WebP's canvas and frames. Its bytes are then held for the loader.
        func checkWholeFile() throws(PhotoFailure) {
            guard !sizeKnown else { return }
            switch route {
            case .animatedWebP:
                held = header
                let canvas = try WebPHeader.animationCanvas(of: header, maxPixels: limits.maxPixels)
                try checkAhead(
                    width: canvas.width, height: canvas.height, bytesPerPixel: canvas.bytesPerPixel, format: "webp")
            case .heif:
                let (width, height) = try HEIFHeader.size(of: header)
                nclxProfile = HEIFHeader.nclxProfile(of: header)
                // Held back from the loader until now (see `feedsLoader`).
                held = header
                // libheif decodes to planes of up to 16 bits a sample, then to 8-bit RGBA.
                try checkAhead(width: width, height: height, bytesPerPixel: 10, format: "heif")
            default:
                return
            }
        }

        private var held: [UInt8] = []
        var hasHeldBytes: Bool { !held.isEmpty }

        /// Hands the bytes held back to `feed` (less those that went to the loader as they
        /// arrived, before the kind was known), and lets go of them.
        func releaseHeld(_ feed: (UnsafeRawBufferPointer) throws(PhotoFailure) -> Void) throws(PhotoFailure) {
            let bytes = held
            held = []
            if case .animatedWebP = route { route = .loader }
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
            if takeJPEG(loader, width: width, height: height) { return }
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

        /// At a JPEG's frame header, with all its bytes so far kept: a CMYK JPEG with a CMYK
        /// profile (`CMYKJPEG`), or a progressive one (`ProgressiveJPEG`), is taken from its
        /// loader, to be decoded with libjpeg once all its bytes are in (`takeWhole`). Says
        /// whether it was (or was refused on the way).
        private func takeJPEG(_ loader: UnsafeMutablePointer<GdkPixbufLoader>, width: Int, height: Int) -> Bool {
            guard header.count < Self.headerLimit else { return false }
            if let profile = CMYKJPEG.profile(header) {
                guard takeWhole(loader, width: width, height: height, extraPerPixel: CMYKJPEG.extraBytesPerPixel)
                else { return true }
                route = .cmyk(CMYKJPEG(profile: profile, width: width, height: height, header: header))
                return true
            }
            if ProgressiveJPEG.isProgressive(header) {
                guard takeWhole(loader, width: width, height: height) else { return true }
                route = .progressive(ProgressiveJPEG(width: width, height: height, header: header))
                return true
            }
            return false
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
}
