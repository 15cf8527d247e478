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
    /// Why the video cannot be played (GStreamer's words: a codec not installed, a damaged file).
    var onFailure: ((String) -> Void)?

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
        shown = id
        awaitingFirstFrame = Trace.shared.now
        widget.isVisible = true
        widget.setLoop(loops)
        widget.setFile(uri: url.absoluteString)
        guard let stream = widget.mediaStream else { return }
        stream.isMuted = muted
        streamSignals = [
            stream.connect("invalidate-contents") { [unowned self] in firstFrameShown() },
            stream.onNotify("error") { [unowned self] in
                guard let message = widget.mediaStream?.errorMessage else { return }
                onFailure?(message)
            },
        ]
    }

    /// Stops and lets go of the video (paging on, closing).
    func stop() {
        guard shown != nil else { return }
        streamSignals.removeAll()
        widget.setFile(uri: nil)
        widget.isVisible = false
        shown = nil
        awaitingFirstFrame = nil
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
        widget.setLoop(loops)
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
