import CEmbeddedPictures
import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// A smaller picture that a photo carries of itself: the JPEG thumbnail a camera writes into
/// the EXIF block of its JPEGs (IFD1, usually 160×120), or a HEIF / AVIF file's thumbnail
/// item. Reading one costs about a millisecond, where decoding the photo costs 75–350 ms for
/// a 12-megapixel JPEG, so a row shows it first (see `ImageDownloader`).
///
/// One is trusted only when its shape is the photo's: an edited photo can keep the thumbnail
/// of what it was before cropping, and cameras pad a 16:9 photo's 4:3 thumbnail with black
/// bars. It is turned the way the photo is (EXIF orientation; HEIF's own rotation).
public struct EmbeddedPreview: Sendable {
    public enum Origin: String, Sendable, Codable {
        case exif, heif
    }

    public let origin: Origin
    /// The preview at its own size, upright.
    public let image: PhotoImage
    /// The photo's size, upright.
    public let photoWidth: Int
    public let photoHeight: Int

    /// Whether a square of `side` pixels cut from its middle needs no enlarging.
    public func covers(squareSide side: Int) -> Bool { covers(.square(side)) }

    /// Whether it serves `frame` without enlarging (see `ThumbnailFrame.isCovered`).
    public func covers(_ frame: ThumbnailFrame) -> Bool { frame.isCovered(width: image.width, height: image.height) }

    /// The preview a photo's bytes hold, read from as much of the file as `bytes` has (the
    /// first 64 KB of a JPEG hold its EXIF block; a HEIF file is read whole). Nil when it
    /// has none, or none that can be trusted.
    public static func read(_ bytes: Data, squareSide: Int) -> EmbeddedPreview? {
        if PictureSignature.isJPEG(bytes) { return exif(in: bytes) }
        if PictureSignature.isHEIF(bytes.prefix(12)) { return heif(in: bytes, squareSide: squareSide) }
        return nil
    }

    /// The EXIF thumbnail of a JPEG whose first bytes are `head`.
    static func exif(in head: Data) -> EmbeddedPreview? {
        let tags = ExifReader.read(head)
        guard let range = tags.thumbnail else { return nil }
        let frame = head.withUnsafeBytes { DecodeCost.jpegInfo($0) }
        guard let frame, frame.width > 0, frame.height > 0 else { return nil }
        // Small by construction (it lies inside the EXIF segment, at most 64 KB), but decoded
        // within tight limits all the same: its header could claim anything.
        let limits = DecodeLimits(maxBytes: 1 << 16, maxPixels: 1 << 20)
        guard
            let thumbnail = try? ImageDecoder.decode(
                head.subdata(in: range), size: .fit(1 << 12), limits: limits,
                cancellable: Cancellable()),
            shapesMatch(thumbnail.width, thumbnail.height, frame.width, frame.height)
        else { return nil }
        // The thumbnail is in its photo's colours: the photo's profile (its APP2 segments, when
        // they are within the head), or Adobe RGB where EXIF says so.
        if let profile = ColorProfile.jpegProfile(in: head) ?? (tags.isAdobeRGB ? ColorProfile.adobeRGB : nil) {
            ColorProfile.mark(thumbnail.pixbuf, ColorProfile.convert(thumbnail.pixbuf, from: profile))
        }
        let turned = (5...8).contains(tags.orientation)
        return EmbeddedPreview(
            origin: .exif, image: thumbnail.oriented(tags.orientation),
            photoWidth: turned ? frame.height : frame.width, photoHeight: turned ? frame.width : frame.height)
    }

    /// The thumbnail item of a HEIF or AVIF file (the whole file in `bytes`) best suited to a
    /// square of `squareSide` pixels.
    static func heif(in bytes: Data, squareSide: Int) -> EmbeddedPreview? {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0, stride: Int32 = 0, photoWidth: Int32 = 0, photoHeight: Int32 = 0
        var message: UnsafeMutablePointer<CChar>?
        var colour = cp_heif_colour()
        let status = bytes.withUnsafeBytes { raw in
            cp_heif_thumbnail(
                raw.baseAddress, raw.count, Int32(squareSide), &pixels, &width, &height, &stride,
                &photoWidth, &photoHeight, &colour, &message)
        }
        free(message)
        defer { free(colour.icc) }
        guard status == 0, let pixels else { return nil }
        let destroy: GdkPixbufDestroyNotify = { pixels, _ in free(pixels) }
        let image = PhotoImage(
            taking: gdk_pixbuf_new_from_data(pixels, GDK_COLORSPACE_RGB, 1, 8, width, height, stride, destroy, nil)!)
        guard shapesMatch(image.width, image.height, Int(photoWidth), Int(photoHeight)) else { return nil }
        // In its photo's colours: its own profile or colour description, or the photo's.
        let profile =
            colour.icc.map { Data(bytes: $0, count: colour.icc_length) }
            ?? (colour.primaries != 0
                ? ColourDescription.profile(
                    primaries: Int(colour.primaries), transfer: Int(colour.transfer), from: "nclx") : nil)
        if let profile { ColorProfile.mark(image.pixbuf, ColorProfile.convert(image.pixbuf, from: profile)) }
        return EmbeddedPreview(origin: .heif, image: image, photoWidth: Int(photoWidth), photoHeight: Int(photoHeight))
    }

    /// Whether a `width`×`height` preview has the shape of a `photoWidth`×`photoHeight` photo:
    /// its sides are the photo's scaled by one factor, give or take the pixel lost to rounding.
    static func shapesMatch(_ width: Int, _ height: Int, _ photoWidth: Int, _ photoHeight: Int) -> Bool {
        guard width > 0, height > 0, photoWidth > 0, photoHeight > 0 else { return false }
        // The height the preview would have at its width, had it the photo's shape.
        let expected = Double(width) * Double(photoHeight) / Double(photoWidth)
        return abs(expected - Double(height)) <= max(1.5, Double(height) * 0.01)
    }
}

extension PhotoImage {
    /// The image turned the way EXIF orientation `orientation` (1–8) says a photo's pixels
    /// are to be shown; itself when upright.
    public func oriented(_ orientation: Int) -> PhotoImage {
        orientedIfRoom(orientation)!
    }

    /// `oriented`, or nil when there is no memory for the turned picture (a whole photo's).
    public func orientedIfRoom(_ orientation: Int) -> PhotoImage? {
        guard (2...8).contains(orientation) else { return self }
        // gdk-pixbuf turns a pixbuf by its "orientation" option; a view of the same pixels
        // carries the option without touching this shared image.
        guard let view = gdk_pixbuf_new_subpixbuf(pixbuf, 0, 0, Int32(width), Int32(height)) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(view)) }
        gdk_pixbuf_remove_option(view, "orientation")
        gdk_pixbuf_set_option(view, "orientation", "\(orientation)")
        return gdk_pixbuf_apply_embedded_orientation(view).map(PhotoImage.init(taking:))
    }
}
