import CGdkPixbuf
import CGLib

/// A sepia tone equal in effect to Core Image's CISepiaTone.
///
/// For each pixel (r, g, b) in 0…255, the full sepia colour is the classic sepia matrix,
/// each channel clamped to 255:
///
///     sr = min(255, 0.393 r + 0.769 g + 0.189 b)
///     sg = min(255, 0.349 r + 0.686 g + 0.168 b)
///     sb = min(255, 0.272 r + 0.534 g + 0.131 b)
///
/// and the output mixes it with the original by the intensity k (CISepiaTone's inputIntensity,
/// 0.8 in the tutorial), rounded to the nearest integer:
///
///     out = round((1 − k) · in + k · sepia)
///
/// Alpha is kept as it is. Example, k = 0.8: white (255, 255, 255) → (255, 255, 242);
/// pure red (255, 0, 0) → (131, 71, 55); mid grey (128, 128, 128) → (164, 149, 122).
public struct SepiaFilter: Sendable {
    public var intensity: Float

    public init(intensity: Float = 0.8) { self.intensity = intensity }

    /// The filtered colour of one pixel, per the formula above.
    public func apply(r: UInt8, g: UInt8, b: UInt8) -> (UInt8, UInt8, UInt8) {
        let (r, g, b) = (Float(r), Float(g), Float(b))
        let sr = min(255, 0.393 * r + 0.769 * g + 0.189 * b)
        let sg = min(255, 0.349 * r + 0.686 * g + 0.168 * b)
        let sb = min(255, 0.272 * r + 0.534 * g + 0.131 * b)
        let keep = 1 - intensity
        return (UInt8((keep * r + intensity * sr).rounded()),
                UInt8((keep * g + intensity * sg).rounded()),
                UInt8((keep * b + intensity * sb).rounded()))
    }

    /// A filtered copy of `image`, or nil if `isCancelled` turned true part-way.
    public func apply(to image: PhotoImage, isCancelled: () -> Bool = { false }) -> PhotoImage? {
        let copy = PhotoImage(taking: gdk_pixbuf_copy(image.pixbuf)!)
        let pixbuf = copy.pixbuf
        let width = Int(gdk_pixbuf_get_width(pixbuf)), height = Int(gdk_pixbuf_get_height(pixbuf))
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf)), channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        let pixels = gdk_pixbuf_get_pixels(pixbuf)!
        for y in 0..<height {
            if y % 64 == 0, isCancelled() { return nil }
            var p = pixels + y * stride
            for _ in 0..<width {
                (p[0], p[1], p[2]) = apply(r: p[0], g: p[1], b: p[2])
                p += channels
            }
        }
        return copy
    }
}
