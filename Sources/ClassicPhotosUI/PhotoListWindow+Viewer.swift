import CGLib
import CGtk
import Foundation
import GLibKit
import PhotoPipeline

/// The window's side of the photo viewer: a row activated (a click, or Enter on the focused
/// row) opens it; the list behind follows the photo shown.
extension PhotoListWindow: PhotoViewerHost {
    func installViewer(in area: UnsafeMutablePointer<GtkWidget>) {
        viewer = PhotoViewer(host: self, pipeline: processor.makeViewerPipeline())
        gtk_overlay_add_overlay(gtkCast(area), viewer.root)
        gtk_list_view_set_single_click_activate(gtkCast(listView), 1)
        connections.append(
            SignalConnection.connect(
                UnsafeMutableRawPointer(listView), "activate",
                int: { [unowned self] position in
                    viewer.open(at: Int(UInt32(bitPattern: position)))
                }))
    }

    var viewerList: PhotoCollection { processor.photos }

    func viewerSnapshot(of id: PhotoID) -> PhotoSnapshot? { processor.snapshot(of: id) }

    func viewerMoved(to position: Int) {
        gtk_single_selection_set_selected(selection, guint(position))
        gtk_widget_activate_action_variant(
            widget(listView), "list.scroll-to-item", g_variant_new_uint32(guint32(position)))
    }

    func setHeaderBarVisible(_ visible: Bool) {
        gtk_widget_set_visible(headerBar, visible ? 1 : 0)
    }

    func viewerClosed() {
        gtk_widget_grab_focus(widget(listView))
    }
}
