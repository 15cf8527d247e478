import Foundation
import PhotoPipeline

/// The search bar's "All Folders": the window's side of `SearchEverywhere`.
extension PhotoListWindow {
    func installSearchEverywhere() {
        everywhere.current = { [unowned self] in
            let selected = pane.selection.first.flatMap { $0 < photos.count ? photos.entry(at: $0).link : nil }
            return (sources, selected)
        }
        everywhere.open = { [unowned self] sources in open(sources) }
        everywhere.selectWhenLoaded = { [unowned self] link in linkToSelect = link }
        everywhere.onLeft = { [unowned self] in search.everywhereLeft() }
        everywhere.viewerOpen = { [unowned self] in viewer.isShown }
        search.onEverywhere = { [unowned self] text, typedAt in everywhere.search(text, typedAt: typedAt) }
        search.onEverywhereEnded = { [unowned self] in everywhere.end() }
        search.onBegan = { [unowned self] in everywhere.barOpened() }
    }
}
