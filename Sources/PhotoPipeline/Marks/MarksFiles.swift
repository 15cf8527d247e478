import CGLib
import Foundation
import GLibKit

/// Where a photo's marks live on disk, read and written: its XMP sidecar where it has one
/// (which then holds all of them, as Lightroom, darktable and digiKam treat it), else the XMP
/// inside the photo. Marks are written to the sidecar that exists, or to a new one named as
/// darktable and digiKam name it; the photo itself is rewritten only where a person asked for
/// that (`intoPhoto`, see `MarksInPhoto`). Blocking file work: run it off the main thread.
public enum MarksFiles {
    /// The most of a sidecar read (darktable's, with a long edit history, are tens of KB).
    static let largestSidecar = 16 << 20

    /// The names a sidecar of the photo at `path` may have, in the order they are looked for:
    /// `IMG_1.CR2.xmp` (darktable, digiKam; what is written), `IMG_1.xmp` (Lightroom, Capture
    /// One), each also with the ending in capitals.
    static func sidecarNames(for path: String) -> [String] {
        let withoutEnding = (path as NSString).deletingPathExtension
        var names = [path + ".xmp", path + ".XMP"]
        if withoutEnding != path { names += [withoutEnding + ".xmp", withoutEnding + ".XMP"] }
        return names
    }

    /// The photo's sidecar that exists (the first of `sidecarNames`), or nil.
    public static func sidecar(for path: String) -> String? {
        sidecarNames(for: path).first(where: isRegularFile)
    }

    /// Whether `path` is a file's path on this computer, not the address of a photo elsewhere
    /// (a share's or a web list's, whose marks only the index keeps).
    static func isLocal(_ path: String) -> Bool { path.hasPrefix("/") }

    /// Why the marks of a photo elsewhere are kept in the index.
    static var notHere: PhotoFileFailure {
        PhotoFileFailure(message: translatable("The photo is not on this computer"))
    }

    /// The photo's sidecars that are its alone, to go with it to the trash and back or be
    /// deleted with it: `IMG_1.CR2.xmp` (either case of its ending), and `IMG_1.xmp` unless
    /// another picture of that name is beside it (a RAW and a JPEG shot together share
    /// Lightroom's). A few `stat`s, and a few dozen more where there is an `IMG_1.xmp`.
    public static func ownSidecars(of path: String) -> [String] {
        let names = sidecarNames(for: path)
        let own = names.prefix(2).filter(isRegularFile)
        let shared = names.dropFirst(2).filter(isRegularFile)
        guard !shared.isEmpty else { return own }
        let base = (path as NSString).deletingPathExtension
        let ending = (path as NSString).pathExtension
        let others = (RawPhoto.endings.union(pictureEndings)).subtracting([ending.lowercased()])
        let sharedWithAnother = others.contains { other in
            [other, other.uppercased(), other.prefix(1).uppercased() + other.dropFirst()].contains {
                isRegularFile(base + "." + $0)
            }
        }
        return sharedWithAnother ? own : own + shared
    }

    /// The endings of files other than RAW files that a sidecar named without the ending may
    /// belong to (lower case): pictures, an editor's documents, a camera's or a phone's videos.
    private static let pictureEndings: Set<String> = [
        "jpg", "jpeg", "png", "tif", "tiff", "heic", "heif", "avif", "webp", "jxl", "gif", "bmp", "jp2", "psd", "xcf",
        "exr", "mov", "mp4", "m4v", "avi", "mts", "mkv",
    ]

    private static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    /// The marks of the photo at `path`: its sidecar's, else its own XMP's, else none. The
    /// index's, where it holds them for that file as it is now (same size and time), or marks
    /// given here that no file could keep; else read, and given to the index.
    public static func read(
        photoAt path: String, index: PhotoIndex? = PhotoIndex.shared, pool: DecoderPool = .shared,
        indexing: MarksForIndex? = nil
    ) -> PhotoMarks {
        let held = index?.marks(path: path)
        if let held, held.unsaved { return held.marks }
        // A photo that is no file here (a share's, a web list's, by its address): the index's.
        guard isLocal(path) else { return .none }
        let source = sidecar(for: path) ?? path
        guard let (size, modified) = sizeAndTime(of: source) else { return .none }
        if let held, held.source == source, held.size == size, held.modified == modified { return held.marks }
        let marks: PhotoMarks
        if source != path {
            guard let bytes = contents(of: source, limit: largestSidecar) else { return .none }
            marks = Decoding.marks(bytes, pool: pool) ?? .none
        } else {
            guard let own = PhotoXMP.bytes(ofPhotoAt: path) else { return .none }
            // Most photos hold no XMP: found so by a search of their bytes, not the helper.
            marks = XMPMarks.packet(in: own) == nil ? .none : Decoding.marks(own, pool: pool) ?? .none
        }
        remember(path, .init(source: source, size: size, modified: modified, marks: marks), index, indexing)
        return marks
    }

