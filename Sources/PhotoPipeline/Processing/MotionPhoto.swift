import Foundation

/// A phone's motion photo: a JPEG with a short MP4 clip after its picture, announced in its
/// XMP. Google's cameras name the clip in a container directory (`Item:Semantic="MotionPhoto"`
/// with its `Item:Length`) or, before that, by `GCamera:MicroVideoOffset` (the clip's length
/// from the end of the file); Samsung's write "MotionPhoto_Data" before the clip in a trailer.
/// Read from the whole file's bytes in a decoder helper, as part of `ImageInfo`; the clip is
/// only believed where an MP4's `ftyp` box begins where it should.
enum MotionPhoto {
    private static let samsungMarker = Array("MotionPhoto_Data".utf8)

    /// Where the clip is in `bytes` (a JPEG file), if it is a motion photo.
    static func clip(in bytes: Data) -> Range<Int>? {
        guard bytes.count > 64, bytes[bytes.startIndex] == 0xFF, bytes[bytes.startIndex + 1] == 0xD8 else {
            return nil
        }
        let count = bytes.count
        if let xmp = PhotoXMP.jpegSegment(in: bytes),
            let length = announcedLength(String(decoding: xmp, as: UTF8.self)),
            length > 0, length < count, isMP4(bytes, at: count - length)
        {
            return (count - length)..<count
        }
        // Samsung: the marker after the picture, then the clip (and Samsung's own trailer
        // after it, which players pass over).
        if let marker = bytes.range(of: Data(samsungMarker)) {
            let start = marker.upperBound - bytes.startIndex
            if isMP4(bytes, at: start) { return start..<count }
        }
        return nil
    }

    /// The clip's length as the XMP gives it, from the end of the file.
    static func announcedLength(_ xmp: String) -> Int? {
        // The container directory's item for the clip: its element holds its length (the
        // attributes come in any order).
        if let semantic = xmp.range(of: "Semantic=\"MotionPhoto\"") {
            let start = xmp[..<semantic.lowerBound].lastIndex(of: "<") ?? semantic.lowerBound
            let end = xmp[semantic.upperBound...].firstIndex(of: ">") ?? xmp.endIndex
            if let length = attribute("Length", in: xmp[start..<end]) { return length }
        }
        return attribute("MicroVideoOffset", in: xmp[...])
    }

    /// The whole number in `name="…"` (any namespace prefix) within `text`.
    private static func attribute(_ name: String, in text: Substring) -> Int? {
        guard let found = text.range(of: ":\(name)=\"") else { return nil }
        let digits = text[found.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return digits.count <= 12 ? Int(digits) : nil
    }

    /// Whether the local photo at `url` is a motion photo, as far as its row needs to know
    /// (for the "Live" badge): a Live Photo's still, or a JPEG whose XMP announces a clip (the
    /// segment read alone, searched for Google's flags; the clip itself is found in a decoder
    /// helper when the viewer shows the photo). Reads a few bytes: not on the main thread.
    static func motion(ofPhotoAt url: URL) -> MotionMark {
        if let clip = LivePhoto.clip(besidePhotoAt: url) { return .beside(extension: clip.pathExtension) }
        guard url.isFileURL, ["jpg", "jpeg"].contains(url.pathExtension.lowercased()),
            let xmp = PhotoXMP.bytes(ofPhotoAt: url.path), !xmp.isEmpty
        else { return .none }
        return flags.contains { xmp.range(of: $0) != nil } ? .inside : .none
    }

    private static let flags = [Data("MotionPhoto=\"1\"".utf8), Data("MicroVideo=\"1\"".utf8)]

    private static func isMP4(_ bytes: Data, at offset: Int) -> Bool {
        guard offset >= 0, offset + 8 <= bytes.count else { return false }
        let at = bytes.startIndex + offset + 4
        return bytes[at..<at + 4].elementsEqual("ftyp".utf8)
    }
}

/// Where a motion photo's clip is, for the viewer to play it.
public enum MotionClip: Sendable {
    /// A Google or Samsung photo's, cut from the photo's bytes.
    case bytes(Data)
    /// A Live Photo's, the file beside its still.
    case file(URL)

    /// The clip of the photo whose bytes and info these are, at `url`, if it is a motion
    /// photo (a `stat` or two for a Live Photo's: not on the main thread).
    static func of(_ bytes: Data, info: ImageInfo, at url: URL) -> MotionClip? {
        if let range = info.motionClip, range.lowerBound >= 0, range.upperBound <= bytes.count {
            let start = bytes.startIndex
            return .bytes(bytes[(start + range.lowerBound)..<(start + range.upperBound)])
        }
        return LivePhoto.clip(besidePhotoAt: url).map(MotionClip.file)
    }

