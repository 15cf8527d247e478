import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// Recognises pictures by their content, the way gdk-pixbuf will see them when they load;
/// camera RAW files by their names; and pictures of kinds nothing here decodes, which are
/// listed to say so.
///
/// GIO names a file's type from its extension alone when the extension is known, so a text
/// file called `fake.jpg` would pass for a JPEG. Here the first bytes of the file decide
/// (shared-mime-info's magic, through `g_content_type_guess` without a name); the name's type
/// counts only where the content is too generic to say more (an SVG whose `<svg>` starts
/// late reads as XML, a format without magic as plain bytes).
final class PictureTypes {
    /// MIME types of gdk-pixbuf's enabled loaders (read once per process), and JPEG XL, which
    /// the decoder helpers read with libjxl (see `JXLDecoder`).
    static let loadable: [String] = {
        var types: [String] = ["image/jxl"]
        var formats = gdk_pixbuf_get_formats()
        defer { g_slist_free(formats) }
        while let node = formats {
            formats = node.pointee.next
            guard let format = node.pointee.data.map({ OpaquePointer($0) }),
                gdk_pixbuf_format_is_disabled(format) == 0,
                let mimeTypes = gdk_pixbuf_format_get_mime_types(format)
            else { continue }
            defer { g_strfreev(mimeTypes) }
            var index = 0
            while let type = mimeTypes[index] {
                types.append(String(cString: type))
                index += 1
            }
        }
        return types
    }()

    /// What a picture of content type `type` is called ("Photoshop image") if it is a kind
    /// of picture that no loader here reads; nil if it is not a picture, or one that loads.
    static func unreadablePictureDescription(_ type: String) -> String? {
        guard type.hasPrefix("image/"), !loadable.contains(where: { g_content_type_is_a(type, $0) != 0 }) else {
            return nil
        }
        guard let text = g_content_type_get_description(type) else { return type }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// How many bytes of a file are read to recognise it (shared-mime-info's magic fits).
    static let sniffLength = 4096

    /// Answers already given, by content type (one instance per folder read, on one thread).
    private var answers: [String: Bool] = [:]
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: sniffLength, alignment: 16)

    init() {}

    deinit { buffer.deallocate() }

    /// Whether gdk-pixbuf can load content of this type (aliases included).
    func isLoadable(_ type: String) -> Bool {
        if let known = answers[type] { return known }
        let answer =
            Self.loadable.contains(type)
            || Self.loadable.contains { g_content_type_equals(type, $0) != 0 }
        answers[type] = answer
        return answer
    }

    /// What a file's name alone says about it, for listing a folder without opening its files.
    enum NameVerdict: Equatable {
        /// A kind of picture (or a video) this app lists: believed until the file is loaded.
        case picture
        /// Nothing useful (no extension, or one nobody registered): the content must say.
        case unknown
        /// Some other kind of file (text, video, a document).
        case other
    }

    /// Extensions of the files photo apps keep beside photos (XMP sidecars, RawTherapee's,
    /// DxO's and Apple's edits), which shared-mime-info does not name: without this, every one
    /// of them was opened and read to find it is no picture (a folder of 10,000 photos with
    /// their sidecars took 0.6 s longer to show).
    private static let sidecarExtensions: Set<String> = ["xmp", "pp3", "dop", "aae"]

    /// Verdicts by extension, and by whole name for names without one.
    private var verdicts: [String: NameVerdict] = [:]
    /// The extension last looked up (NUL-terminated) and its verdict: a folder's names mostly
    /// share one, and a table's lookup made and hashed a string for every name.
    private var lastExtension: [CChar] = [0]
    private var lastVerdict = NameVerdict.unknown

    /// What the file name `name` (bytes as on disk, NUL-terminated) says, asking
    /// shared-mime-info's globs once per extension.
    func verdict(forName name: UnsafePointer<CChar>) -> NameVerdict {
        let dot = strrchr(name, 0x2E) // "."
        if let dot, lastExtension.count > 1, strcmp(dot + 1, lastExtension) == 0 { return lastVerdict }
        let key = String(cString: dot.map { UnsafePointer($0 + 1) } ?? name)
        if let dot, let known = verdicts[key] {
            remember(dot + 1, known)
            return known
        }
        var uncertain: gboolean = 0
        let guessed = g_content_type_guess(name, nil, 0, &uncertain)
        defer { g_free(guessed) }
        let type = guessed.map { String(cString: $0) } ?? "application/octet-stream"
        let verdict: NameVerdict
        if dot != nil, Self.sidecarExtensions.contains(key.lowercased()) {
            verdict = .other
        } else if dot != nil, VideoFile.isVideo(extension: key) {
            verdict = .picture // a video is listed beside the photos
        } else if uncertain != 0 || g_content_type_is_unknown(type) != 0 {
            verdict = .unknown
        } else if isLoadable(type) || g_content_type_is_a(type, "image/x-dcraw") != 0
            || Self.unreadablePictureDescription(type) != nil
        {
            verdict = .picture
        } else {
            verdict = .other
        }
        if let dot {
            verdicts[key] = verdict
            remember(dot + 1, verdict)
        }
        return verdict
    }

    private func remember(_ fileExtension: UnsafePointer<CChar>, _ verdict: NameVerdict) {
        lastExtension = Array(UnsafeBufferPointer(start: fileExtension, count: strlen(fileExtension) + 1))
        lastVerdict = verdict
    }

    /// Whether the regular file at `path` holds a picture gdk-pixbuf can load. `nameType` is
    /// the type its name suggests (GIO's `standard::fast-content-type`), if known.
    func isPicture(path: UnsafePointer<CChar>, nameType: String?) -> Bool {
        // Non-blocking: a file replaced by a FIFO since it was listed must not hang the read.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return false }
        var length = 0
        while length < buffer.count {
            let n = read(descriptor, buffer.baseAddress! + length, buffer.count - length)
            if n > 0 { length += n } else if n < 0 && errno == EINTR { continue } else { break }
        }
        close(descriptor)
        guard length > 0,
            let guessed = g_content_type_guess(
                nil, UnsafeRawBufferPointer(buffer).cBytes,
                gsize(length), nil)
        else { return false }
        let sniffed = String(cString: guessed)
        g_free(guessed)
        if isLoadable(sniffed) { return true }
        // A camera's RAW file reads as TIFF or plain bytes inside: its name says what it is,
        // and LibRaw reads its preview.
        if let nameType, g_content_type_is_a(nameType, "image/x-dcraw") != 0 { return true }
        // A picture no loader here reads (Photoshop) is listed all the same, and
        // says so on its row rather than vanishing.
        if Self.unreadablePictureDescription(sniffed) != nil { return true }
        // And so is one of the kinds shared-mime-info does not know (Radiance HDR, QOI, …).
        if PictureSignature.unsupportedPicture(UnsafeRawBufferPointer(rebasing: buffer[..<length])) != nil {
            return true
        }
        // The content names only a generic parent of what the name says (XML for SVG, plain
        // bytes for a format without magic): believe the name. Text called `.jpg` stays text,
        // as image/jpeg is no kind of text/plain.
        guard let nameType, isLoadable(nameType) else { return false }
        return g_content_type_is_a(nameType, sniffed) != 0
    }
}
