/// Bounds on what the photo viewer decodes and reads.
///
/// The viewer decodes a photo at the size it shows it, and again at a larger size when zooming
/// in asks for one, up to the whole image: but never past `maxDecodedPixels`, however large
/// the image says it is. Every decode also keeps to the pipeline's limits (`PhotoLimits`): a
/// picture whose header claims more than `PhotoLimits.standardMaxPixels` is refused before any
/// decode, and decodes draw from the shared memory budget; this cap bounds what a zoom or a
/// save asks of a picture within those limits.
public enum ViewerLimits {
    /// The most pixels a viewer decode may have (width × height): 64 MP, 256 MB as RGBA.
    public static let maxDecodedPixels = 64_000_000
    /// The largest photo file the viewer reads into memory to decode (and decode again).
    public static let maxFileBytes = 128 << 20
    /// Photos of at least this many pixels show their embedded preview while they are decoded
    /// (a 4-megapixel JPEG takes 20 ms or more to decode here; a smaller one is decoded before
    /// a preview would be worth the blur).
    public static let previewMinPixels = 4_000_000

    /// The longest side to decode an image of `width`×`height` at, for a wanted longest side
    /// `wanted` (0: the whole image): never more than the image, nor than `maxDecodedPixels`.
    public static func decodeSide(width: Int, height: Int, wanted: Int) -> Int {
        let longest = max(width, height)
        guard longest > 0 else { return wanted }
        var side = wanted <= 0 ? longest : min(wanted, longest)
        let pixels =
            Double(width) * Double(height) * (Double(side) / Double(longest)) * (Double(side) / Double(longest))
        if pixels > Double(maxDecodedPixels) {
            side = Int((Double(side) * (Double(maxDecodedPixels) / pixels).squareRoot()).rounded(.down))
        }
        return max(1, side)
    }

    /// The side to decode again at when a photo of `width`×`height`, decoded with its longest
    /// side `decoded`, is shown at `zoom` (device pixels per image pixel): nil while the decode
    /// is sharp enough (within 5 %). Otherwise at least twice as large as before, up to the
    /// whole image and the pixel limit, so that zooming in step by step decodes a few times,
    /// not at every step.
    public static func largerDecodeSide(width: Int, height: Int, decoded: Int, zoom: Double) -> Int? {
        let natural = max(width, height)
        let needed = decodeSide(
            width: width, height: height, wanted: Int((Double(natural) * min(zoom, 1)).rounded(.up)))
        guard needed > decoded + decoded / 20 else { return nil }
        return decodeSide(width: width, height: height, wanted: min(natural, max(needed, decoded * 2)))
    }
}
