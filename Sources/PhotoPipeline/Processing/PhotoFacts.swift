import CGLib
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
        if raw {
            // The preview, its header and the RAW file's metadata in one trip to a helper.
            let (picture, info) = try Decoding.rawPreview(file, cancellable: cancellable)
            return (picture, rawInfo(info, details: info.details, fileSize: file.count, at: url))
        }
        guard !file.isEmpty else { throw PhotoFailure(.empty, detail: "The file or response holds no data") }
        return (file, try Decoding.info(file, details: true, cancellable: cancellable))
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
        return rawInfo(info, details: info.details, fileSize: file.count, at: url)
    }

    /// The same, of a RAW file on this computer (`url`), without reading it here: the decoder
    /// helper is handed its descriptor and reads only its metadata and its preview (for a
    /// 24 MB DNG, a few megabytes). Nil where `url` is no local RAW file, or its file begins as
    /// a JPEG or a PPM does (a preview already): `facts(_:at:)` reads those.
    public static func facts(ofLocalRaw url: URL, cancellable: Cancellable) throws(PhotoFailure) -> ImageInfo? {
        guard let (stream, size) = try openLocalRaw(url) else { return nil }
        let info = try Decoding.rawFacts(.stream(stream), byteCount: size, cancellable: cancellable)
        return rawInfo(info, details: info.details, fileSize: size, at: url)
    }

    /// What `read(_:at:)` gives, of a RAW file on this computer, read as `facts(ofLocalRaw:)`
    /// reads it: its camera's preview and its facts, the file not read here. Nil where `url`
    /// is no local RAW file, or its file is a preview already.
    public static func read(
        localRaw url: URL, cancellable: Cancellable
    ) throws(PhotoFailure) -> (picture: Data, info: ImageInfo)? {
        guard let (stream, size) = try openLocalRaw(url) else { return nil }
        let (picture, info) = try Decoding.rawPreview(.stream(stream), byteCount: size, cancellable: cancellable)
        return (picture, rawInfo(info, details: info.details, fileSize: size, at: url))
    }

    /// The RAW file at `url` on this computer, open, and its size; nil where it is none (or
    /// begins as a JPEG or a PPM).
    private static func openLocalRaw(
        _ url: URL
    ) throws(PhotoFailure) -> (stream: ObjectRef<GInputStream>, size: Int)? {
        guard url.isFileURL, RawPhoto.isRaw(url) else { return nil }
        // Not held up by a FIFO or a device under a RAW file's name (only a regular file is read).
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        let stream = ObjectRef(taking: g_unix_input_stream_new(fd, 1)!)
        var status = stat()
        var head = [UInt8](repeating: 0, count: 4)
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, pread(fd, &head, 4, 0) == 4,
            !PictureSignature.isJPEG(head), !head.starts(with: PictureSignature.ppm)
        else { return nil }
        let size = Int(status.st_size)
        guard size <= ViewerLimits.maxFileBytes else {
            throw PhotoFailure(
                .tooLarge,
                detail: "More than \(PhotoLimits.megabytes(ViewerLimits.maxFileBytes)), the most a photo may have")
        }
        return (stream, size)
    }

    /// `info`, of a RAW file's preview, made the RAW file's: its kind, its size, and what its
    /// own metadata (`details`) says.
    private static func rawInfo(_ info: ImageInfo, details: PhotoDetails?, fileSize: Int, at url: URL) -> ImageInfo {
        var info = info
        // The file's kind, not its preview's (the preview's is what is decoded).
        info.formatDescription = "\(url.pathExtension.uppercased()) camera RAW"
        info.fileSize = fileSize
        if let details {
            info.details = details
            info.camera = details.camera ?? info.camera
            info.date = details.dateTaken ?? info.date
        }
        return info
    }
}
