import Foundation

/// Animated pictures for the viewer's tests: real GIFs and WebPs written by ImageMagick, and
/// hostile GIFs built byte by byte (too many frames, a frame larger than its picture).
public enum AnimatedPictures {
    /// Runs ImageMagick's `convert` with `arguments`; false if it is missing or fails.
    @discardableResult
    public static func convert(_ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["convert"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// `convert`, waited for from a task on a thread of its own (see `onOwnThread`): tests that
    /// run side by side must not hold the threads tasks run on while ImageMagick works.
    public static func convert(_ arguments: [String]) async -> Bool {
        (try? await onOwnThread { convert(arguments) }) ?? false
    }

    /// `write`, waited for from a task on a thread of its own (see `convert`).
    public static func write(
        _ url: URL, colours: [String] = ["red", "lime", "blue"], width: Int = 64, height: Int = 48,
        delay: Int = 20
    ) async -> Bool {
        (try? await onOwnThread { write(url, colours: colours, width: width, height: height, delay: delay) }) ?? false
    }

    /// A `width`×`height` animation of one frame per colour (ImageMagick names: "red", "#00ff00"),
    /// `delay` hundredths of a second each, looping for ever, at `url` (GIF or WebP by its ending).
    @discardableResult
    public static func write(
        _ url: URL, colours: [String] = ["red", "lime", "blue"], width: Int = 64, height: Int = 48,
        delay: Int = 20
    ) -> Bool {
        var arguments = ["-delay", "\(delay)", "-size", "\(width)x\(height)"]
        arguments += colours.map { "xc:\($0)" }
        arguments += ["-loop", "0"]
        if url.pathExtension == "webp" { arguments += ["-define", "webp:lossless=true"] }
        return convert(arguments + [url.path])
    }

    /// Whether gdk-pixbuf can read WebP here (the webp-pixbuf-loader package).
    public static var hasWebPLoader: Bool {
        let roots = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
        return roots.contains { root in
            let folder = root + "/gdk-pixbuf-2.0/2.10.0/loaders"
            return (try? FileManager.default.contentsOfDirectory(atPath: folder))?.contains { $0.contains("webp") }
                ?? false
        }
    }

    /// Whether ImageMagick here writes animated WebPs (where its libwebp lacks the muxer it
    /// writes the first frame alone): tried once, on a small one.
    public static let writesAnimatedWebP: Bool = {
        let url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("classic-photos-webp-probe-\(UUID().uuidString).webp")
        defer { try? FileManager.default.removeItem(at: url) }
        return write(url) && isAnimatedWebP(url)
    }()

    /// Whether the WebP at `url` is an animation (a VP8X chunk with the animation flag and
    /// ANMF frames): ImageMagick writes only the first frame where its libwebp lacks the muxer.
    public static func isAnimatedWebP(_ url: URL) -> Bool {
        guard let data = try? Data(contentsOf: url), data.count > 30 else { return false }
        let bytes = [UInt8](data)
        return String(decoding: bytes[12..<16], as: UTF8.self) == "VP8X" && bytes[20] & 0x02 != 0
            && data.range(of: Data("ANMF".utf8)) != nil
    }

    /// A GIF of `frames` frames of 1×1 pixel (each a minimal LZW stream) on a `width`×`height`
    /// canvas, 20 ms each, looping for ever; `bigFrame` makes the second frame's descriptor
    /// claim that size (its data stays one pixel).
    public static func gif(frames: Int, width: Int = 64, height: Int = 48, bigFrame: (Int, Int)? = nil) -> Data {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        var bytes: [UInt8] = Array("GIF89a".utf8) + u16(width) + u16(height) + [0x80, 0, 0]
        bytes += [0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF] // two colours: red, blue
        bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        for n in 0..<frames {
            let (w, h) = n == 1 ? (bigFrame ?? (1, 1)) : (1, 1)
            bytes += [0x21, 0xF9, 4, 0x08, 2, 0, 0, 0] // graphic control: dispose to background, 20 ms
            bytes += [0x2C] + u16(n % max(1, width)) + u16(0) + u16(w) + u16(h) + [0]
            bytes += [2, 2, 0x44, 0x01, 0] // one pixel of colour 0: clear, 0, end
        }
        bytes.append(0x3B)
        return Data(bytes)
    }
}
