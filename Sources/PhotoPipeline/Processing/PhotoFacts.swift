import Foundation
import GLibKit

/// What the viewer and the details panel know of a photo file: the picture to decode (for a
/// RAW file, its camera's preview) and what it says of itself (`ImageInfo`). A RAW file's
/// preview carries little or no metadata of its own: its facts are the RAW file's, read with
/// the same reader, in the decoder helper.
public enum PhotoFacts {
    /// Reads `file`, the whole of the photo at `url`.
    public static func read(
        _ file: Data, at url: URL, cancellable: Cancellable
    ) throws(PhotoFailure) -> (picture: Data, info: ImageInfo) {
        // A RAW photo is shown through its camera's preview (the file may be that preview
        // already, as a web list can serve it).
        let raw = RawPhoto.isRaw(url) && !PictureSignature.isJPEG(file) && !file.starts(with: PictureSignature.ppm)
        let picture = raw ? try Decoding.rawPreview(file, cancellable: cancellable) : file
        guard !picture.isEmpty else { throw PhotoFailure(.empty, detail: "The file or response holds no data") }
        var info = try Decoding.info(picture, details: !raw, cancellable: cancellable)
        if raw { info = rawInfo(info, details: Decoding.details(file, cancellable: cancellable), of: file, at: url) }
        return (picture, info)
    }

    /// What the photo `file` (at `url`) says of itself, for the details panel, without the
    /// picture to show: a RAW file's in one trip to a decoder helper (its preview, the
    /// preview's header and its metadata took three, 150 ms for a 24 MB DNG).
    public static func facts(_ file: Data, at url: URL, cancellable: Cancellable) throws(PhotoFailure) -> ImageInfo {
        guard RawPhoto.isRaw(url), !PictureSignature.isJPEG(file), !file.starts(with: PictureSignature.ppm) else {
            guard !file.isEmpty else { throw PhotoFailure(.empty, detail: "The file or response holds no data") }
            return try Decoding.info(file, details: true, cancellable: cancellable)
        }
        let info = try Decoding.rawFacts(file, cancellable: cancellable)
        return rawInfo(info, details: info.details, of: file, at: url)
    }

    /// `info`, of a RAW file's preview, made the RAW file's: its kind, its size, and what its
    /// own metadata (`details`) says.
    private static func rawInfo(_ info: ImageInfo, details: PhotoDetails?, of file: Data, at url: URL) -> ImageInfo {
        var info = info
        // The file's kind, not its preview's (the preview's is what is decoded).
        info.formatDescription = "\(url.pathExtension.uppercased()) camera RAW"
        info.fileSize = file.count
        if let details {
            info.details = details
            info.camera = details.camera ?? info.camera
            info.date = details.dateTaken ?? info.date
        }
        return info
    }
}
