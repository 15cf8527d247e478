import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The viewer's Copy and Save As…: the photo shown goes on the clipboard as a texture, in sRGB;
/// Save As… asks where, then writes the photo at full size, in the version shown (sepia or
/// original), off the main thread (`PhotoSaving`), and says how it went in a toast.
@MainActor
final class ViewerExport {
    private unowned let host: any PhotoViewerHost
    private var chooser: (object: ObjectRef<GObject>, connection: SignalConnection)?

    init(host: any PhotoViewerHost) {
        self.host = host
    }

    /// Puts `texture` on `widget`'s clipboard.
    func copy(_ texture: ObjectRef<GObject>, from widget: Widget<some WidgetKind>) {
        widget.copyToClipboard(texture)
        host.showToast(tr("Photo copied"), button: nil)
    }

    /// Asks where to save the photo named `name`, decoded from `bytes`, then saves it.
    func saveAs(name: String, bytes: Data, sepia: Bool) {
        let object = Handle<FileChooserNative>.make(
            title: tr("Save Photo As"), parent: host.window, action: GTK_FILE_CHOOSER_ACTION_SAVE, accept: tr("_Save"),
            cancel: tr("_Cancel"))
        let dialog = Handle<FileChooserNative>(object)
        let base = (name as NSString).deletingPathExtension
        // TRANSLATORS: the name a sepia photo is saved under, from the photo's own name
        dialog.setCurrentName((sepia ? String(format: tr("%@ (sepia)"), base) : base) + ".png")
        for (title, patterns) in [(tr("PNG image"), ["*.png"]), (tr("JPEG image"), ["*.jpg", "*.jpeg"])] {
            dialog.addFilter(title, patterns: patterns)
        }
        let response = dialog.connect(
            "response",
            int: { [unowned self] response in
                let path = response == GTK_RESPONSE_ACCEPT.rawValue ? dialog.chosenPath : nil
                chooser = nil
                if let path { save(bytes: bytes, sepia: sepia, to: path) }
            })
        chooser = (object, response)
        dialog.show()
    }

    private func save(bytes: Data, sepia: Bool, to path: String) {
        let name = (path as NSString).lastPathComponent
        Thread.detachNewThread { [weak self] in
            let result = PhotoSaving.save(bytes: bytes, sepia: sepia, to: path)
            MainLoop.onMainActor {
                switch result {
                case .success(let saved):
                    Trace.shared.emit(.viewerSaved(path: path, format: saved.format, w: saved.width, h: saved.height))
                    self?.host.showToast(String(format: tr("Saved “%@”"), name), button: nil)
                case .failure(let failure):
                    Trace.shared.emit(.viewerSaveFailed(path: path, error: failure.message))
                    self?.host.showToast(
                        String(format: tr("Could not save “%1$@”: %2$@"), name, failure.message), button: nil)
                }
            }
        }
    }

    /// Closes a dialog still open (the window is closing).
    func shutDown() {
        chooser = nil
    }
}