    /// The address a player opens it by, and the descriptor to close once it has played: a
    /// clip in memory goes into a sealed memory file of its own, opened by its path
    /// (`/proc/self/fd/N`). Nil if no memory file could be made.
    public func playable() -> (uri: String, descriptor: Int32?)? {
        switch self {
        case .file(let url): return (url.absoluteString, nil)
        case .bytes(let data):
            guard let fd = try? SealedPixels.sealedFile(holding: data) else { return nil }
            return ("file:///proc/self/fd/\(fd)", fd)
        }
    }
}

/// What a photo's row knows of its clip, kept with its thumbnail (`VideoFile.motionOption`).
public enum MotionMark: Sendable, Equatable {
    /// A still.
    case none
    /// A clip inside the photo (Google's and Samsung's motion photos).
    case inside
    /// A Live Photo's clip, the file beside it named as the photo with this extension.
    case beside(extension: String)

    init?(option: String) {
        switch option {
        case "0": self = .none
        case "1": self = .inside
        case ".MOV", ".mov": self = .beside(extension: String(option.dropFirst()))
        default: return nil
        }
    }

    var option: String {
        switch self {
        case .none: "0"
        case .inside: "1"
        case .beside(let clipExtension): "." + clipExtension
        }
    }

    /// The clip's file beside the photo at `path`, for a Live Photo (no `stat`: as it was
    /// when the mark was made).
    public func clipPath(besidePhotoAt path: String) -> String? {
        guard case .beside(let clipExtension) = self else { return nil }
        return (path as NSString).deletingPathExtension + "." + clipExtension
    }
}

/// Apple's Live Photos: a still (`IMG_1234.HEIC`, or a JPEG once exported) with its clip beside
/// it, `IMG_1234.MOV`, taken as one photo by their names (the content identifier both carry
/// is not compared). The clip is not listed apart; the still plays it.
public enum LivePhoto {
    private static let stillExtensions = ["HEIC", "heic", "JPG", "jpg", "JPEG", "jpeg"]
    private static let clipExtensions = ["MOV", "mov"]
    /// The same for a file named by its whole path.
    static func isPairedClip(path: String) -> Bool {
        path.withCString { isPairedClip($0, in: AT_FDCWD) }
    }

    /// Whether `name`, in the folder open as `directory`, is the clip of a Live Photo whose
    /// still is beside it.
    static func isPairedClip(_ name: UnsafePointer<CChar>, in directory: Int32) -> Bool {
        // Every name of a folder passes here: only a .mov makes a string.
        guard let dot = strrchr(name, 0x2E), strcmp(dot + 1, "MOV") == 0 || strcmp(dot + 1, "mov") == 0 else {
            return false
        }
        let base = String(String(cString: name).dropLast(strlen(dot)))
        return stillExtensions.contains { isRegularFile(base + "." + $0, in: directory) }
    }

    /// The clip beside the still at `url`, if it is a Live Photo's (a `stat` or two: not on
    /// the main thread).
    public static func clip(besidePhotoAt url: URL) -> URL? {
        guard url.isFileURL, stillExtensions.contains(url.pathExtension) else { return nil }
        MainThreadIO.check(.stat)
        let base = url.deletingPathExtension()
        return clipExtensions.lazy.map { base.appendingPathExtension($0) }.first {
            isRegularFile($0.path, in: AT_FDCWD)
        }
    }

    /// The clip beside the still at `path` when it is that still's alone: moved, deleted and
    /// copied with it. A clip with two stills beside it (`IMG_1.HEIC` and the `IMG_1.JPG` made
    /// of it) stays with the one left.
    static func soleClip(besidePhotoAt path: String) -> String? {
        let url = URL(fileURLWithPath: path)
        guard let clip = clip(besidePhotoAt: url) else { return nil }
        let base = url.deletingPathExtension().path
        let others = stillExtensions.filter { $0 != url.pathExtension }
        return others.contains { isRegularFile(base + "." + $0, in: AT_FDCWD) } ? nil : clip.path
    }

    /// `paths` with each Live Photo's clip after its still (where it is that still's alone):
    /// the files copied for them (a few `stat`s for each still: not on the main thread).
    public static func withClips(_ paths: [String]) -> [String] {
        paths.flatMap { path in [path] + (soleClip(besidePhotoAt: path).map { [$0] } ?? []) }
    }

    private static func isRegularFile(_ path: String, in directory: Int32) -> Bool {
        var status = stat()
        return fstatat(directory, path, &status, 0) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}
