import Foundation

/// Videos made with Debian's ffmpeg for the tests, as phones and cameras write them: H.264 in
/// MP4 (the index at the end as a camera writes it, or at the start), VP9 in WebM, turned by
/// the container's matrix, with a creation time; and files that only look like videos.
public enum TestVideos {
    public struct Options: Sendable {
        public var width = 640
        public var height = 360
        public var seconds = 4
        /// ffmpeg's name of a colour ("red"), or nil for its test pattern.
        public var colour: String? = "red"
        /// Seconds of black before the colour (a fade-in, a lens cap).
        public var blackSeconds = 0
        /// The container's display rotation in degrees (phones held upright write 90).
        public var rotation = 0
        public var codec = "libx264"
        /// x264's speed preset, and frames from one keyframe to the next.
        public var preset = "veryfast"
        public var gop = 30
        /// The MP4's index at its start (`+faststart`) rather than its end.
        public var indexFirst = false
        /// A bitrate ("8M"), to make a file as large as a camera's; nil: ffmpeg's choice.
        public var bitrate: String? = nil
        public var creationTime: String? = nil
        /// Where it was recorded (ISO 6709, "+48.1374+011.5755/"): ffmpeg writes it as 3GPP's
        /// `loci` in an MP4, as `©xyz` in a MOV, and with `appleKeys` as an iPhone's metadata key.
        public var location: String? = nil
        public var appleKeys = false
        public var audio = false
        public init() {}
    }

    /// Writes a video as `options` say at `output` (its extension names the container).
    public static func make(_ output: URL, _ options: Options = Options()) async throws {
        let size = "\(options.width)x\(options.height)"
        let picture =
            options.colour.map { "color=c=\($0):size=\(size):rate=30:duration=\(options.seconds)" }
            ?? "testsrc2=size=\(size):rate=30:duration=\(options.seconds)"
        var arguments = ["-loglevel", "error", "-y"]
        if options.blackSeconds > 0 {
            arguments += ["-f", "lavfi", "-i", "color=c=black:size=\(size):rate=30:duration=\(options.blackSeconds)"]
        }
        arguments += ["-f", "lavfi", "-i", picture]
        if options.audio { arguments += ["-f", "lavfi", "-i", "sine=frequency=440:duration=\(options.seconds)"] }
        if options.blackSeconds > 0 {
            arguments += ["-filter_complex", "[0:v][1:v]concat=n=2:v=1[v]", "-map", "[v]"]
            if options.audio { arguments += ["-map", "2:a"] }
        }
        arguments += ["-c:v", options.codec, "-pix_fmt", "yuv420p", "-g", String(options.gop)]
        if options.codec == "libvpx-vp9" { arguments += ["-deadline", "realtime", "-cpu-used", "8"] }
        if options.codec == "libx264" { arguments += ["-preset", options.preset] }
        if let bitrate = options.bitrate { arguments += ["-b:v", bitrate, "-maxrate", bitrate, "-bufsize", bitrate] }
        if options.audio { arguments += ["-c:a", output.pathExtension == "webm" ? "libopus" : "aac"] }
        if options.indexFirst { arguments += ["-movflags", "+faststart"] }
        if let creationTime = options.creationTime { arguments += ["-metadata", "creation_time=\(creationTime)"] }
        if let location = options.location {
            arguments +=
                options.appleKeys
                ? ["-movflags", "use_metadata_tags", "-metadata", "com.apple.quicktime.location.ISO6709=\(location)"]
                : ["-metadata", "location=\(location)"]
        }
        // The display matrix is written when the streams are copied, not while encoding.
        let encoded =
            options.rotation == 0
            ? output
            : output.deletingLastPathComponent().appendingPathComponent(".unturned-" + output.lastPathComponent)
        try await ffmpeg(arguments + [encoded.path])
        if options.rotation != 0 {
            defer { try? FileManager.default.removeItem(at: encoded) }
            try await ffmpeg(
                [
                    "-loglevel", "error", "-y", "-i", encoded.path, "-c", "copy", "-metadata:s:v:0",
                    "rotate=\(options.rotation)", output.path,
                ])
        }
    }

    private static func ffmpeg(_ arguments: [String]) async throws {
        let result = try await run(URL(fileURLWithPath: "/usr/bin/ffmpeg"), arguments, timeout: 120)
        guard result.status == 0, let output = arguments.last, FileManager.default.fileExists(atPath: output) else {
            throw FormatFileError(message: "ffmpeg failed (\(result.status)): \(result.stderr)")
        }
    }

