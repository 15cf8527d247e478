import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// A video in the viewer: GTK's video widget over the picture, played by GStreamer, with GTK's
/// own controls (play and pause, the position to seek along, the volume, fullscreen) and the
/// viewer's keys (Space plays and pauses, M mutes, L loops, Shift+Left and Shift+Right seek).
/// Paging away, closing the viewer or hiding the window stops it. A local file is read from
/// disk; one on a share or the web plays as it arrives.
@MainActor
final class ViewerVideo {
    let widget: Widget<Video>
    /// The video playing (or paused), and when it was opened (trace clock) until its first
    /// frame is shown.
    private(set) var shown: PhotoID?
    private var awaitingFirstFrame: Double?
    private var streamSignals: [SignalConnection] = []
    /// Whether videos start again at their end, kept from one video to the next.
    private var loops = false
    private var muted = false
    /// A motion photo's clip plays (muted, once) rather than a video, from this memory file.
    private(set) var isClip = false
    private var clipFile: Int32?
    /// Why the video cannot be played (GStreamer's words: a codec not installed, a damaged file).
    var onFailure: ((String) -> Void)?
    /// A motion photo's clip played to its end (or could not be played): the photo shows again.
    var onClipEnded: (() -> Void)?
    /// Whether a motion photo's clip plays as soon as the photo is shown (the preference
    /// `play-motion-photos`), or only on Space.
    static var playsClipsWhenShown = true

    init() {
        widget = Widget<Video>.make()
        widget.setAutoplay(true)
        widget.isVisible = false
        widget.setHorizontalExpand(true)
        widget.setVerticalExpand(true)
        widget.addCSSClass("viewer-video")
    }

    /// Plays `entry`'s video (the one shown already: nothing changes).
    func play(_ entry: PhotoEntry, id: PhotoID) {
        guard id != shown else { return }
        stop()
        guard let url = try? entry.resolvedURL() else {
            onFailure?(tr("The video’s address cannot be played"))
            return
        }
        start(uri: url.absoluteString, id: id, since: Trace.shared.now)
    }

    /// Plays a motion photo's clip once, muted, and then rests on the photo: a Google or
    /// Samsung photo's from a sealed memory file, a Live Photo's from the file beside it.
    /// `since` is when the photo was moved to.
    func playClip(_ clip: MotionClip, id: PhotoID, since: Double) {
        stop()
        // The last clip's memory file is closed only now: GStreamer opens a file by its path
        // on a thread of its own, and a descriptor closed at once could be a new file's by then.
        closeClipFile()
        guard let (uri, descriptor) = clip.playable() else { return }
        isClip = true
        clipFile = descriptor
        start(uri: uri, id: id, since: since)
    }

    /// Closes the last clip's memory file (the viewer closed, or another clip plays).
    func closeClipFile() {
        if let clipFile { close(clipFile) }
        clipFile = nil
    }

    private func start(uri: String, id: PhotoID, since: Double) {
        shown = id
        awaitingFirstFrame = since
        widget.isVisible = true
        widget.setLoop(loops && !isClip)
        widget.setFile(uri: uri)
        guard let stream = widget.mediaStream else { return }
        stream.isMuted = muted || isClip
        streamSignals = [
            stream.connect("invalidate-contents") { [unowned self] in firstFrameShown() },
            stream.onNotify("error") { [unowned self] in streamFailed() },
            stream.onNotify("ended") { [unowned self] in
                // A motion photo's clip played: the photo again.
                if isClip, widget.mediaStream?.hasEnded == true { clipEnded(id) }
            },
        ]
        // A stream can fail as it is made (no media backend): it said so before it was heard.
        if stream.errorMessage != nil { streamFailed() }
    }

    private func streamFailed() {
        guard let id = shown, let message = widget.mediaStream?.errorMessage else { return }
        if isClip { clipEnded(id) } else { onFailure?(message) }
    }

    /// The clip of `id` ended: stopped once the stream's signal is over, unless another
    /// video or clip plays by then.
    private func clipEnded(_ id: PhotoID) {
        MainLoop.onMainActor { [weak self] in
            guard let self, isClip, shown == id else { return }
            stop()
            onClipEnded?()
        }
    }

    /// Stops and lets go of the video (paging on, closing).
    func stop() {
        guard shown != nil else { return }
        streamSignals.removeAll()
        widget.setFile(uri: nil)
        widget.isVisible = false
        shown = nil
        awaitingFirstFrame = nil
        isClip = false
    }

    /// Space: plays a paused video, pauses a playing one (one that ended starts again).
    func togglePlaying() {
        guard let stream = widget.mediaStream else { return }
        if stream.hasEnded { stream.seek(to: 0) }
        stream.isPlaying.toggle()
    }

    func toggleMuted() {
        muted.toggle()
        widget.mediaStream?.isMuted = muted
    }

    func toggleLoop() {
        loops.toggle()
        widget.setLoop(loops && !isClip) // a clip plays once whatever videos do
    }

    /// Moves the position by `seconds` (back for a negative number), within the video.
    func seek(by seconds: Double) {
        guard let stream = widget.mediaStream, stream.isSeekable else { return }
        let target = stream.timestamp + Int(seconds * 1_000_000)
        stream.seek(to: min(max(0, target), max(0, stream.duration)))
    }

    private func firstFrameShown() {
        guard let since = awaitingFirstFrame, let id = shown,
            let stream = widget.mediaStream, stream.intrinsicWidth > 0
        else { return }
        awaitingFirstFrame = nil
        Trace.shared.emit(.viewerPlay(id: id, ms: (Trace.shared.now - since) * 1000))
    }
}
