import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// Drag and drop onto the window: files, folders, photo lists and links (from a file manager,
/// a browser or a text selection) open as the window's list, as Open… would open them.
extension PhotoListWindow {
    /// Makes `target` (the window's content) accept drops. GTK marks it `:drop(active)` while
    /// something droppable hovers, which the app's style draws as an accent-coloured frame.
    func acceptDrops(on target: Widget<some WidgetKind>) {
        target.addCSSClass("drop-target")
        let drop = Handle<DropTarget>.forLocations()
        connections.append(drop.onDrop { [unowned self] dropped in openDropped(dropped) })
        target.addController(drop) // the widget owns the controller
    }

    /// Opens what was dropped; false (the drop refused) when none of it names a place.
    private func openDropped(_ strings: [String]) -> Bool {
        let locations = strings.flatMap(Self.locations(inDropped:))
        guard !locations.isEmpty else {
            showToast(tr("Nothing to open: drop pictures, folders, photo lists or their web addresses"))
            return false
        }
        open(locations.map { PhotoSources.source(for: $0) })
        return true
    }

    /// The places named by one dropped string: a URI, or text holding one address or absolute
    /// path per line (`#` lines are comments, as in text/uri-list).
    static func locations(inDropped text: String) -> [URL] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let item = line.trimmingCharacters(in: .whitespaces)
            guard !item.isEmpty, !item.hasPrefix("#") else { return nil }
            if item.hasPrefix("/") { return URL(fileURLWithPath: item).standardizedFileURL }
            guard let url = URL(string: item), url.isWebAddress || url.isFileURL || RemoteLocation.isRemote(url)
            else { return nil }
            return url
        }
    }
}
