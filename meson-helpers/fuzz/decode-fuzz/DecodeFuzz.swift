// libFuzzer entry point for the decode path, on whatever bytes the fuzzer makes: the header and
// EXIF reader, the metadata the details panel shows (gexiv2, on any bytes, as a RAW file's own
// are read), the decode cost estimate and its header parsers, the decoder (from a memory
// stream, with its limit checks and memory budget) as a row and as the viewer use it, the
// sepia filter, the colour profile readers and transforms (the bytes taken as a profile), and
// the marks' and the alt text's XMP read, changed and written into a photo, and the editor's
// lossless JPEG and RAW paths.
// Built only by meson-helpers/sanitizers.sh with -sanitize=fuzzer,address.
import CGLib
import CGdkPixbuf
import Foundation
import GLibKit
@testable import PhotoPipeline

/// Small limits, so that no input can make a decode large enough to slow the fuzzer down or
/// exhaust its memory; the limit checks themselves are part of what is fuzzed.
private let limits = DecodeLimits(maxBytes: 1 << 20, maxPixels: 4_000_000)
private let budget = DecodeMemoryBudget(capacity: 64 << 20)
/// A row's square and the viewer's wanted side, small for speed.
private let rowSide = 48
private let viewerSide = 64

/// gdk-pixbuf's GIF loader (2.42.10, and upstream since) checks an image descriptor's size
/// with gdk_pixbuf_calculate_rowstride, whose precondition logs a GLib critical for a zero
/// width or height before the loader fails with an error as it should: thousands of lines in
/// a run, and not the app's. That one message is dropped; every other goes on as usual.
private let quietKnownCritical: Void = {
    let handler: GLogFunc = { domain, level, message, _ in
        if let message, String(cString: message).hasPrefix("gdk_pixbuf_calculate_rowstride: assertion") { return }
        g_log_default_handler(domain, level, message, nil)
    }
    g_log_set_handler("GdkPixbuf", GLogLevelFlags(rawValue: G_LOG_LEVEL_CRITICAL.rawValue | G_LOG_FLAG_FATAL.rawValue | G_LOG_FLAG_RECURSION.rawValue),
                      handler, nil)
}()

