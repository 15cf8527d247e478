import Foundation

/// Where a photo keeps its own XMP, found without reading the photo: in a JPEG, the APP1
/// segment named for XMP among the segments before the picture (a few reads of a few bytes
/// each, however large the photo); in other formats (TIFF, PNG, DNG and RAW files), somewhere
/// in their first bytes. Only lengths are read here: the packet itself is parsed in a decoder
/// helper, as everything from a file is.
public enum PhotoXMP {
    /// How far into a photo that is not a JPEG its XMP is looked for.
    static let head = 256 << 10
    /// The name an XMP segment of a JPEG begins with.
    private static let namespace = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    /// The most segments looked through before the picture (a camera's are a dozen or so).
    private static let mostSegments = 64

    /// The bytes of the photo at `path` its XMP would be in: a JPEG's XMP segment (empty when
    /// it has none), or another format's first bytes; nil if the file cannot be read.
    public static func bytes(ofPhotoAt path: String) -> Data? {
        withFile(at: path) { file, size in
            if let start = read(file, at: 0, count: 2), start == [0xFF, 0xD8] { return jpegSegment(file, size: size) }
            return read(file, at: 0, count: min(size, head)).map { Data($0) }
        }
    }

    /// `body` with the regular file at `path` open, and its size; nil if it cannot be opened.
    static func withFile<T>(at path: String, _ body: (_ file: Int32, _ size: Int) -> T?) -> T? {
        let file = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return body(file, Int(status.st_size))
    }

    /// A JPEG's XMP segment's payload, or empty when its segments end (the picture begins)
    /// without one, or do not make sense.
    private static func jpegSegment(_ file: Int32, size: Int) -> Data {
        jpegSegment(size: size) { read(file, at: $0, count: $1) }
    }

    /// The XMP segment's payload of the JPEG in `bytes` (a whole file, or its start); nil
    /// when it has none.
    static func jpegSegment(in bytes: Data) -> Data? {
        let payload = jpegSegment(size: bytes.count) { offset, count in
            guard offset >= 0, count >= 0, offset + count <= bytes.count else { return nil }
            let start = bytes.startIndex + offset
            return [UInt8](bytes[start..<start + count])
        }
        return payload.isEmpty ? nil : payload
    }

    /// The XMP segment found through `read(offset, count)` in a JPEG of `size` bytes.
    private static func jpegSegment(size: Int, read: (Int, Int) -> [UInt8]?) -> Data {
        var offset = 2
        for _ in 0..<mostSegments {
            guard let marker = read(offset, 4), marker[0] == 0xFF else { return Data() }
            let kind = marker[1]
            // Padding before a marker, then: the picture's data (start of scan), or its end.
            if kind == 0xFF {
                offset += 1
                continue
            }
            if kind == 0xDA || kind == 0xD9 { return Data() }
            let length = Int(marker[2]) << 8 | Int(marker[3])
            guard length >= 2, offset + 2 + length <= size else { return Data() }
            if kind == 0xE1, length >= 2 + namespace.count, read(offset + 4, namespace.count) == namespace,
                let payload = read(offset + 4 + namespace.count, length - 2 - namespace.count)
            {
                return Data(payload)
            }
            offset += 2 + length
        }
        return Data()
    }

    /// `count` bytes of `file` from `offset`; nil unless all of them were read.
    static func read(_ file: Int32, at offset: Int, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes {
                pread(file, $0.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            guard got > 0 else { break }
            filled += got
        }
        return filled == count ? bytes : nil
    }
}