    /// Sound alone, in an MP4 container.
    public static func soundOnly(_ output: URL) async throws {
        try await ffmpeg([
            "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=duration=2", "-c:a", "aac", output.path,
        ])
    }

    /// `mp4` with its video's sample entry renamed `fourCC` (a codec nothing here decodes:
    /// "vvc1", H.266).
    public static func retagged(_ mp4: Data, as fourCC: String) -> Data {
        var bytes = [UInt8](mp4)
        guard let config = find(Array("avcC".utf8), in: bytes),
            let entry = find(Array("avc1".utf8), in: bytes, before: config)
        else { return mp4 }
        bytes.replaceSubrange(entry..<entry + 4, with: Array(fourCC.utf8.prefix(4)))
        return Data(bytes)
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], before end: Int? = nil) -> Int? {
        let last = (end ?? bytes.count) - needle.count
        guard last >= 0 else { return nil }
        let range = end == nil ? Array(0...last) : Array((0...last).reversed())
        return range.first { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    /// How a phone marks a motion photo's clip.
    public enum MotionStyle: Sendable, CaseIterable {
        /// Google's container directory (Pixel phones since 2021).
        case container
        /// Google's earlier `GCamera:MicroVideoOffset`.
        case microVideo
        /// Samsung's trailer: "MotionPhoto_Data", then the clip.
        case samsung
    }

    /// `jpeg` made a motion photo with `clip` (an MP4) after it, as `style` writes one; with
    /// `lying`, its XMP gives a length that does not lead to the clip.
    public static func motionPhoto(_ jpeg: Data, clip: Data, style: MotionStyle, lying: Bool = false) -> Data {
        let length = clip.count + (lying ? 1000 : 0)
        let description: String
        switch style {
        case .container:
            description = """
                GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1" GCamera:MotionPhotoPresentationTimestampUs="0">\
                <Container:Directory><rdf:Seq><rdf:li rdf:parseType="Resource">\
                <Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/>\
                </rdf:li><rdf:li rdf:parseType="Resource">\
                <Container:Item Item:Semantic="MotionPhoto" Item:Mime="video/mp4" Item:Length="\(length)"/>\
                </rdf:li></rdf:Seq></Container:Directory></rdf:Description>
                """
        case .microVideo:
            description = """
                GCamera:MicroVideo="1" GCamera:MicroVideoVersion="1" GCamera:MicroVideoOffset="\(length)"/>
                """
        case .samsung:
            description = "/>"
        }
        let packet = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" \
            xmlns:Container="http://ns.google.com/photos/1.0/container/" \
            xmlns:Item="http://ns.google.com/photos/1.0/container/item/" \(description)</rdf:RDF></x:xmpmeta>
            """
        let payload = Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(packet.utf8)
        let size = payload.count + 2
        var file = [UInt8](jpeg.prefix(2)) + [0xFF, 0xE1, UInt8(size >> 8), UInt8(size & 0xFF)] + payload
        file += jpeg.dropFirst(2)
        if style == .samsung { file += Array("MotionPhoto_Data".utf8) }
        file += clip
        // Samsung's own trailer after the clip (its directory of what the file holds).
        if style == .samsung { file += Array("SEFH".utf8) + [UInt8](repeating: 0, count: 400) + Array("SEFT".utf8) }
        return Data(file)
    }

    /// MP4 boxes, big-endian sizes: a box of `type` holding `body`.
    public static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + body.count)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + Array(type.utf8) + body
    }

    /// Hostile MP4s: boxes nested thousands deep; a sample table claiming a billion samples;
    /// a box claiming to be exabytes long.
    public static func hostile() -> [(name: String, bytes: Data)] {
        let ftyp = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2avc1mp41".utf8))
        var nested = box("free", [])
        for _ in 0..<5000 { nested = box("trak", nested) }
        let stsz = box("stsz", [0, 0, 0, 0, 0, 0, 0, 0, 0x3F, 0xFF, 0xFF, 0xFF])
        let stbl = box("stbl", stsz + box("stco", [0, 0, 0, 0, 0x3F, 0xFF, 0xFF, 0xFF]))
        let billion = box("moov", box("trak", box("mdia", box("minf", stbl))))
        // A 64-bit size (size field 1) of 2^62 bytes.
        let huge: [UInt8] =
            [0, 0, 0, 1] + Array("mdat".utf8) + [0x40, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 7, count: 64)
        return [
            ("nested", Data(ftyp + box("moov", nested))),
            ("billion-samples", Data(ftyp + billion)),
            ("exabyte-box", Data(ftyp + huge)),
        ]
    }
}