/// A 7 × 5 JPEG, as a RAW file's edited preview is given the RAW file's metadata.
private let smallJPEG: Data? = {
    guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, 7, 5) else { return nil }
    defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
    gdk_pixbuf_fill(pixbuf, 0x80_40_C0_FF)
    var buffer: UnsafeMutablePointer<CChar>?
    var size: gsize = 0
    guard gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &size, "jpeg", nil, nil, nil) != 0, let buffer else { return nil }
    defer { g_free(buffer) }
    return Data(bytes: buffer, count: Int(size))
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecode(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    quietKnownCritical
    let data = Data(bytes: bytes, count: count)
    let cancellable = Cancellable()

    // The viewer reads the header and EXIF of every photo before it decodes it.
    let info = try? ImageInfo.read(data)
    // A RAW file's metadata is read whatever its header (gdk-pixbuf knows none of them).
    _ = PhotoDetails.read(data)
    // What the index reads of a photo's first bytes, and whether they settle it.
    _ = ExifReader.tags(data)
    _ = ExifReader.holdsNone(data)

    // What the decoder's cost estimate reads of a header, on every input (the decoder only
    // gets there once gdk-pixbuf has accepted a header), with a size within the limits as the
    // decoder's is.
    data.withUnsafeBytes { raw in
        _ = DecodeCost.jpegInfo(raw)
        _ = DecodeCost.pngChannels(raw)
        if let info, info.width * info.height <= limits.maxPixels {
            for size in [DecodeSize.square(rowSide), .fit(viewerSide), .thumbnail(square: rowSide)] {
                let target = ImageDecoder.scaledSize(width: info.width, height: info.height, for: size)
                precondition(target.0 >= 1 && target.1 >= 1 && target.0 <= info.width && target.1 <= info.height,
                             "scaled \(info.width)×\(info.height) to \(target) for \(size)")
                for format in [info.format, "jpeg", "png", "gif"] {
                    let cost = DecodeCost.estimate(format: format, width: info.width, height: info.height, target: target, header: raw)
                    precondition(cost > 0, "cost \(cost) of \(info.width)×\(info.height) \(format)")
                }
            }
        }
    }

    // A row's thumbnail: a centred square no larger than asked for, then sepia in place.
    if let image = try? ImageDecoder.decode(data, size: .square(rowSide), limits: limits, budget: budget,
                                            cancellable: cancellable) {
        precondition(image.width == image.height && image.width <= rowSide, "a row's square: \(image.width)×\(image.height)")
        _ = SepiaFilter().applyInPlace(image)
    }

    // The viewer's picture, as ViewerImageFiltration decodes it: only when the header could be
    // read, at the side it would show it at, through the same memory stream.
    if let info {
        let side = ViewerLimits.decodeSide(width: info.width, height: info.height, wanted: viewerSide)
        if let image = try? ImageDecoder.decode(data, size: .fit(side), limits: limits, budget: budget,
                                                cancellable: cancellable) {
            precondition(max(image.width, image.height) <= side, "within the viewer's box: \(image.width)×\(image.height)")
        }
    }
    // The bytes as a colour profile, as the decoder and the display take one: turning a small
    // picture from it, and into it as a display's; and as a PNG's colour chunks and a JPEG's
    // APP2 segments, as they are read for the profile.
    if let small = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 1, 8, 7, 5) {
        gdk_pixbuf_fill(small, 0x80_40_C0_FF)
        let image = PhotoImage(taking: small)
        _ = ColorProfile.convert(image.pixbuf, from: data)
        _ = ColorProfile.DisplayTransform(displayProfile: data)?.apply(to: image)
    }
    _ = ColourDescription.PNGChunks.read(data)?.profile
    _ = ColorProfile.jpegProfile(in: data)

    // The bytes as a sidecar or a photo's own XMP, read and changed as marks are (Exempi); and
    // as a photo whose marks are written into it (Exiv2 reading its packet and writing it back
    // with a new one), each as the decoder helper runs them.
    let marks = PhotoMarks(rating: 3, label: "Red", tags: ["Places|France", "Beach"])
    let altText = AltTextChange("A red kite over a field")
    _ = XMPMarks.read(data)
    _ = XMPMarks.altText(data)
    _ = try? XMPMarks.update(data, from: .none, to: marks, altText: altText)
    if let written = try? MarksInPhoto.updated(data, to: marks, altText: altText) {
        // A JPEG's are read back from its XMP segment as the app reads them; then written again.
        if PictureSignature.isJPEG(written), let segment = PhotoXMP.jpegSegment(in: written) {
            precondition(XMPMarks.read(segment) == marks, "the marks written are read back")
            precondition(XMPMarks.altText(segment) == altText.text, "the alt text written is read back")
        }
        _ = try? MarksInPhoto.updated(written, to: .none)
    }

    // The editor's lossless path (TurboJPEG's transform of the blocks, then Exiv2 making the
    // EXIF true to it), and a RAW file's: its camera preview edited, and its metadata (the
    // bytes taken as a RAW file) put into a JPEG, as the decoder helper runs them.
    let edit = PhotoEdit(turn: PictureTurn(quarterTurns: 1), crop: PixelRect(x: 8, y: 8, width: 16, height: 16))
    _ = try? LosslessJPEG.apply(edit, to: data)
    _ = try? RawEdit.apply(edit, to: data)
    if let jpeg = smallJPEG {
        let made = RawEdit.withMetadata(of: data, in: jpeg, width: 7, height: 5)
        precondition(PictureSignature.isJPEG(made.prefix(4)), "still a JPEG")
    }

    // A HEIC's or AVIF's turn in its container (`HEIFTurn`), as Rotate makes it in the app:
    // a file it turns can be turned back the same way.
    _ = HEIFTurn.canTurn(head: data)
    if let turned = HEIFTurn.turned(data, by: PictureTurn(quarterTurns: 1)) {
        precondition(HEIFTurn.turned(turned, by: PictureTurn(quarterTurns: 3)) != nil, "a turned file turns back")
    }

    precondition(budget.usage.now == 0, "every reservation is returned")
    return 0
}
