import Synchronization
import PhotoPipeline
import Testing
import TestSupport

@Suite struct SepiaFilterTests {
    /// The documented formula, computed independently in Double.
    static func reference(_ r: Double, _ g: Double, _ b: Double, k: Double = 0.8) -> (Int, Int, Int) {
        let sr = min(255, 0.393 * r + 0.769 * g + 0.189 * b)
        let sg = min(255, 0.349 * r + 0.686 * g + 0.168 * b)
        let sb = min(255, 0.272 * r + 0.534 * g + 0.131 * b)
        func mix(_ c: Double, _ s: Double) -> Int { Int(((1 - k) * c + k * s).rounded()) }
        return (mix(r, sr), mix(g, sg), mix(b, sb))
    }

    @Test("Known pixels give the documented values")
    func documentedValues() {
        let filter = SepiaFilter(intensity: 0.8)
        #expect(filter.apply(r: 255, g: 255, b: 255) == (255, 255, 242))
        #expect(filter.apply(r: 255, g: 0, b: 0) == (131, 71, 55))
        #expect(filter.apply(r: 128, g: 128, b: 128) == (164, 149, 122))
        #expect(filter.apply(r: 0, g: 0, b: 0) == (0, 0, 0))
    }

    @Test("Every sampled colour matches the formula to within rounding")
    func matchesFormula() {
        let filter = SepiaFilter()
        for r in stride(from: 0, through: 255, by: 15) {
            for g in stride(from: 0, through: 255, by: 17) {
                for b in stride(from: 0, through: 255, by: 51) {
                    let got = filter.apply(r: UInt8(r), g: UInt8(g), b: UInt8(b))
                    let want = Self.reference(Double(r), Double(g), Double(b))
                    #expect(
                        abs(Int(got.0) - want.0) <= 1 && abs(Int(got.1) - want.1) <= 1 && abs(Int(got.2) - want.2) <= 1)
                }
            }
        }
    }

    @Test("Filtering an image changes every pixel as documented, keeps alpha, leaves the source alone")
    func filtersImage() throws {
        let pixels: [UInt8] = [255, 0, 0, 255, 128, 128, 128, 10, 255, 255, 255, 0, 0, 0, 0, 200]
        let image = PhotoImage.fromPixels(pixels, width: 2, height: 2, hasAlpha: true)
        let filtered = try #require(SepiaFilter().apply(to: image))
        #expect(filtered.pixel(x: 0, y: 0) == (131, 71, 55, 255))
        #expect(filtered.pixel(x: 1, y: 0) == (164, 149, 122, 10))
        #expect(filtered.pixel(x: 0, y: 1) == (255, 255, 242, 0))
        #expect(filtered.pixel(x: 1, y: 1) == (0, 0, 0, 200))
        #expect(image.pixel(x: 0, y: 0) == (255, 0, 0, 255))
    }

    @Test("A cancelled filter stops and returns nothing")
    func cancellation() {
        let image = PhotoImage.fromPixels(
            [UInt8](repeating: 90, count: 300 * 300 * 3), width: 300, height: 300, hasAlpha: false)
        #expect(SepiaFilter().apply(to: image, isCancelled: { true }) == nil)
    }

    @Test(
        "A camera-size image, filtered in bands on every core, equals the filter applied pixel by pixel",
        arguments: [false, true])
    func largeImageInBands(alpha: Bool) async throws {
        // Away from the threads tasks run on: under ThreadSanitizer the check takes 20 s.
        let mismatches = try await onOwnThread { Self.mismatchesFilteringInBands(alpha: alpha) }
        #expect(mismatches == 0, "nil: the filter returned nothing")
    }

    /// How many pixels the banded filter got wrong; nil if it returned nothing.
    private static func mismatchesFilteringInBands(alpha: Bool) -> Int? {
        // 1283 × 1001: over the parallel threshold, an odd width (RGB rows padded to 4 bytes)
        // and a last band shorter than the others.
        let (width, height, channels) = (1283, 1001, alpha ? 4 : 3)
        var state: UInt32 = 0x9E37_79B9
        let bytes = (0..<(width * height * channels)).map { _ -> UInt8 in
            state ^= state << 13; state ^= state >> 17; state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
        let image = PhotoImage.fromPixels(bytes, width: width, height: height, hasAlpha: alpha)
        let filter = SepiaFilter()
        guard let filtered = filter.apply(to: image) else { return nil }
        var mismatches = 0
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * channels
                let want = filter.apply(r: bytes[i], g: bytes[i + 1], b: bytes[i + 2])
                let got = filtered.pixel(x: x, y: y)
                if got.0 != want.0 || got.1 != want.1 || got.2 != want.2 || got.3 != (alpha ? bytes[i + 3] : 255) {
                    mismatches += 1
                }
            }
        }
        return mismatches
    }

    @Test("Cancelling a large image part-way, on several threads, returns nothing")
    func largeImageCancelled() {
        let image = PhotoImage.fromPixels(
            [UInt8](repeating: 90, count: 1500 * 1000 * 3), width: 1500, height: 1000, hasAlpha: false)
        let checks = Atomic<Int>(0)
        let result = SepiaFilter().apply(to: image, isCancelled: { checks.add(1, ordering: .relaxed).newValue > 3 })
        #expect(result == nil)
    }
}
