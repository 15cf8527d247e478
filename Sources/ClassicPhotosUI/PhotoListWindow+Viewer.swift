import CGLib
import CGtk
import Foundation
import GLibKit
import PhotoPipeline

/// The window's side of the photo viewer: a row activated (a click, or Enter on the focused
/// row) opens it; the list behind follows the photo shown.
extension PhotoListWindow: PhotoViewerHost {
    func installViewer(in area: Widget<Overlay>) {
        viewer = PhotoViewer(host: self, pipeline: processor.makeViewerPipeline())
        area.addOverlay(viewer.root)
        list.setSingleClickActivate(true)
        connections.append(
            list.connect(
                "activate", int: { [unowned self] position in viewer.open(at: Int(UInt32(bitPattern: position))) }))
    }

    var viewerList: PhotoCollection { processor.photos }

    func viewerSnapshot(of id: PhotoID) -> PhotoSnapshot? { processor.snapshot(of: id) }

    func viewerMoved(to position: Int) {
        selection.selected = position
        list.scrollTo(position)
        refreshPhotoActions()
    }

    func setHeaderBarVisible(_ visible: Bool) {
        headerBar.isVisible = visible
    }

    func viewerClosed() {
        list.grabFocus()
        refreshPhotoActions()
    }
}
