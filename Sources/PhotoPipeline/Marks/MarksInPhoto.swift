import CGLib
import Foundation
import GLibKit

/// Marks written into the photo itself, where a person asked for it (the preference "Write
/// Marks into Photos") and the photo is a JPEG or a PNG (not a RAW file, which photo apps keep
/// untouched and mark in sidecars; TIFF and WebP keep theirs in sidecars too). The photo's own
/// packet is changed as a sidecar's is (Exempi), and put back into the file by replacing its
/// XMP segment (JPEG) or chunk (PNG), or adding one: every other byte of the file is as it was,
/// EXIF with its maker notes, the profile and the picture's data. Both in a decoder helper, as
/// everything read from a file is. The file is then replaced whole, as an edit is saved.
public enum MarksInPhoto {
    /// The largest photo rewritten for its marks (a bigger one keeps them in a sidecar).
    static let largestPhoto = 512 << 20

    /// Whether the photo at `path`, whose first bytes are `head`, is of a kind its marks are
    /// written into.
    static func holdsXMP(path: String, head: [UInt8]) -> Bool {
        guard !RawPhoto.isRaw(URL(fileURLWithPath: path)) else { return false }
        return PictureSignature.isJPEG(head) || head.starts(with: PictureSignature.png)
    }

    /// What became of a photo's marks written into it.
    enum Outcome {
        /// Written; the photo's size and time now.
        case written(size: Int64, modified: Int64)
        /// Not a photo its marks are written into (its kind, its size, a file with other names
        /// or not the user's, a layout this does not rewrite): they go to its sidecar, as
        /// without the preference.
        case notHeld
        case failed(PhotoFileFailure)
    }

    /// Writes `new` into the photo at `path`: its own XMP given the marks `new` has. The photo
    /// is replaced whole or not at all (a temporary file beside it, synced, renamed over it),
    /// and not when it changed on disk while this worked.
    static func write(
        _ new: PhotoMarks, altText: AltTextChange? = nil, photoAt path: String, pool: DecoderPool
    ) -> Outcome {
        // A regular file of the user's, with no other name (a link's target, or a file with
        // hard links, would be changed under its other names too, or they would part).
        var before = stat()
        guard lstat(path, &before) == 0, before.st_mode & S_IFMT == S_IFREG, before.st_nlink == 1,
            before.st_uid == geteuid(), before.st_size <= largestPhoto,
            let head = PhotoXMP.withFile(at: path, { file, _ in PhotoXMP.read(file, at: 0, count: 16) }),
            holdsXMP(path: path, head: head),
            let photo = MarksFiles.contents(of: path, limit: largestPhoto)
        else { return .notHeld }
        let rewritten: Data
        do throws(PhotoFailure) {
            rewritten = try Decoding.marksInPhoto(photo, to: new, altText: altText, pool: pool)
        } catch {
            // A layout this does not rewrite (extended XMP, a compressed packet): the sidecar.
            return error.reason == .decoderCrashed ? .failed(PhotoFileFailure(message: error.detail)) : .notHeld
        }
        return replace(path, with: rewritten, unless: before)
    }

