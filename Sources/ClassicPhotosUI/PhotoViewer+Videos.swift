import GtkKit
import PhotoPipeline

/// The viewer's videos: a video's playing, a motion photo's clip, and a video that cannot play.
extension PhotoViewer {
    /// Plays `slot`'s video, or stops the one playing for a photo.
    /// A motion photo moved to plays its clip each time (at once if it was loaded ahead, else
    /// once it is decoded).
    func showVideo(of slot: Slot, moved: Bool) {
        let isVideo = slot.photo.entry.isVideo
        chrome.showVideo(isVideo)
        if isVideo {
            chrome.video.play(slot.photo.entry, id: slot.photo.id)
        } else if moved || chrome.video.shown != slot.photo.id {
            chrome.video.stop()
            chrome.showVideo(false)
            if moved { slot.clipPlayed = false }
            playMotionClip(of: slot)
        }
    }

    /// A motion photo shown, its clip found: the clip plays once (Space plays it again), or
    /// only on Space where the preference says so.
    func playMotionClip(of slot: Slot, again: Bool = false) {
        guard slot === current, again || (!slot.clipPlayed && ViewerVideo.playsClipsWhenShown),
            !slot.photo.entry.isVideo, let clip = slot.motionClip
        else {
            // Left for Space: the wait until then is the person's, not the player's.
            if !ViewerVideo.playsClipsWhenShown { awaitingClip = nil }
            return
        }
        slot.clipPlayed = true
        let since = awaitingClip.flatMap { $0.id == slot.photo.id ? $0.since : nil } ?? Trace.shared.now
        awaitingClip = nil
        chrome.showVideo(true)
        chrome.video.playClip(clip, id: slot.photo.id, since: since)
    }

    /// The video shown cannot be played: the failed placeholder says why.
    func videoFailed(_ message: String) {
        guard let slot = current, slot.photo.entry.isVideo else { return }
        chrome.video.stop()
        slot.failure = PhotoFailure(.damagedVideo, detail: message)
        refresh(slot)
    }
}
