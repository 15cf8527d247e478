import CGdkPixbuf
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// Rows show a square cut from the photo, grid cells the whole photo: what serves each, and
/// what the pipeline makes for each.
@Suite(.serialized) @MainActor struct ThumbnailFrameTests {
    // MARK: The frame as a value

    @Test("A square needs the shorter side, a whole photo the longer one")
    func covering() {
        #expect(ThumbnailFrame.square(120).isCovered(width: 160, height: 120))
        #expect(!ThumbnailFrame.square(160).isCovered(width: 160, height: 120))
        #expect(ThumbnailFrame.whole(160).isCovered(width: 160, height: 120))
        #expect(ThumbnailFrame.whole(160).isCovered(width: 120, height: 160))
        #expect(!ThumbnailFrame.whole(161).isCovered(width: 160, height: 120))
        // Where each looks first in the shared cache: a 160 square needs large (256 × 192 for
        // 4:3); a whole photo in 160 is served by large too, 96 by normal (128).
        #expect(ThumbnailFrame.square(160).servingCacheSize == .large)
        #expect(ThumbnailFrame.whole(160).servingCacheSize == .large)
        #expect(ThumbnailFrame.whole(96).servingCacheSize == .normal)
        #expect(ThumbnailFrame.whole(128).servingCacheSize == .normal)
        #expect(ThumbnailFrame.whole(384).servingCacheSize == .xLarge)
    }

    @Test("Shaping: a square is cut from the middle; a whole photo is scaled to fit, never enlarged")
    func shaping() throws {
        let wide = PhotoImage.fromPixels(
            [UInt8](repeating: 90, count: 400 * 300 * 3), width: 400, height: 300, hasAlpha: false)
        let square = ThumbnailFrame.square(100).shape(wide)
        #expect((square.width, square.height) == (100, 100))
        let whole = ThumbnailFrame.whole(100).shape(wide)
        #expect((whole.width, whole.height) == (100, 75))
        let small = ThumbnailFrame.whole(800).shape(wide)
        #expect(small === wide, "a smaller picture is shown as it is")
    }

    // MARK: Through the pipeline

    @Test(
        "A camera photo's 160×120 EXIF thumbnail serves a cell of 160 whole, with no decode; a row's square is cut from it"
    )
    func exifThumbnailServesWholeCell() async throws {
        let folder = try TestPictures.makeFolder("frames")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photos = [("wide.jpg", 1), ("turned.jpg", 6)].map { name, orientation in
            (folder.appendingPathComponent(name), UInt16(orientation))
        }
        for (url, orientation) in photos {
            // The photo red, its thumbnail blue: which one a cell shows says what was read.
            let bytes = try #require(
                CameraFiles.jpegWithThumbnail(
                    width: 1600, height: 1200, rgb: 0xFF0000, thumbWidth: 160, thumbHeight: 120,
                    thumbRGB: 0x0000FF, orientation: orientation))
            try bytes.write(to: url)
        }
        let processor = PhotoProcessor(fetcher: PhotoFetcher(), prefetchMargin: 0, maxPixelSize: 160, fill: .whole)
        processor.setEntries(photos.map { PhotoEntry(name: $0.0.lastPathComponent, url: $0.0) })
        processor.visibleRowsChanged(0..<photos.count)
        #expect(
            await waitUntil { processor.records.allSatisfy { $0.state == .filtered } && !processor.hasWorkInFlight })
        let shown = try processor.records.map { try #require($0.image) }
        #expect(shown.map { [$0.width, $0.height] } == [[160, 120], [120, 160]], "whole, upright")
        #expect(shown.allSatisfy(isBlueish), "the photos' own thumbnails, sepia, not their decodes")

        // The list's rows of 80: a square cut from the same thumbnail, still no decode.
        processor.setThumbnailFrame(.square(80))
        #expect(
            await waitUntil { processor.records.allSatisfy { $0.state == .filtered } && !processor.hasWorkInFlight })
        let rows = try processor.records.map { try #require($0.image) }
        #expect(rows.allSatisfy { $0.width == 80 && $0.height == 80 && isBlueish($0) })

        // Back to the grid, one size larger than the thumbnail: the photos are decoded whole.
        processor.setThumbnailFrame(.whole(192))
        #expect(
            await waitUntil { processor.records.allSatisfy { $0.state == .filtered } && !processor.hasWorkInFlight })
        let decoded = try processor.records.map { try #require($0.image) }
        #expect(decoded.map { [$0.width, $0.height] } == [[192, 144], [144, 192]])
        #expect(decoded.allSatisfy { !isBlueish($0) }, "the photos themselves")

        // One step smaller keeps those pictures (drawn smaller): no new work.
        processor.setThumbnailFrame(.whole(160))
        #expect(!processor.hasWorkInFlight)
        #expect(
            processor.records.allSatisfy {
                $0.state == .filtered && max($0.image?.width ?? 0, $0.image?.height ?? 0) == 192
            })
        // A square of the same side is another shape: made again.
        processor.setThumbnailFrame(.square(160))
        #expect(
            await waitUntil {
                processor.records.allSatisfy {
                    $0.state == .filtered && $0.image?.height == 160 && $0.image?.width == 160
                }
            })
    }

    @Test("A picture kept in the desktop's cache for a whole cell serves it again without a decode")
    func wholeCellsThroughTheCache() async throws {
        let folder = try TestPictures.makeFolder("frames-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let picture = folder.appendingPathComponent("tall.jpg")
        #expect(TestPictures.writeGradient(picture, width: 600, height: 900, rgb: 0xFF0000))
        let cache = ThumbnailCache(directory: folder.appendingPathComponent("cache/thumbnails"))
        func load() async throws -> PhotoImage {
            let processor = PhotoProcessor(
                fetcher: PhotoFetcher(), prefetchMargin: 0, maxPixelSize: 160, fill: .whole, thumbnails: cache)
            processor.setEntries([PhotoEntry(name: "tall", url: picture)])
            processor.visibleRowsChanged(0..<1)
            #expect(await waitUntil { processor.records.allSatisfy { $0.state == .filtered } })
            return try #require(processor.records.first?.image)
        }
        let first = try await load()
        #expect((first.width, first.height) == (107, 160), "\(first.width)×\(first.height)")
        // Stored as the large size (256 on its longer side), which serves a cell of 160.
        let key = try #require(cache.key(for: picture))
        let stored = try #require(cache.thumbnail(of: key, serving: .whole(160)))
        #expect((stored.width, stored.height) == (171, 256))
        // Replace it with a green one (same tags): the next load is green only if it read the cache.
        let green = PhotoImage.fromPixels(
            [UInt8](repeating: 0, count: 171 * 256 * 3).enumerated().map { $0.offset % 3 == 1 ? 200 : 0 },
            width: 171, height: 256, hasAlpha: false)
        #expect(cache.store(green, of: key, size: .large))
        let second = try await load()
        let (r, g, _, _) = second.pixel(x: second.width / 2, y: second.height / 2)
        #expect((second.width, second.height) == (107, 160) && g > r, "read from the cache")
    }

    /// Whether the middle of a sepia picture came from the blue thumbnail (dark, as sepia turns
    /// pure blue) rather than the red photo (bright).
    private func isBlueish(_ image: PhotoImage) -> Bool {
        let (r, _, _, _) = image.pixel(x: image.width / 2, y: image.height / 2)
        return r < 110
    }
}