    /// Writes `bytes` over the file at `path`: to a temporary file beside it with its mode,
    /// synced, then renamed over it, and the folder synced; not when the file is no longer as
    /// `before` says (another program changed it meanwhile).
    private static func replace(_ path: String, with bytes: Data, unless before: stat) -> Outcome {
        let temporary = path + ".~" + String(UInt32.random(in: .min ... .max), radix: 16)
        let file = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, before.st_mode & 0o7777)
        guard file >= 0 else { return .failed(failure(errno)) }
        var problem = MarksFiles.writeAll(bytes, to: file)
        if problem == 0, fchmod(file, before.st_mode & 0o7777) != 0 || fsync(file) != 0 { problem = errno }
        close(file)
        var now = stat()
        let unchanged =
            lstat(path, &now) == 0 && now.st_ino == before.st_ino && now.st_size == before.st_size
            && now.st_mtim.tv_sec == before.st_mtim.tv_sec && now.st_mtim.tv_nsec == before.st_mtim.tv_nsec
        guard problem == 0, unchanged, rename(temporary, path) == 0 else {
            let why = problem != 0 ? problem : errno
            unlink(temporary)
            return unchanged ? .failed(failure(why)) : .notHeld
        }
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
        guard let (size, modified) = MarksFiles.sizeAndTime(of: path) else {
            return .failed(PhotoFileFailure(message: translatable("The photo could not be read again")))
        }
        return .written(size: size, modified: modified)
    }

    /// The photo file `photo` (a JPEG or a PNG) with its own XMP giving the marks `new` has
    /// (what else the packet holds kept), all other bytes as they were. Parses the file: run in
    /// a decoder helper (`Decoding.marksInPhoto`).
    static func updated(_ photo: Data, to new: PhotoMarks, altText: AltTextChange? = nil) throws(PhotoFailure) -> Data {
        let bytes = [UInt8](photo)
        let place: XMPPlace
        if PictureSignature.isJPEG(bytes) {
            place = try jpegPlace(bytes)
        } else if bytes.starts(with: PictureSignature.png) {
            place = try pngPlace(bytes)
        } else {
            throw PhotoFailure(.damagedOrUnsupported, detail: "Marks are written only into JPEG and PNG files")
        }
        let own = place.packet.map { Data($0) }
        let old = own.flatMap(XMPMarks.read) ?? .none
        let packet = [UInt8](try XMPMarks.update(own, from: old, to: new, altText: altText, wrapped: true))
        let holder = PictureSignature.isJPEG(bytes) ? try jpegSegment(packet) : pngChunk(packet)
        // The old packet's holder taken out, the new one put in at its place.
        var kept = bytes
        kept.removeSubrange(place.removed)
        let at = place.insertion > place.removed.lowerBound ? place.insertion - place.removed.count : place.insertion
        kept.insert(contentsOf: holder, at: at)
        return Data(kept)
    }

    /// Where a file's XMP is and goes: the old segment or chunk (empty where there is none),
    /// where the new one goes (in the file as it is), and the packet that was there.
    private struct XMPPlace {
        let removed: Range<Int>
        let insertion: Int
        let packet: ArraySlice<UInt8>?

        init(removed: Range<Int>, insertion: Int? = nil, packet: ArraySlice<UInt8>?) {
            self.removed = removed
            self.insertion = insertion ?? removed.lowerBound
            self.packet = packet
        }
    }

    private static let jpegNamespace = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    private static let jpegExtension = Array("http://ns.adobe.com/xmp/extension/\0".utf8)

    /// A JPEG's XMP segment among those before its picture (APP1 named for XMP), or where a new
    /// one goes: after the EXIF segment, else after a JFIF one leading, else after the start.
    private static func jpegPlace(_ bytes: [UInt8]) throws(PhotoFailure) -> XMPPlace {
        var offset = 2
        var insertion = 2
        var found: XMPPlace?
        while true {
            guard offset + 4 <= bytes.count, bytes[offset] == 0xFF else { throw layout("JPEG") }
            let kind = bytes[offset + 1]
            if kind == 0xFF {
                offset += 1
                continue
            }
            if kind == 0xDA || kind == 0xD9 { break }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let end = offset + 2 + length
            guard length >= 2, end <= bytes.count else { throw layout("JPEG") }
            let payload = bytes[(offset + 4)..<end]
            if kind == 0xE1, payload.starts(with: jpegExtension) {
                throw PhotoFailure(.damagedOrUnsupported, detail: "The JPEG holds extended XMP")
            }
            if kind == 0xE1, found == nil, payload.starts(with: jpegNamespace) {
                found = XMPPlace(removed: offset..<end, packet: payload.dropFirst(jpegNamespace.count))
            }
            if (kind == 0xE0 && offset == 2) || (kind == 0xE1 && payload.starts(with: PictureSignature.exifHeader)) {
                insertion = end
            }
            offset = end
        }
        return found ?? XMPPlace(removed: insertion..<insertion, packet: nil)
    }

    /// An APP1 segment holding `packet`.
    private static func jpegSegment(_ packet: [UInt8]) throws(PhotoFailure) -> [UInt8] {
        let length = 2 + jpegNamespace.count + packet.count
        guard length <= 0xFFFF else {
            throw PhotoFailure(.damagedOrUnsupported, detail: "The XMP is too large for one JPEG segment")
        }
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + jpegNamespace + packet
    }

    private static let pngKeyword = Array("XML:com.adobe.xmp".utf8)

    /// A PNG's XMP chunk (iTXt named for XMP, its text not compressed), and where the new one
    /// goes: where it was if that is before the picture's data, else before its first data
    /// chunk (where readers that look only at a file's start find it).
    private static func pngPlace(_ bytes: [UInt8]) throws(PhotoFailure) -> XMPPlace {
        var offset = PictureSignature.png.count
        var firstData: Int?
        var found: XMPPlace?
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let end = offset + 12 + length
            guard length <= Int(Int32.max), end <= bytes.count else { throw layout("PNG") }
            let data = bytes[(offset + 8)..<(offset + 8 + length)]
            if type == "iTXt", data.starts(with: pngKeyword + [0]) {
                // Keyword, 0, compression flag and method, language and its 0, translated
                // keyword and its 0, then the text.
                let flags = data.dropFirst(pngKeyword.count + 1)
                guard flags.first == 0 else {
                    throw PhotoFailure(.damagedOrUnsupported, detail: "The PNG's XMP is compressed")
                }
                let language = flags.dropFirst(2)
                guard let languageEnd = language.firstIndex(of: 0),
                    let translatedEnd = language[(languageEnd + 1)...].firstIndex(of: 0)
                else { throw layout("PNG") }
                if found != nil { throw PhotoFailure(.damagedOrUnsupported, detail: "The PNG holds two XMP chunks") }
                found = XMPPlace(removed: offset..<end, packet: language[(translatedEnd + 1)...])
            }
            if type == "IDAT", firstData == nil { firstData = offset }
            if type == "IEND" { break }
            offset = end
        }
        guard let firstData else { throw layout("PNG") }
        guard let found else { return XMPPlace(removed: firstData..<firstData, packet: nil) }
        if found.removed.lowerBound < firstData { return found }
        return XMPPlace(removed: found.removed, insertion: firstData, packet: found.packet)
    }

    /// An iTXt chunk holding `packet`, not compressed.
    private static func pngChunk(_ packet: [UInt8]) -> [UInt8] {
        let data = pngKeyword + [0, 0, 0, 0, 0] + packet
        let typed = Array("iTXt".utf8) + data
        let length = UInt32(data.count), crc = crc32(typed)
        return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) } + typed
            + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) }
    }

    /// PNG's CRC-32 (ISO 3309, as zlib computes it) of `bytes`.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    private static func layout(_ format: String) -> PhotoFailure {
        PhotoFailure(.damagedOrUnsupported, detail: "The \(format) file's structure could not be followed")
    }

    private static func failure(_ code: Int32) -> PhotoFileFailure {
        PhotoFileFailure(message: String(cString: strerror(code)))
    }
}
