import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The editor opened from the viewer, on the photo shown.
extension PhotoViewer {
    /// Opens the editor on the photo shown, once it is loaded: a photo on this computer, a JPEG
    /// (saved without decoding it), a picture gdk-pixbuf can write (PNG, TIFF, WebP, AVIF,
    /// BMP: saved again in its format) or a RAW file whose camera preview is a JPEG (saved as a
    /// JPEG copy); anything else is said in a toast.
    func startEditing() {
        guard let id = paging.shown, let slot = current, !editor.isOpen else { return }
        guard let picture = slot.picture, picture.animation == nil else {
            host.showToast(tr("The photo can be edited once it is loaded"), button: nil)
            return
        }
        guard let url = try? slot.photo.entry.resolvedURL(), url.isFileURL else {
            host.showToast(tr("Only photos on this computer can be edited"), button: nil)
            return
        }
        // A RAW file's picture is its camera's preview, a JPEG (edited, and saved as a JPEG
        // copy); the file itself is not one.
        let raw = RawPhoto.isRaw(url)
        guard
            PictureSignature.isJPEG(picture.bytes.prefix(4))
                || (!raw && ReencodedEdit.formats.contains(picture.info.format))
        else {
            host.showToast(tr("Pictures of this kind cannot be edited"), button: nil)
            return
        }
        slideshow.stop()
        host.hideDetails()
        editor.open(
            PhotoEditor.Subject(
                id: id, path: url.path, name: slot.photo.name, picture: picture.original, width: picture.info.width,
                height: picture.info.height, raw: raw))
        // Under the editor, which covers it, the viewer's picture would still be drawn (GTK's
        // software renderer copying its whole texture) in every frame the editor paints.
        self.picture.isVisible = false
    }
}
