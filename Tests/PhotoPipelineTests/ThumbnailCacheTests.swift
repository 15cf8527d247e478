import CGdkPixbuf
import CGLib
import Foundation
import PhotoPipeline
import Testing
import TestSupport

/// The shared freedesktop.org thumbnail cache: what another program wrote is read, what this
/// app writes follows the standard, and a changed picture's thumbnail is not used.
@Suite struct ThumbnailCacheTests {
    private func setUp() throws -> (folder: URL, cache: ThumbnailCache) {
        let folder = try TestPictures.makeFolder("thumbnails")
        return (folder, ThumbnailCache(directory: folder.appendingPathComponent("cache/thumbnails")))
    }

    /// The MD5 of `text` in hex, by the system's md5sum (not by the code under test).
    private func md5(_ text: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("md5-\(UUID().uuidString)")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try run(URL(fileURLWithPath: "/usr/bin/md5sum"), [file.path])
        return String(result.stdout.prefix(32))
    }

    private func scaled(_ picture: URL, toFit side: Int32) throws -> PhotoImage {
        PhotoImage(taking: try #require(gdk_pixbuf_new_from_file_at_size(picture.path, side, side, nil)))
    }

    @Test("Sizes: a row of 80 pixels is served by normal thumbnails, 160 (HiDPI) by large ones")
    func sizes() {
        #expect(ThumbnailCache.Size.serving(squareSide: 80) == .normal)
        #expect(ThumbnailCache.Size.serving(squareSide: 96) == .normal)
        #expect(ThumbnailCache.Size.serving(squareSide: 160) == .large)
        #expect(ThumbnailCache.Size.serving(squareSide: 5000) == .xxLarge)
    }

    @Test("A stored thumbnail follows the standard: MD5 of the URI, Thumb::URI and Thumb::MTime, private files")
    func storesPerStandard() throws {
        let (folder, cache) = try setUp()
        defer { try? FileManager.default.removeItem(at: folder) }
        let picture = folder.appendingPathComponent("a photo é.png")
        #expect(TestPictures.write(picture, format: "png", size: 600))
        let key = try #require(cache.key(for: picture))
        #expect(
            key.uri == "file://"
                + picture.path.replacingOccurrences(of: " ", with: "%20").replacingOccurrences(of: "é", with: "%C3%A9"))

        #expect(cache.store(try scaled(picture, toFit: 256), of: key, size: .large, mimeType: "image/png"))
        let file = cache.directory.appendingPathComponent("large/\(try md5(key.uri)).png")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folderAttributes = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)
        #expect((folderAttributes[.posixPermissions] as? Int) == 0o700)
        let written = PhotoImage(taking: try #require(gdk_pixbuf_new_from_file(file.path, nil)))
        #expect(written.width == 256 && written.height == 256)
        let option = { (name: String) in gdk_pixbuf_get_option(written.pixbuf, name).map { String(cString: $0) } }
        #expect(option("tEXt::Thumb::URI") == key.uri)
        #expect(option("tEXt::Thumb::MTime") == String(key.modified))
        #expect(option("tEXt::Thumb::Mimetype") == "image/png")
        // No temporary files are left beside it.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path) == [
                file.lastPathComponent
            ])

        let read = try #require(cache.thumbnail(of: key, atLeast: .large, shorterSide: 160))
        #expect(read.width == 256)
        // Too small for the box it does not fit: refused.
        #expect(!cache.store(try scaled(picture, toFit: 300), of: key, size: .large))
    }

    @Test("A thumbnail another program wrote (ImageMagick, with the standard's tags) is used")
    func readsOtherPrograms() throws {
        let (folder, cache) = try setUp()
        defer { try? FileManager.default.removeItem(at: folder) }
        let picture = folder.appendingPathComponent("plasma.jpg")
        let made = try run(URL(fileURLWithPath: "/usr/bin/convert"), ["-size", "800x600", "plasma:", picture.path])
        try #require(made.status == 0, "\(made.stderr)")
        let key = try #require(cache.key(for: picture))
        let target = cache.directory.appendingPathComponent("normal/\(try md5(key.uri)).png")
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let thumbnailed = try run(
            URL(fileURLWithPath: "/usr/bin/convert"),
            [
                picture.path, "-thumbnail", "128x128", "-set", "Thumb::URI", key.uri, "-set", "Thumb::MTime",
                String(key.modified),
                target.path,
            ])
        try #require(thumbnailed.status == 0, "\(thumbnailed.stderr)")

        let read = try #require(cache.thumbnail(of: key, atLeast: .normal, shorterSide: 80))
        #expect(read.width == 128 && read.height == 96)
        // For a HiDPI row (160) the normal one is too small, and there is no large one.
        #expect(cache.thumbnail(of: key, atLeast: .normal, shorterSide: 160) == nil)
    }

    @Test("A picture changed since its thumbnail was made, or another picture's thumbnail, is not used")
    func staleThumbnails() throws {
        let (folder, cache) = try setUp()
        defer { try? FileManager.default.removeItem(at: folder) }
        let picture = folder.appendingPathComponent("changing.png")
        #expect(TestPictures.write(picture, format: "png", rgb: 0xFF0000, size: 300))
        let key = try #require(cache.key(for: picture))
        #expect(cache.store(try scaled(picture, toFit: 128), of: key, size: .normal))
        #expect(cache.thumbnail(of: key, atLeast: .normal, shorterSide: 80) != nil)

        // Rewritten a few seconds later: a new modification time, so a new key.
        #expect(TestPictures.write(picture, format: "png", rgb: 0x00FF00, size: 300))
        var times = [
            timespec(tv_sec: Int(key.modified) + 5, tv_nsec: 0), timespec(tv_sec: Int(key.modified) + 5, tv_nsec: 0),
        ]
        #expect(utimensat(AT_FDCWD, picture.path, &times, 0) == 0)
        let changed = try #require(cache.key(for: picture))
        #expect(changed.modified == key.modified + 5)
        #expect(cache.thumbnail(of: changed, atLeast: .normal, shorterSide: 80) == nil)

        // A thumbnail file whose Thumb::URI names another picture.
        let other = folder.appendingPathComponent("other.png")
        #expect(TestPictures.write(other, format: "png", size: 300))
        let otherKey = try #require(cache.key(for: other))
        try FileManager.default.copyItem(
            at: cache.location(of: key, size: .normal), to: cache.location(of: otherKey, size: .normal))
        #expect(cache.thumbnail(of: otherKey, atLeast: .normal, shorterSide: 80) == nil)
    }

    @Test("No key for what must not be thumbnailed: the cache's own files, special files, web addresses")
    func noKey() throws {
        let (folder, cache) = try setUp()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inside = cache.directory.appendingPathComponent("normal/x.png")
        try FileManager.default.createDirectory(
            at: inside.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(TestPictures.write(inside, format: "png"))
        #expect(cache.key(for: inside) == nil)
        let fifo = folder.appendingPathComponent("fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect(cache.key(for: fifo) == nil)
        #expect(cache.key(for: URL(fileURLWithPath: "/dev/zero")) == nil)
        #expect(cache.key(for: URL(string: "https://example.org/a.jpg")!) == nil)
        #expect(cache.key(for: folder) == nil)
    }
}
