import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The window's side of the photo viewer: a row activated (a click, or Enter on the focused
/// row) opens it; the list behind follows the photo shown. And of the compare view.
extension PhotoListWindow: PhotoViewerHost, PhotoCompareHost {
    func installViewer(in area: Widget<Overlay>) {
        viewer = PhotoViewer(host: self, photos: photos, processor: processor)
        area.addOverlay(viewer.root)
        // The alt text of the photo shown, once read or edited, is what its picture says.
        altTexts.observe { [weak viewer] id in
            if let viewer, let current = viewer.current, current.photo.id == id { viewer.showDetails(of: current) }
        }
        // A photo opens in the viewer; a sub-folder opens in its place, in the same window.
        pane.onActivate = { [unowned self] position in
            // Nothing opens beneath the compare view.
            guard position < photos.count, compare?.isOpen != true else { return }
            let entry = photos.entry(at: position)
            if entry.isFolder, let url = try? entry.resolvedURL() {
                openFolder(url)
            } else {
                viewer.open(at: position)
            }
        }
        // The picture opened shows in the viewer, its folder in the list behind.
        pane.onPendingSelectionShown = { [unowned self] position in viewer.open(at: position) }
    }

    func viewerMoved(to position: Int) {
        pane.revealSoon(position)
        photoActions.refresh()
        refreshViewActions(viewerOpen: true)
    }

    func setHeaderBarVisible(_ visible: Bool) {
        headerBar.isVisible = visible
    }

    func compareOpened() {
        photoActions.refresh()
        refreshViewActions(viewerOpen: true)
    }

    func compareClosed() {
        pane.scrolled.canFocus = true
        photoActions.refresh()
        refreshViewActions(viewerOpen: false)
        pane.grabFocus()
    }

    func photoEdited(_ saved: EditSaving.Saved, message: String) {
        photoActions.noteEdit(saved, message: message)
    }

    func viewerShows(_ subject: DetailsSubject) { details.viewerShows(subject) }

    func hideDetails() { details.hide() }

    func viewerClosed() {
        pane.scrolled.canFocus = true
        details.viewerClosed()
        pane.revealNow()
        photoActions.refresh()
        refreshViewActions(viewerOpen: false)
        // After the search bar is back (GTK gives its entry the keys as it shows): the keys go
        // back to the photos, where they were.
        pane.grabFocus()
    }
}
