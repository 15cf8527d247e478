import CGLib
import CGtk
import GLibKit

// Videos: GTK's video widget, and the media stream it plays.

extension Handle where Kind == Video {
    /// A new video widget playing nothing.
    public static func make() -> Self { Self(made: gtk_video_new()) }

    /// Plays the file at `uri` (nil: nothing; the stream playing before is let go).
    public func setFile(uri: String?) {
        guard let uri else { return gtk_video_set_file(opaque, nil) }
        let file = ObjectRef<GObject>(takingOpaque: g_file_new_for_uri(uri))
        gtk_video_set_file(opaque, file.opaque)
    }

    /// Whether a file set plays as soon as it can.
    public func setAutoplay(_ autoplay: Bool) { gtk_video_set_autoplay(opaque, autoplay ? 1 : 0) }
    /// Whether the file set starts again at its end.
    public func setLoop(_ loop: Bool) { gtk_video_set_loop(opaque, loop ? 1 : 0) }

    /// The stream playing the file set, if any.
    public var mediaStream: Handle<MediaStream>? {
        gtk_video_get_media_stream(opaque).map { Handle<MediaStream>(UnsafeMutableRawPointer($0)) }
    }
}

extension Handle where Kind == MediaStream {
    private var stream: UnsafeMutablePointer<GtkMediaStream> { pointer() }

    public var isPlaying: Bool {
        get { gtk_media_stream_get_playing(stream) != 0 }
        nonmutating set { gtk_media_stream_set_playing(stream, newValue ? 1 : 0) }
    }
    public var isPrepared: Bool { gtk_media_stream_is_prepared(stream) != 0 }
    public var isMuted: Bool {
        get { gtk_media_stream_get_muted(stream) != 0 }
        nonmutating set { gtk_media_stream_set_muted(stream, newValue ? 1 : 0) }
    }
    public var isLooping: Bool {
        get { gtk_media_stream_get_loop(stream) != 0 }
        nonmutating set { gtk_media_stream_set_loop(stream, newValue ? 1 : 0) }
    }
    public var hasEnded: Bool { gtk_media_stream_get_ended(stream) != 0 }
    /// Where it is, and how long it is, in microseconds (0: not known).
    public var timestamp: Int { gtk_media_stream_get_timestamp(stream) }
    public var duration: Int { gtk_media_stream_get_duration(stream) }
    public var isSeekable: Bool { gtk_media_stream_is_seekable(stream) != 0 }
    public func seek(to microseconds: Int) { gtk_media_stream_seek(stream, microseconds) }
    /// Why it stopped, if it failed.
    public var errorMessage: String? {
        gtk_media_stream_get_error(stream).map { String(cString: $0.pointee.message) }
    }
    /// The size of its frames, once known (0 before).
    public var intrinsicWidth: Int32 { gdk_paintable_get_intrinsic_width(opaque) }
    public var intrinsicHeight: Int32 { gdk_paintable_get_intrinsic_height(opaque) }
}
