import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The editor opened from the viewer, on the photo shown.
extension PhotoViewer {
    /// Opens the editor on the photo shown, once it is loaded: a JPEG on this computer (the
    /// photos it can save without decoding them); anything else is said in a toast.
    func startEditing() {
        guard let id = paging.shown, let slot = current, !editor.isOpen else { return }
        guard let picture = slot.picture, picture.animation == nil else {
            host.showToast(tr("The photo can be edited once it is loaded"), button: nil)
            return
        }
        guard let url = try? slot.photo.entry.resolvedURL(), url.isFileURL,
            PictureSignature.isJPEG(picture.bytes.prefix(4))
        else {
            host.showToast(tr("Only JPEG photos on this computer can be edited yet"), button: nil)
            return
        }
        slideshow.stop()
        chrome.popDownProperties()
        editor.open(
            PhotoEditor.Subject(
                id: id, path: url.path, name: slot.photo.name, picture: picture.original, width: picture.info.width,
                height: picture.info.height))
    }
}
