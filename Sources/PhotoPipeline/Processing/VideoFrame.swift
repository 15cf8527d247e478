import CGdkPixbuf
import CGLib
import CVideoFrames
import Foundation
import GLibKit

/// Videos: which files are ones (by their names, as RAW files are), and the frame that stands
/// for one in the list, read with FFmpeg's demuxers and decoders (`cp_video_frame_read`) in a
/// decoder helper: the container's index and one keyframe, a few percent of the file at most.
public enum VideoFile {
    /// The containers phones and cameras record into that GStreamer in Debian plays.
    static let extensions: Set<String> = ["mp4", "m4v", "mov", "webm", "mkv", "3gp", "3g2", "avi"]

    /// Whether `url` names a video.
    public static func isVideo(_ url: URL) -> Bool { isVideo(extension: url.pathExtension) }

    static func isVideo(extension name: some StringProtocol) -> Bool {
        name.count <= 4 && extensions.contains(name.lowercased())
    }

    /// The same for an extension's bytes, without making a string (counting the videos of a
    /// list of 100,000 asks it of every name).
    static func isVideo(extensionBytes bytes: some Collection<UInt8>) -> Bool {
        guard (1...4).contains(bytes.count) else { return false }
        // Begun at 1, so that a NUL before the letters is not the same extension.
        var packed: UInt64 = 1
        for byte in bytes {
            // ASCII letters to lower case; anything else is no extension of these.
            guard byte < 0x80 else { return false }
            packed = packed << 8 | UInt64((0x41...0x5A).contains(byte) ? byte | 0x20 : byte)
        }
        return packedExtensions.contains(packed)
    }

    private static let packedExtensions: Set<UInt64> = Set(
        extensions.map { $0.utf8.reduce(UInt64(1)) { $0 << 8 | UInt64($1) } })

    /// How many bytes finding a frame may read: a camera's hour-long clip's index is a few
    /// megabytes, a 4K keyframe a few more; past this a file is not what it says it is.
    public static let maxRead = 96 << 20

    /// The key under which a thumbnail keeps its video's length in whole seconds, as the
    /// desktop's thumbnail specification names it (a file manager's thumbnails carry it too).
    static let lengthOption = "tEXt::Thumb::Movie::Length"
    /// The key under which a thumbnail says it is a motion photo's (this app's own).
    static let motionOption = "tEXt::X-Classic-Photos::Motion"
}

/// What a video's container says about it, besides its frame.
public struct VideoFacts: Sendable, Equatable, Codable {
    /// Seconds, where the container says.
    public var duration: Double?
    /// When it was recorded, as the container wrote it (see `cp_video_frame.created`).
    public var created: String?
    /// The codec as people call it ("H.264").
    public var codec: String
    /// The picture's size as shown.
    public var width: Int
    public var height: Int
    /// Bytes of the file read to find the frame.
    public var bytesRead: Int
}

extension PhotoImage {
    /// The length of the video this picture is a frame of, in whole seconds (nil: a photo's).
    public var videoSeconds: Int? {
        gdk_pixbuf_get_option(pixbuf, VideoFile.lengthOption).flatMap { Int(String(cString: $0)) }
    }

    /// Marks this picture as a frame of a video `seconds` long.
    func markVideo(seconds: Int) {
        gdk_pixbuf_remove_option(pixbuf, VideoFile.lengthOption)
        gdk_pixbuf_set_option(pixbuf, VideoFile.lengthOption, String(seconds))
    }

    /// Whether this picture is of a motion photo (a "Live" badge on its row), and where its
    /// clip is; nil where that was not looked into.
    public var motion: MotionMark? {
        gdk_pixbuf_get_option(pixbuf, VideoFile.motionOption).flatMap { MotionMark(option: String(cString: $0)) }
    }

    public var isMotion: Bool? { motion.map { $0 != .none } }

    func markMotion(_ motion: MotionMark) {
        gdk_pixbuf_remove_option(pixbuf, VideoFile.motionOption)
        gdk_pixbuf_set_option(pixbuf, VideoFile.motionOption, motion.option)
    }

