import CGLib
import CGtk
import Foundation
import GLibKit
import PhotoPipeline

/// The viewer's Copy and Save As…: the photo shown goes on the clipboard as the texture shown;
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
    func copy(_ texture: ObjectRef<GObject>, from widget: UnsafeMutablePointer<GtkWidget>) {
        gdk_clipboard_set_texture(gtk_widget_get_clipboard(widget), texture.opaque)
        host.showToast("Photo copied", button: nil)
    }

    /// Asks where to save the photo named `name`, decoded from `bytes`, then saves it.
    func saveAs(name: String, bytes: Data, sepia: Bool) {
        let dialog = gtk_file_chooser_native_new(
            "Save Photo As", host.window, GTK_FILE_CHOOSER_ACTION_SAVE, "_Save", "_Cancel")!
        let base = (name as NSString).deletingPathExtension
        gtk_file_chooser_set_current_name(dialog, base + (sepia ? " (sepia)" : "") + ".png")
        for (title, patterns) in [("PNG image", ["*.png"]), ("JPEG image", ["*.jpg", "*.jpeg"])] {
            let filter = gtk_file_filter_new()!
            gtk_file_filter_set_name(filter, title)
            for pattern in patterns { gtk_file_filter_add_pattern(filter, pattern) }
            gtk_file_chooser_add_filter(dialog, filter)
            g_object_unref(UnsafeMutableRawPointer(filter))
        }
        let object = ObjectRef(takingOpaque: dialog)
        let response = SignalConnection.connect(
            object.pointer, "response",
            int: { [unowned self] response in
                var path: String?
                if response == GTK_RESPONSE_ACCEPT.rawValue, let file = gtk_file_chooser_get_file(dialog) {
                    if let p = g_file_get_path(file) { path = String(cString: p); g_free(p) }
                    g_object_unref(UnsafeMutableRawPointer(file))
                }
                chooser = nil
                if let path { save(bytes: bytes, sepia: sepia, to: path) }
            })
        chooser = (object, response)
        gtk_native_dialog_show(gtkCast(dialog))
    }

    private func save(bytes: Data, sepia: Bool, to path: String) {
        let name = (path as NSString).lastPathComponent
        Thread.detachNewThread { [weak self] in
            let result = PhotoSaving.save(bytes: bytes, sepia: sepia, to: path)
            MainLoop.onMainActor {
                switch result {
                case .success(let saved):
                    Trace.shared.emit(.viewerSaved(path: path, format: saved.format, w: saved.width, h: saved.height))
                    self?.host.showToast("Saved “\(name)”", button: nil)
                case .failure(let failure):
                    Trace.shared.emit(.viewerSaveFailed(path: path, error: failure.message))
                    self?.host.showToast("Could not save “\(name)”: \(failure.message)", button: nil)
                }
            }
        }
    }

    /// Closes a dialog still open (the window is closing).
    func shutDown() {
        chooser = nil
    }
}
