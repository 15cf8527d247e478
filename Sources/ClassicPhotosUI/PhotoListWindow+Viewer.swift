import CGLib
import CGtk
import Foundation
import GLibKit
import PhotoPipeline

/// The window's side of the photo viewer: a row activated (a click, or Enter on the focused
/// row) opens it; the list behind follows the photo shown.
extension PhotoListWindow: PhotoViewerHost {
    func installViewer(in area: UnsafeMutablePointer<GtkWidget>, fetcher: PhotoFetcher) {
        let pipeline = ViewerPipeline(fetcher: fetcher, pendingOperations: processor.pendingOperations)
        viewer = PhotoViewer(host: self, pipeline: pipeline)
        gtk_overlay_add_overlay(gtkCast(area), viewer.root)
        gtk_list_view_set_single_click_activate(gtkCast(listView), 1)
        connections.append(SignalConnection.connect(UnsafeMutableRawPointer(listView), "activate", int: { [unowned self] position in
            viewer.open(at: Int(UInt32(bitPattern: position)))
        }))
    }

    var photoCount: Int { processor.photos.count }

    func viewerRecord(at position: Int) -> PhotoRecord? {
        guard position >= 0, position < processor.photos.count else { return nil }
        return processor.photos.record(for: processor.photos.id(at: position))
    }

    func viewerPosition(of id: PhotoID) -> Int? { processor.photos.position(of: id) }

    func viewerMoved(to position: Int) {
        gtk_single_selection_set_selected(selection, guint(position))
        gtk_widget_activate_action_variant(widget(listView), "list.scroll-to-item", g_variant_new_uint32(guint32(position)))
    }

    func setHeaderBarVisible(_ visible: Bool) {
        gtk_widget_set_visible(headerBar, visible ? 1 : 0)
    }

    func viewerClosed(at position: Int) {
        gtk_widget_grab_focus(widget(listView))
    }
}
