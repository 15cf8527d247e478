import CGLib
import Foundation
import GLibKit
import PhotoPipeline
import Testing
import TestSupport

@Suite struct ImageDecoderTests {
    private func decode(_ name: String, _ size: DecodeSize) throws -> PhotoImage {
        let url = Products.packageRoot.appendingPathComponent("data/photos/\(name)")
        let fetcher = PhotoFetcher()
        let cancellable = Cancellable()
        return try ImageDecoder.decode(
            fetcher.open(url, cancellable: cancellable), size: size, cancellable: cancellable)
    }

    @Test("Sizes scale down to fit or fill a box, never up")
    func scaledSizes() {
        #expect(ImageDecoder.scaledSize(width: 600, height: 400, for: .fit(160)) == (160, 107))
        #expect(ImageDecoder.scaledSize(width: 600, height: 400, for: .square(160)) == (240, 160))
        #expect(ImageDecoder.scaledSize(width: 100, height: 50, for: .square(160)) == (100, 50))
        #expect(ImageDecoder.scaledSize(width: 102, height: 102, for: .fit(160)) == (102, 102))
    }

    @Test("A photo decodes straight to a square thumbnail of the row's size")
    func squareThumbnail() throws {
        let image = try decode("coffee.jpg", .square(160)) // 600×400 original
        #expect(image.width == 160 && image.height == 160)
        let whole = try decode("coffee.jpg", .fit(300))
        #expect(whole.width == 300 && whole.height == 200)
    }

    @Test("Text is rejected as not an image")
    func notAnImage() {
        let error = #expect(throws: PhotoFailure.self) { try decode("notes.txt", .square(80)) }
        #expect(error?.reason == .notImage)
        #expect(error?.summary == "Not a picture")
    }
}
