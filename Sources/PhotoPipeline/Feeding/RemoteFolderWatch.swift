import Foundation
import GLibKit

/// A folder on a network share or device, kept up to date where its GVfs backend watches
/// folders (MTP phones, cameras; WebDAV, SFTP and SMB do not, and such a folder is shown as it
/// was read). A burst of changes has the folder listed again, names alone as at first, and
/// the rows that went are removed and the ones that came inserted where they belong, every
/// other row keeping its identity, its picture and its place.
@MainActor
final class RemoteFolderWatch {
    let source: any PhotoSource
    /// The model whose list shows the folder: the folder's edits are asked of it.
    private unowned let feed: PhotoListFeed
    /// Every photo of the list, shown or not.
    private var photos: PhotoCollection { feed.list.photos }
    private let loader: PhotoSourceLoader
    private let watch: FolderWatch
    /// The listing under way, and whether changes came while it ran (then listed once more).
    private var listing: Cancellable?
    private var changedWhileListing = false
    /// The folder's order changed in a way that inserting and removing cannot follow (a
    /// photo rewritten, in an order by time or size): the folder is to be read anew.
    var onReorder: (() -> Void)?

    init(folder: URL, source: any PhotoSource, feed: PhotoListFeed, loader: PhotoSourceLoader) {
        self.source = source
        self.feed = feed
        self.loader = loader
        watch = FolderWatch(folder: folder)
        watch.onChanges = { [unowned self] _ in changed() }
    }

    func close() {
        watch.cancel()
        listing?.cancel()
        listing = nil
        onReorder = nil
    }

    private func changed() {
        guard listing == nil else {
            changedWhileListing = true
            return
        }
        var fresh: [PhotoEntry] = []
        listing = loader.load([source]) { [weak self] event in
            guard let self else { return }
            switch event {
            case .started: break
            case .batch(_, let batch):
                guard let positions = batch.positions else {
                    fresh += batch.entries
                    return
                }
                // Entries delivered ahead of their folder: the rest go in around them.
                var merged: [PhotoEntry?] = Array(repeating: nil, count: fresh.count + batch.entries.count)
                for (entry, position) in zip(batch.entries, positions) { merged[position] = entry }
                var old = fresh.makeIterator()
                fresh = merged.map { $0 ?? old.next()! }
            case .finished:
                listing = nil
                apply(fresh)
                if changedWhileListing {
                    changedWhileListing = false
                    changed()
                }
            case .failed:
                // A share gone away: its rows stay as they are; its reads fail on their own.
                listing = nil
                changedWhileListing = false
            }
        }
    }

    /// Brings the list to `fresh`, the folder's listing in order.
    private func apply(_ fresh: [PhotoEntry]) {
        let shown = (0..<photos.count).map { photos.entry(at: $0).link }
        let shownLinks = Set(shown), freshLinks = Set(fresh.map(\.link))
        let kept = shown.filter { freshLinks.contains($0) }
        guard kept == fresh.map(\.link).filter({ shownLinks.contains($0) }) else {
            onReorder?()
            return
        }
        let gone = shown.indices.filter { !freshLinks.contains(shown[$0]) }.map { photos.id(at: $0) }
        let came = fresh.enumerated().filter { !shownLinks.contains($0.element.link) }
        guard !gone.isEmpty || !came.isEmpty else { return }
        if !gone.isEmpty { feed.apply(.remove(gone)) }
        if !came.isEmpty { feed.apply(.insert(came.map(\.element), at: came.map(\.offset))) }
        Trace.shared.emit(
            .sourceChanged(
                url: source.location.absoluteString, added: came.count, removed: gone.count, changed: 0,
                rows: photos.count))
    }
}
