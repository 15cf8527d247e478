import CDecoderSandbox
import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// Pixels handed from a decoder helper to the app in a sealed memfd: once sealed, the helper
/// can neither change them nor shrink the file under the app's mapping.
enum SealedPixels {
    /// A sealed memfd holding `image`'s pixels, and their layout (helper side).
    static func seal(_ image: PhotoImage) throws(PhotoFailure) -> (fd: Int32, layout: PixelLayout) {
        let (fd, layouts, _) = try seal(frames: [image])
        return (fd, layouts[0])
    }

    /// The pixels on `fd` as an image (app side), mapped copy-on-write: the sepia filter may
    /// change its own copy of them. Takes `fd` (closes it). Throws unless the memfd is sealed
    /// and as large as the layout says.
    static func image(from fd: Int32, layout: PixelLayout) throws(PhotoFailure) -> PhotoImage {
        // (`layout` was checked against the request's limits: see `HelperRoster.run`.)
        defer { Glibc.close(fd) }
        return try image(in: fd, layout: layout, offset: 0)
    }

    /// The pixels at `offset` (a multiple of the page size) of the sealed memfd `fd` (kept open).
    private static func image(in fd: Int32, layout: PixelLayout, offset: Int) throws(PhotoFailure) -> PhotoImage {
        var info = stat()
        // Compared without adding, so that no offset the helper names can overflow.
        guard layout.isPlausible, offset >= 0, offset % pageSize == 0, cp_memfd_is_sealed(fd) != 0,
            fstat(fd, &info) == 0, Int(info.st_size) >= layout.byteCount,
            offset <= Int(info.st_size) - layout.byteCount
        else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper handed back pixels that cannot be used")
        }
        let length = layout.byteCount
        guard let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, off_t(offset)),
            mapped != MAP_FAILED
        else {
            throw PhotoFailure(
                .decoderCrashed, detail: "The decoded pixels could not be mapped: \(String(cString: strerror(errno)))")
        }
        // The length travels as the callback's data: the mapping is unmapped with the pixbuf.
        let unmap: GdkPixbufDestroyNotify = { pixels, length in
            munmap(pixels, Int(bitPattern: length))
        }
        let pixbuf = gdk_pixbuf_new_from_data(
            mapped.cBytes, GDK_COLORSPACE_RGB, layout.hasAlpha ? 1 : 0, 8,
            Int32(layout.width), Int32(layout.height), Int32(layout.rowstride), unmap,
            UnsafeMutableRawPointer(bitPattern: length))!
        return PhotoImage(taking: pixbuf)
    }

    /// A sealed memfd holding every frame of an animation, each at an offset that is a
    /// multiple of the page size (so that each maps on its own), and their layouts.
    static func seal(frames: [PhotoImage]) throws(PhotoFailure) -> (fd: Int32, layouts: [PixelLayout], offsets: [Int]) {
        var layouts: [PixelLayout] = []
        var offsets: [Int] = []
        var end = 0
        for frame in frames {
            let pixbuf = frame.pixbuf
            guard gdk_pixbuf_get_bits_per_sample(pixbuf) == 8, gdk_pixbuf_get_colorspace(pixbuf) == GDK_COLORSPACE_RGB
            else {
                throw PhotoFailure(.unsupported, detail: "The decoder made pixels of a kind the app does not show")
            }
            layouts.append(
                PixelLayout(
                    width: frame.width, height: frame.height, rowstride: Int(gdk_pixbuf_get_rowstride(pixbuf)),
                    hasAlpha: gdk_pixbuf_get_has_alpha(pixbuf) != 0))
            offsets.append(end)
            end += (Int(gdk_pixbuf_get_byte_length(pixbuf)) + pageSize - 1) / pageSize * pageSize
        }
        let fd = cp_memfd_new("classic-photos-frames")
        guard fd >= 0 else { throw failure("memfd_create") }
        guard ftruncate(fd, off_t(end)) == 0 else {
            Glibc.close(fd)
            throw failure("ftruncate")
        }
        for (frame, offset) in zip(frames, offsets) {
            let pixels = UnsafeRawBufferPointer(
                start: gdk_pixbuf_read_pixels(frame.pixbuf), count: Int(gdk_pixbuf_get_byte_length(frame.pixbuf)))
            guard write(pixels, to: fd, at: offset) else {
                Glibc.close(fd)
                throw failure("pwrite")
            }
        }
        guard cp_memfd_seal(fd) == 0 else {
            Glibc.close(fd)
            throw failure("sealing")
        }
        return (fd, layouts, offsets)
    }

    /// The frames on the sealed memfd `fd` (takes it).
    static func images(from fd: Int32, layouts: [PixelLayout], offsets: [Int]) throws(PhotoFailure) -> [PhotoImage] {
        defer { Glibc.close(fd) }
        guard layouts.count == offsets.count, !layouts.isEmpty else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper handed back frames that cannot be used")
        }
        var images: [PhotoImage] = []
        for (layout, offset) in zip(layouts, offsets) {
            images.append(try image(in: fd, layout: layout, offset: offset))
        }
        return images
    }

    /// Writes all of `bytes` to `fd` at `offset`.
    private static func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32, at offset: Int) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = pwrite(fd, bytes.baseAddress! + written, bytes.count - written, off_t(offset + written))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// A sealed memfd holding `bytes` (a picture handed to a helper, or a file a helper made).
    static func sealedFile(holding bytes: Data) throws(PhotoFailure) -> Int32 {
        let fd = cp_memfd_new("classic-photos-bytes")
        guard fd >= 0 else { throw failure("memfd_create") }
        let complete = bytes.withUnsafeBytes { write($0, to: fd, at: 0) }
        guard complete, cp_memfd_seal(fd) == 0 else {
            Glibc.close(fd)
            throw failure("writing the memory file")
        }
        return fd
    }

    /// The bytes of `fd` (a picture the app handed over: a sealed memfd, or a local file),
    /// mapped rather than read: what is never looked at (a RAW file's sensor data, read for its
    /// metadata and preview) is never read from the disk nor copied. Nil where `fd` is no
    /// regular file or cannot be mapped; a file over `limit` bytes is refused as too large.
    /// (A local file cut short by another program while it is mapped ends the helper with
    /// SIGBUS, which the app reports as that photo's failure, as any crash of a helper.)
    static func mapped(_ fd: Int32, limit: Int) throws(PhotoFailure) -> Data? {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 else { return nil }
        let size = Int(info.st_size)
        guard size <= limit else {
            throw PhotoFailure(
                .tooLarge, detail: "More than \(PhotoLimits.megabytes(limit)), the most a photo may have")
        }
        guard let start = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), start != MAP_FAILED else { return nil }
        return Data(bytesNoCopy: start, count: size, deallocator: .custom { pointer, count in munmap(pointer, count) })
    }

    /// The `byteCount` bytes of the sealed memfd `fd` (takes it).
    static func bytes(from fd: Int32, byteCount: Int) throws(PhotoFailure) -> Data {
        defer { Glibc.close(fd) }
        var info = stat()
        guard byteCount >= 0, cp_memfd_is_sealed(fd) != 0, fstat(fd, &info) == 0, Int(info.st_size) == byteCount else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper handed back a file that cannot be used")
        }
        var data = Data(count: byteCount)
        let complete = data.withUnsafeMutableBytes { raw -> Bool in
            var read = 0
            while read < raw.count {
                let count = pread(fd, raw.baseAddress! + read, raw.count - read, off_t(read))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                read += count
            }
            return true
        }
        guard complete else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper's file could not be read")
        }
        return data
    }

    private static func failure(_ step: String) -> PhotoFailure {
        PhotoFailure(
            .undecodable, detail: "\(step) failed: \(String(cString: strerror(errno)))")
    }
}
