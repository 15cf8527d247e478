import Foundation

/// What an animated GIF's or WebP's container says about its frames, read from the bytes
/// without decoding any pixel: the canvas, each frame's rectangle and delay, and how often it
/// loops.
///
/// The viewer reads it before it hands an animation to gdk-pixbuf, whose loaders take every
/// frame at its word: its GIF loader keeps each frame's compressed data (a list appended to
/// frame by frame) and allocates a frame's own size when compositing it, and the WebP loader
/// decodes every frame at the canvas size at once. Counting them first is what lets the
/// viewer refuse an animation that would cost too much before any of that happens.
public struct AnimationHeader: Sendable, Equatable {
    public enum Format: String, Sendable { case gif, webp }

    public struct Frame: Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// As the file says, in milliseconds (a GIF's hundredths times ten).
        public var delayMs: Int
    }

    public var format: Format
    public var canvasWidth: Int
    public var canvasHeight: Int
    public var frames: [Frame]
    /// How many times the animation plays; 0 for ever.
    public var plays: Int
    /// The file held more frames than were read (`maxFrames`).
    public var truncated: Bool

    public var isAnimated: Bool { frames.count > 1 }

    /// How long a frame shows when played: what the file says, except that 10 ms or less
    /// means 100 ms, as browsers play it (many GIFs say 0, meaning "as fast as possible", and
    /// were made to be seen at that speed).
    public static func playbackDelay(_ delayMs: Int) -> Int { delayMs <= 10 ? 100 : delayMs }

    /// Reads the header and frame list of a GIF or WebP in `bytes`, reading at most
    /// `maxFrames + 1` frames; nil for other formats or when the container is damaged before
    /// its first frame.
    public static func read(_ bytes: Data, maxFrames: Int) -> AnimationHeader? {
        bytes.withUnsafeBytes { raw -> AnimationHeader? in
            let b = raw.bindMemory(to: UInt8.self)
            if b.count >= 13, b.starts(with: PictureSignature.gif) { return readGIF(b, maxFrames: maxFrames) }
            if b.count >= 16, b[0..<4].elementsEqual(PictureSignature.riff),
                b[8..<12].elementsEqual(PictureSignature.webP)
            {
                return readWebP(b, maxFrames: maxFrames)
            }
            return nil
        }
    }

    private static func le16(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
    private static func le24(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int { le16(b, i) | Int(b[i + 2]) << 16 }
    private static func le32(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int { le24(b, i) | Int(b[i + 3]) << 24 }

    /// GIF: the logical screen, then blocks: extensions (0x21; a graphic control extension
    /// gives the next frame's delay, the NETSCAPE2.0 application extension the loop count),
    /// image descriptors (0x2C) with their colour table and data sub-blocks, the trailer (0x3B).
    /// A file cut short keeps the frames read so far, as gdk-pixbuf does.
    private static func readGIF(_ b: UnsafeBufferPointer<UInt8>, maxFrames: Int) -> AnimationHeader? {
        var header = AnimationHeader(
            format: .gif, canvasWidth: le16(b, 6), canvasHeight: le16(b, 8), frames: [],
            plays: 1, truncated: false)
        var i = 13
        if b[10] & 0x80 != 0 { i += 3 << ((Int(b[10]) & 7) + 1) }
        var delay = 0
        /// Skips data sub-blocks from `i`; false if the file ends first.
        func skipSubBlocks() -> Bool {
            while i < b.count {
                let size = Int(b[i])
                i += 1 + size
                if size == 0 { return i <= b.count }
            }
            return false
        }
        loop: while i < b.count {
            switch b[i] {
            case 0x21:
                guard i + 2 < b.count else { break loop }
                let label = b[i + 1]
                i += 2
                if label == 0xF9, i + 4 < b.count, b[i] >= 4 {
                    delay = le16(b, i + 2) * 10
                } else if label == 0xFF, i + 12 < b.count, b[i] == 11,
                    String(decoding: UnsafeBufferPointer(rebasing: b[(i + 1)..<(i + 12)]), as: UTF8.self)
                        == "NETSCAPE2.0"
                {
                    let sub = i + 12
                    if sub + 3 < b.count, b[sub] >= 3, b[sub + 1] == 1 {
                        // The count of repeats after the first play; 0 for ever.
                        let repeats = le16(b, sub + 2)
                        header.plays = repeats == 0 ? 0 : repeats + 1
                    }
                }
                guard skipSubBlocks() else { break loop }
            case 0x2C:
                guard i + 10 <= b.count else { break loop }
                let frame = Frame(width: le16(b, i + 5), height: le16(b, i + 7), delayMs: delay)
                let flags = b[i + 9]
                i += 10
                if flags & 0x80 != 0 { i += 3 << ((Int(flags) & 7) + 1) }
                i += 1 // LZW minimum code size
                guard header.frames.count < maxFrames else {
                    header.truncated = true
                    break loop
                }
                header.frames.append(frame)
                delay = 0
                guard skipSubBlocks() else { break loop }
            default:
                break loop // the trailer, or bytes gdk-pixbuf would not read further either
            }
        }
        return header.frames.isEmpty ? nil : header
    }

    /// WebP: RIFF chunks after "WEBP". An animation has a VP8X chunk with the animation flag
    /// and the canvas size, an ANIM chunk with the loop count (0: for ever) and one ANMF
    /// chunk per frame (its size and duration). A still WebP gives nil.
    private static func readWebP(_ b: UnsafeBufferPointer<UInt8>, maxFrames: Int) -> AnimationHeader? {
        var header = AnimationHeader(
            format: .webp, canvasWidth: 0, canvasHeight: 0, frames: [], plays: 0, truncated: false)
        var animated = false
        var i = 12
        let end = min(b.count, 8 + le32(b, 4))
        while i + 8 <= end {
            let tag = String(decoding: UnsafeBufferPointer(rebasing: b[i..<(i + 4)]), as: UTF8.self)
            let size = le32(b, i + 4)
            let body = i + 8
            guard size >= 0, body + size <= end else { break }
            switch tag {
            case "VP8X" where size >= 10:
                animated = b[body] & 0x02 != 0
                header.canvasWidth = le24(b, body + 4) + 1
                header.canvasHeight = le24(b, body + 7) + 1
            case "ANIM" where size >= 6:
                header.plays = le16(b, body + 4)
            case "ANMF" where size >= 16:
                guard header.frames.count < maxFrames else {
                    header.truncated = true
                    return header
                }
                header.frames.append(
                    Frame(
                        width: le24(b, body + 6) + 1, height: le24(b, body + 9) + 1,
                        delayMs: le24(b, body + 12)))
            case "VP8 ", "VP8L":
                return nil // a still picture's data at the top level: no frames
            default: break
            }
            i = body + size + (size & 1)
        }
        guard animated, header.canvasWidth > 0, !header.frames.isEmpty else { return nil }
        return header
    }
}
