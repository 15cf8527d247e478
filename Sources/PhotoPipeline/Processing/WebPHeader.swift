import Foundation

/// What a WebP file's first bytes say before its loader sees them: an animation's canvas and
/// frames, which gdk-pixbuf's loader composites each at the canvas's size, and the colour
/// profile an extended WebP carries.
enum WebPHeader {
    /// An animated WebP's canvas, and the bytes a pixel of it takes while decoded: the loader
    /// composites every frame at the canvas's size, so all of them are counted, and together
    /// they may hold at most `maxPixels` (a million tiny frames on a big canvas would otherwise
    /// be cheap to send and ruinous to decode).
    static func animationCanvas(
        of header: [UInt8], maxPixels: Int
    ) throws(PhotoFailure) -> (width: Int, height: Int, bytesPerPixel: Int) {
        guard let animation = AnimationHeader.read(Data(header), maxFrames: 10_000),
            let canvas = PictureSignature.webPSize(header)
        else {
            throw PhotoFailure(
                .damaged(format: "WebP"),
                detail: "The animated WebP's frames could not be read")
        }
        let frames = max(1, animation.frames.count) + 1
        let pixels = canvas.width.multipliedReportingOverflow(by: canvas.height)
        let all = pixels.partialValue.multipliedReportingOverflow(by: frames)
        guard !pixels.overflow, !all.overflow, all.partialValue <= maxPixels, !animation.truncated else {
            throw PhotoFailure(
                .tooManyPixels,
                detail: "\(animation.frames.count) frames of \(canvas.width)×\(canvas.height) "
                    + "are more pixels than a photo may have")
        }
        return (canvas.width, canvas.height, 4 * frames)
    }

    /// An extended WebP's colour profile from its first bytes (at least 38), and whether there
    /// is no need to look again with more of them: its ICCP chunk comes right after VP8X, so
    /// the look ends once it is found, or when the file says it has none, or after 1 MB.
    static func profile(_ header: [UInt8]) -> (profile: Data?, settled: Bool) {
        guard header[12..<16].elementsEqual("VP8X".utf8), header[20] & 0x20 != 0,
            header[0..<4].elementsEqual("RIFF".utf8)
        else { return (nil, true) }
        let profile = PictureSignature.webPProfile(header)
        return (profile, profile != nil || header.count >= 1 << 20)
    }
}
