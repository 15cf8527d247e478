import CGdkPixbuf
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// Each source of the download stage alone, on real files and a real server on loopback, and
/// the chain that tries them in order.
@Suite(.serialized) struct DownloadSourceTests {
    private static let red: UInt32 = 0xD02020, blue: UInt32 = 0x2040D0

    private func attempt(_ url: URL, side: Int = 80, onBody: @escaping (Data) -> Void = { _ in }) -> DownloadAttempt {
        let record = PhotoRecord(id: PhotoID(rawValue: 1), entry: PhotoEntry(name: "photo", url: url), position: 0)
        return DownloadAttempt(record: record, url: url, squareSide: side, fetcher: PhotoFetcher(), onBody: onBody)
    }

    private func isBlue(_ image: PhotoImage) -> Bool {
        let (r, _, b, _) = image.pixel(x: image.width / 2, y: image.height / 2)
        return b > 150 && r < 80
    }

    /// A 1600×1200 red camera JPEG holding a 160×120 blue EXIF thumbnail, padded past the
    /// head a web download asks for first (decoders stop at the picture's end).
    private func cameraJPEG() throws -> Data {
        let photo = try #require(
            CameraFiles.jpegWithThumbnail(
                width: 1600, height: 1200, rgb: Self.red, thumbWidth: 160, thumbHeight: 120, thumbRGB: Self.blue))
        return photo + Data(count: max(0, (200 << 10) - photo.count))
    }

    private func failure(_ body: () throws(PhotoFailure) -> DownloadResult?) -> PhotoFailure? {
        do throws(PhotoFailure) {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("The desktop's cache: a valid thumbnail of a local picture is the download; none, or a web photo, is not")
    func localThumbnails() throws {
        let folder = try TestPictures.makeFolder("source-local-thumbnails")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = ThumbnailCache(directory: folder.appendingPathComponent("cache"))
        let picture = folder.appendingPathComponent("photo.png")
        #expect(TestPictures.write(picture, format: "png", rgb: Self.red, size: 600))
        let source = LocalThumbnailSource(cache: cache)
        #expect(try source.download(attempt(picture)) == nil)

        let thumbnail = folder.appendingPathComponent("thumbnail.png")
        #expect(TestPictures.write(thumbnail, format: "png", rgb: Self.blue, size: 128))
        let image = PhotoImage(taking: try #require(gdk_pixbuf_new_from_file(thumbnail.path, nil)))
        #expect(cache.store(image, of: try #require(cache.key(for: picture)), size: .normal))
        guard case .picture(let found)? = try source.download(attempt(picture)) else {
            Issue.record("the cached thumbnail was not the download")
            return
        }
        #expect(found.width == 128 && isBlue(found))
        #expect(try source.download(attempt(URL(string: "http://127.0.0.1:9/photo.png")!)) == nil)
    }

    @Test("A local photo's own thumbnail: the download if it covers the row, else kept for the row to show")
    func embeddedPreview() throws {
        let folder = try TestPictures.makeFolder("source-embedded")
        defer { try? FileManager.default.removeItem(at: folder) }
        let camera = folder.appendingPathComponent("camera.jpg")
        try cameraJPEG().write(to: camera)
        let source = EmbeddedPreviewSource()

        let covering = attempt(camera, side: 80)
        guard case .picture(let preview)? = try source.download(covering) else {
            Issue.record("the EXIF thumbnail did not serve an 80-pixel row")
            return
        }
        #expect((preview.width, preview.height) == (160, 120) && isBlue(preview))
        #expect(covering.fileChecked)

        let tooSmall = attempt(camera, side: 160) // 120 pixels cannot fill a HiDPI row
        #expect(try source.download(tooSmall) == nil)
        #expect(tooSmall.smallPreview?.image.height == 120)

        let plain = folder.appendingPathComponent("plain.jpg")
        try #require(CameraFiles.jpeg(width: 320, height: 240, rgb: Self.red)).write(to: plain)
        let none = attempt(plain)
        #expect(try source.download(none) == nil)
        #expect(none.smallPreview == nil && none.fileChecked)

        // Not opened at all: a RAW file (its decode reads the camera's preview), a web photo.
        let raw = attempt(folder.appendingPathComponent("missing.dng"))
        #expect(try source.download(raw) == nil)
        #expect(!raw.fileChecked)
        #expect(try source.download(attempt(URL(string: "http://127.0.0.1:9/camera.jpg")!)) == nil)
        // A missing file fails here, as opening it does.
        #expect(
            failure { () throws(PhotoFailure) in try source.download(attempt(folder.appendingPathComponent("gone.jpg")))
            }?.reason == .missing)
    }

    @Test("A local file is checked, not read: its address, thumbnail key and the preview found before")
    func localFile() throws {
        let folder = try TestPictures.makeFolder("source-file")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = ThumbnailCache(directory: folder.appendingPathComponent("cache"))
        let picture = folder.appendingPathComponent("photo.png")
        #expect(TestPictures.write(picture, format: "png", size: 300))
        guard
            case .file(let url, let key, let preview)? = try LocalFileSource(thumbnails: cache).download(
                attempt(picture))
        else {
            Issue.record("a readable file was not the download")
            return
        }
        #expect(url == picture && key == cache.key(for: picture) && preview == nil)
        guard case .file(_, nil, nil)? = try LocalFileSource(thumbnails: nil).download(attempt(picture)) else {
            Issue.record("without a cache there is no key")
            return
        }

        // A preview an earlier source found goes along, to be shown while the file is decoded.
        let camera = folder.appendingPathComponent("camera.jpg")
        try cameraJPEG().write(to: camera)
        let large = attempt(camera, side: 160)
        #expect(try EmbeddedPreviewSource().download(large) == nil)
        guard case .file(_, _, let shown?)? = try LocalFileSource(thumbnails: nil).download(large) else {
            Issue.record("the small preview was lost")
            return
        }
        #expect(isBlue(shown))

        #expect(
            failure { () throws(PhotoFailure) in try LocalFileSource(thumbnails: nil).download(attempt(folder)) }?.kind
                == .folder)
        #expect(try LocalFileSource(thumbnails: nil).download(attempt(URL(string: "http://127.0.0.1:9/a.jpg")!)) == nil)
    }

    @Test(
        "The app's cache of web thumbnails: a kept one is the download; local files are not looked up")
    func webThumbnails() throws {
        let folder = try TestPictures.makeFolder("source-web-thumbnails")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = ThumbnailCache(directory: folder)
        let url = URL(string: "http://127.0.0.1:9/photos/kept.jpg")!
        let source = WebThumbnailSource(cache: cache)
        #expect(try source.download(attempt(url)) == nil)
        let thumbnail = folder.appendingPathComponent("thumbnail.png")
        #expect(TestPictures.write(thumbnail, format: "png", rgb: Self.blue, size: 128))
        let image = PhotoImage(taking: try #require(gdk_pixbuf_new_from_file(thumbnail.path, nil)))
        let key = ThumbnailCache.remoteKey(for: url, bytes: 1000, expires: Date().addingTimeInterval(3600))
        #expect(cache.store(image, of: key, size: .normal))
        guard case .picture(let found)? = try source.download(attempt(url)) else {
            Issue.record("the kept thumbnail was not the download")
            return
        }
        #expect(isBlue(found))
        #expect(try source.download(attempt(thumbnail)) == nil)
    }

    @Test("A web JPEG's head: its thumbnail serves the row with one range request; else nothing more is fetched here")
    func webHead() throws {
        let folder = try TestPictures.makeFolder("source-head")
        defer { try? FileManager.default.removeItem(at: folder) }
        try cameraJPEG().write(to: folder.appendingPathComponent("camera.jpg"))
        try #require(CameraFiles.jpeg(width: 320, height: 240, rgb: Self.red)).write(
            to: folder.appendingPathComponent("plain.jpg"))
        let server = try LoopbackServer(photos: folder)
        let cache = ThumbnailCache(directory: folder.appendingPathComponent("web-thumbnails"))
        let source = WebHeadSource(remoteThumbnails: cache)

        let kept = server.url("/cacheable/camera.jpg")
        guard case .picture(let preview)? = try source.download(attempt(kept)) else {
            Issue.record("the head's thumbnail did not serve the row")
            return
        }
        #expect(isBlue(preview))
        #expect(
            server.requestCount("/cacheable/camera.jpg") == 1 && server.rangeRequestCount("/cacheable/camera.jpg") == 1)
        // Kept in the app's cache at the normal size, as the server allows.
        #expect(cache.thumbnail(ofRemote: kept, atLeast: .normal, shorterSide: 80).map(isBlue) == true)

        // Too small for a HiDPI row: nothing, and no second request here.
        let camera = server.url("/photos/camera.jpg")
        #expect(try source.download(attempt(camera, side: 160)) == nil)
        #expect(server.requestCount("/photos/camera.jpg") == 1)
        #expect(try source.download(attempt(server.url("/photos/plain.jpg"))) == nil)

        // A server that ignores Range sent it all: left for the whole photo's source.
        let whole = attempt(server.url("/norange/plain.jpg"))
        #expect(try source.download(whole) == nil)
        #expect(whole.wholeResponse?.data == (try Data(contentsOf: folder.appendingPathComponent("plain.jpg"))))

        // Not JPEG by its address: not asked for at all.
        #expect(try source.download(attempt(server.url("/photos/picture.png"))) == nil)
        #expect(server.requestCount("/photos/picture.png") == 0)
        #expect(
            failure { () throws(PhotoFailure) in try source.download(attempt(server.url("/status/404"))) }?.kind
                == .http(status: 404))
    }

    @Test("A whole web photo: its bytes (handed on as they arrive), or its thumbnail if that serves; failures fail")
    func wholeWebPhoto() throws {
        let folder = try TestPictures.makeFolder("source-whole")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try LoopbackServer()
        let cache = ThumbnailCache(directory: folder)
        let coffee = try Data(contentsOf: Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg"))

        let body = Locked<Data?>(nil)
        let plain = attempt(server.url("/photos/coffee.jpg")) { data in body.withLock { $0 = data } }
        guard case .bytes(let bytes, let key)? = try WholeWebPhotoSource(remoteThumbnails: cache).download(plain) else {
            Issue.record("the photo's bytes were not the download")
            return
        }
        #expect(bytes == coffee && key == nil, "no caching headers: no thumbnail key")
        #expect(body.withLock { $0 } == coffee)

        let kept = server.url("/cacheable/coffee.jpg")
        guard case .bytes(_, let keptKey?)? = try WholeWebPhotoSource(remoteThumbnails: cache).download(attempt(kept))
        else {
            Issue.record("a photo the server lets clients keep has no thumbnail key")
            return
        }
        #expect(keptKey.uri == kept.absoluteString && keptKey.expires != nil)

        // The whole photo a head request got is used as it is: no request.
        let given = attempt(server.url("/photos/grass.jpg"))
        given.wholeResponse = HTTPResponse(data: coffee, freshUntil: nil)
        guard case .bytes(let reused, _)? = try WholeWebPhotoSource(remoteThumbnails: nil).download(given) else {
            Issue.record("the head's whole response was not used")
            return
        }
        #expect(reused == coffee && server.requestCount("/photos/grass.jpg") == 0)

        let camera = attempt(server.url("/photos/camera.jpg"))
        camera.wholeResponse = HTTPResponse(data: try cameraJPEG(), freshUntil: nil)
        guard case .picture(let preview)? = try WholeWebPhotoSource(remoteThumbnails: nil).download(camera) else {
            Issue.record("a whole camera JPEG's thumbnail did not serve the row")
            return
        }
        #expect(isBlue(preview))

        let source = WholeWebPhotoSource(remoteThumbnails: nil)
        #expect(
            failure { () throws(PhotoFailure) in try source.download(attempt(server.url("/empty"))) }?.reason == .empty)
        #expect(
            failure { () throws(PhotoFailure) in try source.download(attempt(server.url("/status/503"))) }?.kind
                == .http(status: 503))
        #expect(try source.download(attempt(folder)) == nil, "a local file is not a web photo")
    }

    @Test("The chain: the first source with the photo wins; a cancelled download stops; an address nobody takes fails")
    func chain() throws {
        let folder = try TestPictures.makeFolder("source-chain")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = ThumbnailCache(directory: folder.appendingPathComponent("cache"))
        let camera = folder.appendingPathComponent("camera.jpg")
        try cameraJPEG().write(to: camera)
        let chain = DownloadChain.standard(thumbnails: cache, remoteThumbnails: nil)
        #expect(chain.sources.map { "\(type(of: $0))" }.first == "LocalThumbnailSource")
        guard case .picture? = try chain.download(attempt(camera, side: 80)) else {
            Issue.record("the photo's own thumbnail did not come before its file")
            return
        }
        guard case .file(_, _, let preview?)? = try chain.download(attempt(camera, side: 160)) else {
            Issue.record("the file did not come with the small preview")
            return
        }
        #expect(isBlue(preview))

        let cancelled = Cancellable()
        cancelled.cancel()
        let record = PhotoRecord(id: PhotoID(rawValue: 2), entry: PhotoEntry(name: "x", url: camera), position: 0)
        let stopped = DownloadAttempt(
            record: record, url: camera, squareSide: 80, fetcher: PhotoFetcher(), cancellable: cancelled)
        #expect(try chain.download(stopped) == nil)

        // A scheme neither GIO nor GVfs reads (ftp and the like are network shares).
        let gopher = failure { () throws(PhotoFailure) in
            try chain.download(attempt(URL(string: "gopher://example.org/a.jpg")!))
        }
        #expect(gopher?.kind == .unsupportedAddress)
    }
}
