import CGdkPixbuf
import CGLib
import Foundation
import Synchronization

/// A sepia tone, in place of the Core Image filter the tutorial uses (CISepiaTone at
/// intensity 0.8).
///
/// Apple does not publish CISepiaTone's kernel, so this is not a copy of it and is not claimed
/// to give the same pixels: it is the common sepia approximation, the matrix widely used for
/// sepia effects, mixed with the original. For each pixel (r, g, b) in 0…255, the full sepia
/// colour is that matrix applied, each channel clamped to 255:
///
///     sr = min(255, 0.393 r + 0.769 g + 0.189 b)
///     sg = min(255, 0.349 r + 0.686 g + 0.168 b)
///     sb = min(255, 0.272 r + 0.534 g + 0.131 b)
///
/// and the output mixes it with the original by the intensity k (0.8 by default, the value
/// the tutorial gives CISepiaTone's intensity), rounded to the nearest integer:
///
///     out = round((1 − k) · in + k · sepia)
///
/// Alpha is kept as it is. Example, k = 0.8: white (255, 255, 255) → (255, 255, 242);
/// pure red (255, 0, 0) → (131, 71, 55); mid grey (128, 128, 128) → (164, 149, 122).
///
/// It is computed in 16.16 fixed point, with k folded into the matrix:
///
///     out = (K · in + min(255 k · 2¹⁶, M_k · (r, g, b)) + 2¹⁵) >> 16
///
/// where M_k is the matrix times k and K is (1 − k), both scaled by 2¹⁶ and rounded. Against
/// the formula in exact arithmetic, at k = 0.8, the result is exact for all but 26,057 of the
/// 16,777,216 colours (0.16 %), and those are off by one in one channel (a rounding tie
/// resolved the other way); the worked values above are exact. Integer arithmetic with no
/// conversions keeps the inner loop at a few cycles per pixel, and large images are split in
/// bands filtered on every core.
public struct SepiaFilter: Sendable {
    public let intensity: Float
    /// M_k's rows (red, green, blue output), in Q16.
    private let red: (Int32, Int32, Int32), green: (Int32, Int32, Int32), blue: (Int32, Int32, Int32)
    /// 1 − k and 255 k, in Q16.
    private let keep: Int32, ceiling: Int32

    /// Images with at least this many pixels are filtered on several threads at once.
    static let parallelPixels = 1 << 20

    public init(intensity: Float = 0.8) {
        self.intensity = intensity
        func q(_ x: Float) -> Int32 { Int32((x * intensity * 65_536).rounded()) }
        red = (q(0.393), q(0.769), q(0.189))
        green = (q(0.349), q(0.686), q(0.168))
        blue = (q(0.272), q(0.534), q(0.131))
        keep = Int32(((1 - intensity) * 65_536).rounded())
        ceiling = q(255)
    }

    /// The filtered colour of one pixel, per the formula above.
    public func apply(r: UInt8, g: UInt8, b: UInt8) -> (UInt8, UInt8, UInt8) {
        var pixel = [r, g, b]
        pixel.withUnsafeMutableBufferPointer { filterRow($0.baseAddress!, width: 1, channels: 3) }
        return (pixel[0], pixel[1], pixel[2])
    }

    /// A filtered copy of `image`, or nil if `isCancelled` turned true part-way. The source is
    /// left alone (it may be on screen, and textures share a pixbuf's pixels).
    public func apply(to image: PhotoImage, isCancelled: @Sendable () -> Bool = { false }) -> PhotoImage? {
        let copy = PhotoImage(taking: gdk_pixbuf_copy(image.pixbuf)!)
        return applyInPlace(copy, isCancelled: isCancelled) ? copy : nil
    }

    /// Filters `image`'s own pixels; only for a pixbuf nothing else can see yet (no texture
    /// made from it). False if `isCancelled` turned true part-way (the pixels are then part
    /// filtered). `threads` caps the threads used (all cores by default).
    public func applyInPlace(
        _ image: PhotoImage, threads: Int? = nil, isCancelled: @Sendable () -> Bool = { false }
    ) -> Bool {
        let cap = threads
        let pixbuf = image.pixbuf
        let width = Int(gdk_pixbuf_get_width(pixbuf)), height = Int(gdk_pixbuf_get_height(pixbuf))
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf)), channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        let pixels = UnsafeSendablePixels(base: gdk_pixbuf_get_pixels(pixbuf)!)
        // Bands of 64 rows: the unit of cancellation checks, and of work shared between threads.
        let bandRows = 64
        let bands = (height + bandRows - 1) / bandRows
        return withoutActuallyEscaping(isCancelled) { isCancelled in
            let filterBand: @Sendable (Int) -> Bool = { band in
                if isCancelled() { return false }
                for y in (band * bandRows)..<min(height, (band + 1) * bandRows) {
                    filterRow(pixels.base + y * stride, width: width, channels: channels)
                }
                return true
            }
            guard width * height >= Self.parallelPixels else {
                return (0..<bands).allSatisfy(filterBand)
            }
            let threads = max(1, min(bands, cap ?? ProcessInfo.processInfo.activeProcessorCount))
            let cancelled = CancelFlag()
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                // Interleaved bands: each thread takes every `threads`-th one.
                for band in Swift.stride(from: thread, to: bands, by: threads) where !filterBand(band) {
                    cancelled.set()
                    return
                }
            }
            return !cancelled.isSet
        }
    }

    /// Filters one row of `width` pixels of `channels` bytes (RGB or RGBA) in place.
    @inline(__always)
    private func filterRow(_ row: UnsafeMutablePointer<UInt8>, width: Int, channels: Int) {
        let (keep, ceiling) = (keep, ceiling)
        let (red, green, blue) = (red, green, blue)
        var p = row
        for _ in 0..<width {
            let r = Int32(p[0]), g = Int32(p[1]), b = Int32(p[2])
            let sr = min(ceiling, red.0 &* r &+ red.1 &* g &+ red.2 &* b)
            let sg = min(ceiling, green.0 &* r &+ green.1 &* g &+ green.2 &* b)
            let sb = min(ceiling, blue.0 &* r &+ blue.1 &* g &+ blue.2 &* b)
            p[0] = UInt8(truncatingIfNeeded: (keep &* r &+ sr &+ 32_768) &>> 16)
            p[1] = UInt8(truncatingIfNeeded: (keep &* g &+ sg &+ 32_768) &>> 16)
            p[2] = UInt8(truncatingIfNeeded: (keep &* b &+ sb &+ 32_768) &>> 16)
            p += channels
        }
    }
}

/// A pixbuf's pixel memory, written by several threads in disjoint rows.
private struct UnsafeSendablePixels: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>
}

/// Set by whichever thread sees the cancellation first.
private final class CancelFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}