    /// The alt text of the photo at `path` (`Iptc4xmpCore:AltTextAccessibility`): its sidecar's
    /// where that holds one, else its own XMP's; nil where neither does (or it is no file here).
    /// Reads files: not on the main thread.
    public static func altText(ofPhotoAt path: String, pool: DecoderPool = .shared) -> String? {
        guard isLocal(path) else { return nil }
        if let sidecar = sidecar(for: path), let bytes = contents(of: sidecar, limit: largestSidecar),
            let text = Decoding.altText(bytes, pool: pool)
        {
            return text
        }
        guard let own = PhotoXMP.bytes(ofPhotoAt: path), XMPMarks.packet(in: own) != nil else { return nil }
        return Decoding.altText(own, pool: pool)
    }

    /// Writes `altText` as the photo at `path`'s alt text, where its marks go (see `write`): its
    /// sidecar, or the photo itself where `intoPhoto` and its kind holds XMP; its marks as
    /// they are. A photo that is no file here cannot keep one (the index holds no alt text).
    public static func writeAltText(
        _ altText: AltTextChange, photoAt path: String, intoPhoto: Bool = false,
        index: PhotoIndex? = PhotoIndex.shared, pool: DecoderPool = .shared
    ) -> Written {
        guard isLocal(path) else { return .failed(notHere, keptInIndex: false) }
        let marks = read(photoAt: path, index: index, pool: pool)
        return write(marks, old: marks, altText: altText, photoAt: path, intoPhoto: intoPhoto, index: index, pool: pool)
    }

    /// What `write` did: the sidecar written, or why not (then the marks were kept in the
    /// index, unless there is none: `keptInIndex`).
    public enum Written: Sendable, Equatable {
        case sidecar(String)
        /// Into the photo itself (it has no sidecar; where it has one, both are written and
        /// that is `sidecar`).
        case photo(String)
        case failed(PhotoFileFailure, keptInIndex: Bool)
    }

    /// Writes `new` as the photo at `path`'s marks (`old`: what it had, read by `read`): only
    /// what changed is set, in its sidecar, or in a new `NAME.EXT.xmp` begun from the photo's
    /// own XMP; everything else the sidecar held is kept. The file is replaced at once, never
    /// left half written (a temporary file, synced to the disk, renamed over it). Where it
    /// cannot be written (a folder the user may not write to, say), the index keeps the marks.
    /// `intoPhoto`: written into the photo first, where its kind holds XMP (then into its
    /// sidecar too, where it has one; the sidecar alone where the photo cannot take them).
    /// `altText`, where given, is written with them.
    public static func write(
        _ new: PhotoMarks, old: PhotoMarks, altText: AltTextChange? = nil, photoAt path: String,
        intoPhoto: Bool = false, index: PhotoIndex? = PhotoIndex.shared, pool: DecoderPool = .shared,
        indexing: MarksForIndex? = nil
    ) -> Written {
        guard isLocal(path) else {
            guard let index else { return .failed(notHere, keptInIndex: false) }
            remember(path, .init(source: path, size: 0, modified: 0, marks: new, unsaved: true), index, indexing)
            return .failed(notHere, keptInIndex: true)
        }
        if intoPhoto, let held = writtenIntoPhoto(new, altText: altText, photoAt: path, pool: pool) {
            remember(path, held, index, indexing)
            return .photo(path)
        }
        switch writeSidecar(new, old: old, altText: altText, photoAt: path, pool: pool) {
        case .success(let sidecar):
            if let (size, modified) = sizeAndTime(of: sidecar) {
                remember(path, .init(source: sidecar, size: size, modified: modified, marks: new), index, indexing)
            }
            return .sidecar(sidecar)
        case .failure(let failure):
            guard let index else { return .failed(failure, keptInIndex: false) }
            remember(path, .init(source: path, size: 0, modified: 0, marks: new, unsaved: true), index, indexing)
            return .failed(failure, keptInIndex: true)
        }
    }