    /// What this picture says of its video (its length) or motion photo, put on `other` (a
    /// copy or a scaled picture of it).
    func passVideoMarks(to other: PhotoImage) {
        guard other !== self else { return }
        if let seconds = videoSeconds { other.markVideo(seconds: seconds) }
        if let motion { other.markMotion(motion) }
    }
}

public enum VideoFrame {
    /// Caps each allocation FFmpeg makes in this process (a decoder helper's).
    public static func limitAllocations(_ bytes: UInt64) { cp_video_limit_allocations(bytes) }

    /// The frame of the video on `fd` that stands for it, at `size`, and what its container says.
    static func read(
        _ fd: Int32, size: DecodeSize, limits: DecodeLimits, cancellable: Cancellable
    ) throws(PhotoFailure) -> (PhotoImage, VideoFacts) {
        // Large enough for the size asked for whatever the video's shape (a square is cut
        // from a picture up to twice as wide as high); the pixbuf then scales it exactly.
        let side =
            switch size {
            case .fit(let side): side
            case .square(let side): min(2 * side, 1024)
            case .thumbnail: 1024
            }
        var frame = cp_video_frame()
        let status = cp_video_frame_read(
            fd, Int32(clamping: side), Int64(limits.maxPixels), Int64(VideoFile.maxRead), cancellable.pointer, &frame)
        defer { cp_video_frame_clear(&frame) }
        let facts = VideoFacts(
            duration: frame.duration >= 0 ? frame.duration : nil,
            created: text(of: &frame.created).flatMap { $0.isEmpty ? nil : $0 },
            codec: codecName(text(of: &frame.codec) ?? ""), width: Int(frame.video_width),
            height: Int(frame.video_height), bytesRead: Int(frame.bytes_read))
        let message = text(of: &frame.message) ?? ""
        switch Int(status) {
        case CP_VIDEO_OK: break
        case CP_VIDEO_CANCELLED: throw PhotoFailure.cancelled
        case CP_VIDEO_NO_DECODER: throw PhotoFailure(.codecMissing(codec: facts.codec), detail: message)
        case CP_VIDEO_TOO_LARGE: throw PhotoFailure(.tooLarge, detail: message)
        default: throw PhotoFailure(.damagedVideo, detail: message)
        }
        guard let pixels = frame.pixels,
            let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, frame.width, frame.height)
        else { throw PhotoFailure(.tooManyPixels, detail: "No memory for the video's frame") }
        let image = PhotoImage(taking: pixbuf)
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let target = gdk_pixbuf_get_pixels(pixbuf)!
        for row in 0..<Int(frame.height) {
            memcpy(target + row * stride, pixels + row * Int(frame.stride), Int(frame.width) * 3)
        }
        let (width, height) = ImageDecoder.scaledSize(width: image.width, height: image.height, for: size)
        var shaped = image
        if width != image.width || height != image.height,
            let scaled = gdk_pixbuf_scale_simple(pixbuf, Int32(width), Int32(height), GDK_INTERP_BILINEAR)
        {
            shaped = PhotoImage(taking: scaled)
        }
        if case .square(let side) = size { shaped = ImageDecoder.centreSquare(of: shaped, side: side) }
        shaped.markVideo(seconds: Int((facts.duration ?? 0).rounded()))
        return (shaped, facts)
    }

    /// A fixed-size C character array's text.
    private static func text<T>(of array: inout T) -> String? {
        withUnsafeBytes(of: &array) { bytes in
            let characters = bytes.prefix { $0 != 0 }
            return String(validating: characters, as: UTF8.self)
        }
    }

    /// FFmpeg's short name of a codec as people know it ("hevc": "H.265").
    static func codecName(_ name: String) -> String {
        switch name {
        case "h264", "avc1": "H.264"
        case "hevc", "hvc1", "hev1": "H.265"
        case "vvc", "vvc1", "vvi1": "H.266"
        case "vp8": "VP8"
        case "vp9": "VP9"
        case "av1": "AV1"
        case "mpeg4": "MPEG-4"
        case "mpeg2video": "MPEG-2"
        case "mpeg1video": "MPEG-1"
        case "prores": "ProRes"
        case "mjpeg": "Motion JPEG"
        case "theora": "Theora"
        case "h263": "H.263"
        case "": "Unknown"
        default: name.trimmingCharacters(in: .whitespaces).uppercased()
        }
    }
}
