import CExiv2Setup
import Foundation

/// An edit of a RAW file, saved as a JPEG: the RAW file is the camera's record of the photo
/// and is never written. What is edited is what the app shows of it, the camera's own
/// preview (a JPEG, usually at the sensor's size), so a crop, turn or flip stays lossless
/// there; a straightening decodes and encodes the preview. The JPEG carries the RAW file's
/// metadata (camera, exposure, date, place, title and keywords), as far as it is true of a
/// JPEG. Runs in a decoder helper: the file is untrusted input.
public enum RawEdit {
    /// The file ending of what a RAW file's edit is saved as.
    public static let savedExtension = "jpg"

    /// The RAW file `raw` with `edit` applied to its camera preview, as a JPEG file, and what
    /// the edit came to.
    static func apply(_ edit: PhotoEdit, to raw: Data) throws(PhotoFailure) -> (Data, LosslessJPEG.Outcome) {
        let preview = try RawPhoto.preview(of: raw)
        guard PictureSignature.isJPEG(preview.prefix(4)) else {
            throw PhotoFailure(.noRawPreview, detail: "This camera's preview is not a JPEG, which editing needs")
        }
        let (jpeg, outcome) = try LosslessJPEG.apply(edit, to: preview)
        return (withMetadata(of: raw, in: jpeg, width: outcome.kept.width, height: outcome.kept.height), outcome)
    }

    /// `jpeg` (`width` × `height`, upright) given the metadata of the RAW file `raw`, as far
    /// as it is true of a JPEG (see `cp_exiv2_raw_metadata_into`); as it was where Exiv2 cannot
    /// take it over (a damaged block): the preview's own, made true by the edit, stays.
    static func withMetadata(of raw: Data, in jpeg: Data, width: Int, height: Int) -> Data {
        guard PhotoDetails.exiv2Ready else { return jpeg }
        var size = 0
        var message: UnsafeMutablePointer<CChar>?
        let made = raw.withUnsafeBytes { source in
            jpeg.withUnsafeBytes { edited in
                cp_exiv2_raw_metadata_into(
                    source.cBytes, source.count, edited.cBytes, edited.count, width, height, &size, &message)
            }
        }
        free(message)
        guard let made else { return jpeg }
        defer { free(made) }
        return Data(bytes: made, count: size)
    }
}
