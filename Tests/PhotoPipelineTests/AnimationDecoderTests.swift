import Foundation
import GLibKit
import PhotoPipeline
import Testing
import TestSupport

@Suite struct AnimationDecoderTests {
    private func decode(
        _ data: Data, side: Int = 1024, budget: DecodeMemoryBudget = DecodeMemoryBudget(capacity: 256 << 20)
    )
        async throws -> AnimationDecoder.Outcome?
    {
        // On a thread of its own: hostile animations take a while to decode, and the threads
        // tasks share are not to be held meanwhile (see `onOwnThread`).
        try await onOwnThread {
            guard let header = AnimationHeader.read(data, maxFrames: AnimationDecoder.maxFrames) else { return nil }
            return try AnimationDecoder.decode(
                data, header: header, side: side, limits: .standard, budget: budget,
                cancellable: Cancellable())
        }
    }

    private func made(_ name: String, delay: Int = 20) async throws -> Data {
        let folder = try TestPictures.makeFolder("animation")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(name)
        try #require(await AnimatedPictures.write(url, delay: delay), "ImageMagick could not write \(name)")
        return try Data(contentsOf: url)
    }

    @Test("An ImageMagick GIF: three frames of its colours, their delays, looping for ever")
    func gif() async throws {
        let data = try await made("anim.gif")
        let header = try #require(AnimationHeader.read(data, maxFrames: 10))
        #expect(header.format == .gif && header.canvasWidth == 64 && header.canvasHeight == 48)
        #expect(header.frames.map(\.delayMs) == [200, 200, 200] && header.plays == 0)
        guard case .animation(let animation)? = try await decode(data) else { Issue.record("not an animation"); return }
        #expect(animation.frames.count == 3 && animation.delays == [200, 200, 200] && animation.plays == 0)
        let colours = animation.frames.map { $0.pixel(x: 10, y: 10) }
        #expect(colours[0].0 > 200 && colours[0].1 < 50)
        #expect(colours[1].1 > 200 && colours[1].0 < 50)
        #expect(colours[2].2 > 200 && colours[2].0 < 50)
        #expect(animation.frames.allSatisfy { $0.width == 64 && $0.height == 48 })
        let filtered = animation.filtered(by: SepiaFilter(), isCancelled: { false })
        let sepia = try #require(filtered)
        #expect(sepia.frames.count == 3 && sepia.frames[0] !== animation.frames[0])
    }

    @Test("Frames are scaled to the size asked for; delays of 10 ms or less play at 100 ms")
    func scaledAndFastDelays() async throws {
        let data = try await made("fast.gif", delay: 0)
        guard case .animation(let animation)? = try await decode(data, side: 32) else {
            Issue.record("not an animation"); return
        }
        #expect(animation.frames.allSatisfy { $0.width == 32 && $0.height == 24 })
        #expect(animation.delays == [100, 100, 100])
    }

    @Test("An animated WebP plays too, where gdk-pixbuf reads WebP", .enabled(if: AnimatedPictures.hasWebPLoader))
    func webp() async throws {
        let data = try await made("anim.webp")
        let header = try #require(AnimationHeader.read(data, maxFrames: 10), "ImageMagick wrote a still WebP")
        #expect(header.format == .webp && header.frames.count == 3 && header.canvasWidth == 64)
        guard case .animation(let animation)? = try await decode(data) else { Issue.record("not an animation"); return }
        #expect(animation.frames.count == 3 && animation.delays == [200, 200, 200])
        #expect(animation.frames[1].pixel(x: 10, y: 10).1 > 200)
    }

    @Test("A still GIF is no animation")
    func still() async throws {
        let folder = try TestPictures.makeFolder("still-gif")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("still.gif")
        try #require(await AnimatedPictures.convert(["-size", "64x48", "xc:red", url.path]))
        let header = AnimationHeader.read(try Data(contentsOf: url), maxFrames: 10)
        #expect(header?.isAnimated != true)
    }

    @Test(
        "Hostile GIFs play as still pictures: too many frames, a frame larger than the picture, too much to composite")
    func hostile() async throws {
        let many = AnimatedPictures.gif(frames: AnimationDecoder.maxFrames + 500)
        #expect(AnimationHeader.read(many, maxFrames: AnimationDecoder.maxFrames)?.truncated == true)
        guard case .still? = try await decode(many) else { Issue.record("too many frames animated"); return }
        let big = AnimatedPictures.gif(frames: 3, bigFrame: (20000, 20000))
        guard case .still? = try await decode(big) else { Issue.record("a huge frame animated"); return }
        let wide = AnimatedPictures.gif(frames: 40, width: 4000, height: 4000)
        guard case .still? = try await decode(wide) else { Issue.record("640 megapixels composited"); return }
        // The small frames themselves are fine.
        guard case .animation(let ok)? = try await decode(AnimatedPictures.gif(frames: 50)) else {
            Issue.record("50 frames"); return
        }
        #expect(ok.frames.count == 50)
    }

    @Test("Many frames are made smaller to fit the frame budget")
    func frameBudget() async throws {
        // 400 frames of 200×200: 2 × 4 × 40,000 × 400 = 128 MB at full size, twice the budget.
        let data = AnimatedPictures.gif(frames: 400, width: 200, height: 200)
        let budget = DecodeMemoryBudget(capacity: 256 << 20)
        guard case .animation(let animation)? = try await decode(data, budget: budget) else {
            Issue.record("not an animation"); return
        }
        let bytes = animation.frames.reduce(0) { $0 + 2 * 4 * $1.width * $1.height }
        #expect(bytes <= AnimationDecoder.maxFrameBytes && animation.frames[0].width >= 200 / 3)
        #expect(budget.usage.now == 0)
    }

    @Test("A damaged container is not read as an animation")
    func damaged() async {
        #expect(AnimationHeader.read(Data("GIF89a".utf8), maxFrames: 10) == nil)
        #expect(AnimationHeader.read(Data(AnimatedPictures.gif(frames: 3).prefix(20)), maxFrames: 10) == nil)
        #expect(AnimationHeader.read(Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8X".utf8), maxFrames: 10) == nil)
    }
}
