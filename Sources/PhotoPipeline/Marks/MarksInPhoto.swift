import CExiv2Setup
import CGLib
import Foundation
import GLibKit

/// Marks written into the photo itself, where a person asked for it (the preference "Write
/// Marks into Photos") and the photo's kind holds XMP that other apps read there: a JPEG, PNG,
/// WebP or TIFF (not a RAW file, TIFF-shaped or not: photo apps keep those untouched and read
/// their sidecars). The photo's own packet is changed as a sidecar's is (Exempi, only what
/// changed), and put back into the file by Exiv2, which rewrites the metadata around the
/// picture's data and leaves that data as it was; both in a decoder helper, as everything read
/// from a file is. The file is then replaced whole, as GIO replaces a file.
public enum MarksInPhoto {
    /// The largest photo rewritten for its marks (a bigger one keeps them in a sidecar).
    static let largestPhoto = 512 << 20

    /// Whether the photo at `path`, whose first bytes are `head`, is of a kind its marks are
    /// written into.
    static func holdsXMP(path: String, head: [UInt8]) -> Bool {
        guard !RawPhoto.isRaw(URL(fileURLWithPath: path)) else { return false }
        if PictureSignature.isJPEG(head) || head.starts(with: PictureSignature.png) { return true }
        if head.count >= 12, head[0..<4].elementsEqual(PictureSignature.riff),
            head[8..<12].elementsEqual(PictureSignature.webP)
        {
            return true
        }
        let tiff =
            head.starts(with: PictureSignature.tiffLittleEndian + [42, 0])
            || head.starts(with: PictureSignature.tiffBigEndian + [0, 42])
        return tiff
    }

    /// What became of a photo's marks written into it.
    enum Outcome {
        /// Written; the photo's size and time now.
        case written(size: Int64, modified: Int64)
        /// Not a photo its marks are written into (its kind, its size, or Exiv2 cannot write
        /// it): they go to its sidecar, as without the preference.
        case notHeld
        case failed(PhotoFileFailure)
    }

    /// Writes `new` into the photo at `path` (`old`: the marks it had, as `MarksFiles.read`
    /// gave them): only what changed is set in its own XMP. The photo is replaced whole or not
    /// at all, and not when it changed on disk since it was read (GIO's entity tag).
    static func write(_ new: PhotoMarks, old: PhotoMarks, photoAt path: String, pool: DecoderPool) -> Outcome {
        let file = ObjectRef(takingOpaque: g_file_new_for_path(path)!)
        var error: UnsafeMutablePointer<GError>?
        guard
            let info = g_file_query_info(
                file.opaque, "etag::value,standard::type", G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, nil, &error)
        else { return .failed(failure(error)) }
        let details = ObjectRef(takingOpaque: info)
        let etag = g_file_info_get_etag(details.opaque).map { String(cString: $0) }
        // A regular file, not a link to one: GIO writes over a link's target in place, which a
        // crash halfway would leave damaged; a linked photo's marks go to its sidecar.
        guard g_file_info_get_file_type(details.opaque) == G_FILE_TYPE_REGULAR,
            let photo = MarksFiles.contents(of: path, limit: largestPhoto)
        else { return .notHeld }
        guard holdsXMP(path: path, head: [UInt8](photo.prefix(16))) else { return .notHeld }
        let rewritten: Data
        do throws(PhotoFailure) {
            rewritten = try Decoding.marksInPhoto(photo, from: old, to: new, pool: pool)
        } catch {
            // Exiv2 refused the file (a kind or a layout it does not write): the sidecar keeps them.
            return error.reason == .decoderCrashed ? .failed(PhotoFileFailure(message: error.detail)) : .notHeld
        }
        let replaced = rewritten.withUnsafeBytes {
            g_file_replace_contents(
                file.opaque, $0.cChars, gsize($0.count), etag, 0, G_FILE_CREATE_NONE, nil, nil, &error)
        }
        guard replaced != 0 else { return .failed(failure(error)) }
        guard let (size, modified) = MarksFiles.sizeAndTime(of: path) else {
            return .failed(PhotoFileFailure(message: translatable("The photo could not be read again")))
        }
        return .written(size: size, modified: modified)
    }

    /// The photo file `photo` with the marks in its own XMP changed from `old` to `new`, all
    /// else as it was. Parses the file: run in a decoder helper (`Decoding.marksInPhoto`).
    static func updated(_ photo: Data, from old: PhotoMarks, to new: PhotoMarks) throws(PhotoFailure) -> Data {
        guard PhotoDetails.exiv2Ready else {
            throw PhotoFailure(.damagedOrUnsupported, detail: "Exiv2 could not be set up")
        }
        var size = 0
        var message: UnsafeMutablePointer<CChar>?
        let own = photo.withUnsafeBytes { cp_exiv2_xmp_packet($0.cBytes, $0.count, &size, &message) }
        guard let own else { throw refused(message) }
        let packet = size == 0 ? nil : Data(bytes: own, count: size)
        free(own)
        let changed = try XMPMarks.update(packet, from: old, to: new, wrapped: true)
        let written = photo.withUnsafeBytes { file in
            changed.withUnsafeBytes { xmp in
                cp_exiv2_put_xmp(file.cBytes, file.count, xmp.cChars, xmp.count, &size, &message)
            }
        }
        guard let written else { throw refused(message) }
        defer { free(written) }
        return Data(bytes: written, count: size)
    }

    /// Exiv2's reason, taken (it was allocated for the caller).
    private static func refused(_ message: UnsafeMutablePointer<CChar>?) -> PhotoFailure {
        defer { free(message) }
        return PhotoFailure(
            .damagedOrUnsupported, detail: message.map { String(cString: $0) } ?? "Exiv2 could not write the photo")
    }

    private static func failure(_ error: UnsafeMutablePointer<GError>?) -> PhotoFileFailure {
        PhotoFileFailure(message: error.map { GLibError(consuming: $0).message } ?? translatable("Unknown error"))
    }
}
