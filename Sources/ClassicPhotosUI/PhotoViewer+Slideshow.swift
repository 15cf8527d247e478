import CGLib
import CGtk
import Foundation
import GLibKit
import PhotoPipeline

/// The viewer's slideshow (F5) and fullscreen (F11).
extension PhotoViewer {
    // MARK: Slideshow

    /// Starts the slideshow from the photo shown, fullscreen.
    func startSlideshow() {
        guard isOpen, !isClosing, !slideshow.isRunning else { return }
        fullscreenBeforeSlideshow = isFullscreen
        if !isFullscreen { toggleFullscreen() }
        host.hideDetails()
        slideshow.start()
    }

    func stopSlideshow() {
        guard slideshow.isRunning else { return }
        slideshow.stop()
        if isFullscreen, !fullscreenBeforeSlideshow { toggleFullscreen() }
    }

    /// The next photo, or the first after the last.
    func advanceSlideshow() {
        guard isOpen, !isClosing, let position = paging.position else { return }
        if position + 1 < photos.count {
            apply(paging.step(1, in: photos))
        } else {
            apply(paging.open(at: 0, in: photos))
        }
    }

    /// A key during the slideshow: Escape and F5 stop it; Left and Right move, and the interval
    /// starts again; any other key pauses it for a moment.
    func slideshowKey(_ keyval: UInt32) -> Bool {
        switch Int32(bitPattern: keyval) {
        case GDK_KEY_Escape, GDK_KEY_F5:
            stopSlideshow()
        case GDK_KEY_Left, GDK_KEY_KP_Left, GDK_KEY_Page_Up:
            apply(paging.step(-1, in: photos))
            slideshow.restartInterval()
        case GDK_KEY_Right, GDK_KEY_KP_Right, GDK_KEY_Page_Down:
            advanceSlideshow()
            slideshow.restartInterval()
        case GDK_KEY_Shift_L, GDK_KEY_Shift_R, GDK_KEY_Control_L, GDK_KEY_Control_R, GDK_KEY_Alt_L, GDK_KEY_Alt_R:
            return false
        default:
            slideshow.userActed()
        }
        return true
    }

    // MARK: Fullscreen

    func toggleFullscreen() {
        isFullscreen.toggle()
        host.setHeaderBarVisible(!isFullscreen)
        host.window.setFullscreen(isFullscreen)
        chrome.showFullscreen(isFullscreen)
    }
}