    private static func writeSidecar(
        _ new: PhotoMarks, old: PhotoMarks, altText: AltTextChange?, photoAt path: String, pool: DecoderPool
    ) -> Result<String, PhotoFileFailure> {
        let packet: (target: String, bytes: Data)
        switch sidecarPacket(new, old: old, altText: altText, photoAt: path, pool: pool) {
        case .success(let made): packet = made
        case .failure(let failure): return .failure(failure)
        }
        var error: UnsafeMutablePointer<GError>?
        let written = packet.bytes.withUnsafeBytes { raw in
            g_file_set_contents_full(
                packet.target, raw.cChars, gssize(raw.count),
                GFileSetContentsFlags(G_FILE_SET_CONTENTS_CONSISTENT.rawValue | G_FILE_SET_CONTENTS_DURABLE.rawValue),
                0o666, &error)
        }
        guard written != 0 else {
            return .failure(
                PhotoFileFailure(message: error.map { GLibError(consuming: $0).message } ?? "unknown error"))
        }
        return .success(packet.target)
    }

    /// Writes `new` into the photo at `path` (`MarksInPhoto.write`); what the index is to hold
    /// when the photo alone holds its marks now. Nil when it was not written, or when it has a
    /// sidecar, which other apps read before the photo and which is to be written as well.
    static func writtenIntoPhoto(
        _ new: PhotoMarks, altText: AltTextChange? = nil, photoAt path: String, pool: DecoderPool
    ) -> PhotoIndex.HeldMarks? {
        guard
            case .written(let size, let modified) = MarksInPhoto.write(
                new, altText: altText, photoAt: path, pool: pool),
            sidecar(for: path) == nil
        else { return nil }
        return .init(source: path, size: size, modified: modified, marks: new)
    }

    /// The sidecar the marks of the photo at `path` go to, and what it is to hold: its own
    /// packet with what changed from `old` to `new` set, or a new one begun from the photo's
    /// own XMP (or from nothing).
    static func sidecarPacket(
        _ new: PhotoMarks, old: PhotoMarks, altText: AltTextChange? = nil, photoAt path: String, pool: DecoderPool
    ) -> Result<(target: String, bytes: Data), PhotoFileFailure> {
        let existing = sidecar(for: path)
        let target = existing ?? path + ".xmp"
        let source =
            existing.map { contents(of: $0, limit: largestSidecar) }
            ?? PhotoXMP.bytes(ofPhotoAt: path)
        if existing != nil, source == nil {
            return .failure(PhotoFileFailure(message: translatable("The photo's sidecar could not be read")))
        }
        do throws(PhotoFailure) {
            // A photo without XMP of its own begins a sidecar of nothing but the marks: made
            // here, as nothing from a file is read for it.
            if existing == nil, source.flatMap(XMPMarks.packet(in:)) == nil {
                return .success((target, try XMPMarks.update(nil, from: old, to: new, altText: altText)))
            }
            return .success(
                (target, try Decoding.updatedMarks(source, from: old, to: new, altText: altText, pool: pool)))
        } catch {
            return .failure(PhotoFileFailure(message: error.detail))
        }
    }

    /// Gives `held` to the index: at once, or with others (`indexing`).
    static func remember(
        _ path: String, _ held: PhotoIndex.HeldMarks, _ index: PhotoIndex?, _ indexing: MarksForIndex?
    ) {
        if let indexing { indexing.add(path, held) } else { index?.remember(marks: [(path, held)]) }
    }

    /// The size and modification time (nanoseconds since 1970) of the file at `path`.
    static func sizeAndTime(of path: String) -> (Int64, Int64)? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let facts = SortFacts(status)
        return (facts.size, facts.modified)
    }

    /// Writes all of `bytes` to the open `file`: 0, or why they could not all be written
    /// (nothing written and no error: the disk is full).
    static func writeAll(_ bytes: Data, to file: Int32) -> Int32 {
        bytes.withUnsafeBytes { raw -> Int32 in
            var written = 0
            while written < raw.count {
                let count = Glibc.write(file, raw.baseAddress! + written, raw.count - written)
                guard count > 0 else { return count < 0 ? errno : ENOSPC }
                written += count
            }
            return 0
        }
    }

    /// The file at `path`; nil if it cannot be read, or is longer than `limit` bytes.
    static func contents(of path: String, limit: Int) -> Data? {
        PhotoXMP.withFile(at: path) { file, size in
            size > limit ? nil : PhotoXMP.read(file, at: 0, count: size).map { Data($0) }
        }
    }
}
