import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The real main window, driven from outside the module by out-of-process checks (the
/// `glibkit-probe` window lifecycle scenario): make it, fill it with the bundled list, count its
/// rows, then destroy it and let the caller check that everything it made was freed.
/// The app itself does not use this.
@MainActor
public final class WindowDiagnostics {
    private var window: PhotoListWindow?
    /// Watches on the window's own GObjects, by name: each must be finalized once the window
    /// is destroyed.
    public let watches: [String: FinalizationWatch]

    /// Makes the main window for `application`, which must be a `GtkApplication` (not yet
    /// shown).
    public init(application: UnsafeMutableRawPointer) {
        let window = PhotoListWindow(
            application: Handle(checking: application), settings: AppSettings(), http: HTTPClient())
        self.window = window
        watches = [
            "window": FinalizationWatch(window.window.widget),
            "store": FinalizationWatch(UnsafeMutablePointer<GObject>(window.photos.model)),
            "listView": FinalizationWatch(UnsafeMutablePointer<GObject>(window.listView)),
        ]
    }

    /// Shows the window and starts loading the bundled photo list; false if there is none.
    public func presentBundledList() -> Bool {
        guard let window else { return false }
        window.window.present()
        guard let list = AppResources.bundledList(.current) else { return false }
        window.open([PhotoSources.source(for: list.path, relativeTo: list.deletingLastPathComponent())])
        return true
    }

    /// The number of rows intersecting the viewport.
    public var visibleRowCount: Int { window?.pane.visibleRows().count ?? 0 }

    /// The number of row widgets the list view has made.
    public var rowWidgetCount: Int { window?.pane.rowWidgetCount ?? 0 }

    /// Closes the window (cancelling its work), destroys it and lets go of it.
    public func destroy() {
        guard let window else { return }
        window.close()
        window.window.destroy()
        self.window = nil
    }
}
