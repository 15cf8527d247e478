import CGLib
import Foundation
import GLibKit

/// What the details panel shows of a video on this computer: what its container says (its
/// length, codec and picture size, read by the decoder helper as it finds the video's frame),
/// its file's size, when it was recorded (the movie header's time, in this computer's zone:
/// phones write it in UTC), and where, where the phone wrote it.
public struct VideoDetails: Sendable, Equatable {
    public var facts: VideoFacts
    public var fileSize: Int
    /// In EXIF's form ("2021:07:04 18:30:05"), local time.
    public var recorded: String?
    /// Where it was recorded (degrees, north and east positive; metres above sea level).
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?

    /// The video at `url` (a local file): nil for any other address.
    public static func read(_ url: URL, cancellable: Cancellable) throws(PhotoFailure) -> VideoDetails? {
        guard url.isFileURL else { return nil }
        // Not held up by a FIFO or a device under a video's name (only a regular file is read).
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            throw PhotoFailure(.unreadable, detail: String(cString: strerror(errno)))
        }
        let stream = ObjectRef(taking: g_unix_input_stream_new(fd, 1)!)
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = Int(status.st_size)
        let header = VideoDate.header(file: fd, size: size)
        let recorded = header?.created.map { SortFacts.localTime(seconds: $0, separator: ":") }
        let (_, facts) = try Decoding.videoFrame(.stream(stream), size: .fit(64), cancellable: cancellable)
        let position = header?.position
        return VideoDetails(
            facts: facts, fileSize: size, recorded: recorded, latitude: position?.latitude,
            longitude: position?.longitude, altitude: position?.altitude)
    }
}
