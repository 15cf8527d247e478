import GLibKit
import PhotoPipeline

/// Plays an animated photo's frames in the viewer, each for its own time, looping as the file
/// says. A GLib timeout waits out each frame, so nothing runs between frames, and nothing at
/// all while the picture is off screen (`pause`; `resume` when it is back).
@MainActor
final class FramePlayer {
    /// Shows a frame.
    private let show: (PhotoImage) -> Void
    /// Told of each frame change during the first two plays (at most `maxReported` per animation).
    private let frameChanged: (Int) -> Void
    /// Whether the picture is on screen.
    private let isOnScreen: () -> Bool
    private var playback: Playback?
    /// Wakes the player when the frame shown has had its time; nil while nothing plays (a still
    /// photo, the last play ended, or paused).
    private var frameTimer: MainLoopSource?

    /// Where an animation is: its frame shown, the plays finished, and the frame changes reported.
    private struct Playback {
        var animation: ViewerAnimation
        var frame = 0
        var playsDone = 0
        var reported = 0
        var finished: Bool { animation.plays != 0 && playsDone >= animation.plays }
    }

    /// Frame changes reported per animation, so one left playing does not fill the trace.
    static let maxReported = 100

    init(show: @escaping (PhotoImage) -> Void, frameChanged: @escaping (Int) -> Void, isOnScreen: @escaping () -> Bool)
    {
        self.show = show
        self.frameChanged = frameChanged
        self.isOnScreen = isOnScreen
    }

    /// The number of frames of what plays (0: nothing).
    var frameCount: Int { playback?.animation.frames.count ?? 0 }

    /// Plays `animation` from its first frame; or, when it is the other version (sepia or
    /// original) of the one playing, goes on with it from the same frame and timing.
    func play(_ animation: ViewerAnimation) {
        if var playback, playback.animation.frames.count == animation.frames.count {
            playback.animation = animation
            self.playback = playback
            show(animation.frames[playback.frame])
            return
        }
        playback = Playback(animation: animation)
        show(animation.frames[0])
        frameTimer = nil
        scheduleNextFrame()
    }

    func stop() {
        playback = nil
        frameTimer = nil
    }

    /// The picture left the screen: the frame shown stays until `resume`.
    func pause() {
        frameTimer = nil
    }

    func resume() {
        scheduleNextFrame()
    }

    private func scheduleNextFrame() {
        guard frameTimer == nil, let playback, !playback.finished, isOnScreen() else { return }
        let delay = UInt32(clamping: playback.animation.delays[playback.frame])
        frameTimer = MainLoopSource.onMainActor(.timeout(milliseconds: delay)) { [weak self] in
            self?.nextFrame()
            return .remove
        }
    }

    /// Shows the next frame; after the last, the first again, or the last stays when the
    /// animation has played as many times as it says.
    private func nextFrame() {
        frameTimer = nil
        guard var playback else { return }
        var next = playback.frame + 1
        if next == playback.animation.frames.count {
            playback.playsDone += 1
            next = 0
            if playback.finished {
                self.playback = playback
                return
            }
        }
        playback.frame = next
        show(playback.animation.frames[next])
        if playback.playsDone < 2, playback.reported < Self.maxReported {
            playback.reported += 1
            frameChanged(next)
        }
        self.playback = playback
        scheduleNextFrame()
    }
}
