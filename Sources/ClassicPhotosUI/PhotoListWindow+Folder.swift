import CGLib
import CGtk
import CPhotoListModel
import Foundation
import GLibKit
import PhotoPipeline

/// A folder shown on its own: watched for changes, and sorted as the user chose.
@MainActor
final class ShownFolder {
    let url: URL
    let watch: FolderWatch?
    /// The order the rows are in now.
    var order: PhotoOrder
    /// Sort facts read so far, by photo.
    var facts: [PhotoID: SortFacts] = [:]
    /// A sort being worked out off the main thread.
    var sorting: Cancellable?

    init(url: URL, order: PhotoOrder) {
        self.url = url
        self.order = order
        watch = FolderWatch(folder: url)
    }

    func close() {
        watch?.cancel()
        sorting?.cancel()
    }
}

/// The window's side of a folder that lives: files added, removed, renamed and rewritten while
/// it is shown, and the order chosen in the main menu (name, date taken, date modified, size).
extension PhotoListWindow {
    // MARK: Watching

    /// A batch of a source arrived: a list made of one folder is watched from now on.
    func folderBatchArrived(_ batch: PhotoSourceBatch) {
        guard shownFolder == nil, sources.count == 1, let url = batch.folder, let order = batch.order else { return }
        let folder = ShownFolder(url: url, order: order)
        folder.watch?.onChanges = { [unowned self] changes in folderChanged(changes) }
        shownFolder = folder
    }

    /// The folder has been read: if its order is not yet the one asked for (the dates taken of
    /// a big folder), it is worked out now, in the background.
    func folderLoaded() {
        guard let folder = shownFolder, folder.order != photoOrder else { return }
        sortFolder()
    }

    func forgetFolder() {
        shownFolder?.close()
        shownFolder = nil
    }

    private func folderChanged(_ changes: [FolderWatch.Change]) {
        guard let folder = shownFolder else { return }
        var added = 0, removed = 0, changed = 0
        // Photos added in this burst: their writing being done is no change to them.
        var new: Set<PhotoID> = []
        for change in changes {
            // What the app itself just did (trash, undo, rotate) is already in the list.
            if isOwnChange(change) { continue }
            switch change {
            case .created(let path):
                let link = Self.link(path)
                if let id = processor.photos.id(forLink: link) {
                    reloadPhoto(id) // replaced by a file of the same name
                    changed += 1
                } else if let entry = FolderSource.entry(forNewFile: path) {
                    new.insert(insertPhoto(entry, in: folder))
                    added += 1
                }
            case .deleted(let path):
                if let id = processor.photos.id(forLink: Self.link(path)) {
                    removePhotos([id])
                    removed += 1
                }
            case .renamed(let from, let to):
                let old = processor.photos.id(forLink: Self.link(from))
                let entry = FolderSource.entry(forNewFile: to)
                if let target = processor.photos.id(forLink: Self.link(to)), target != old {
                    // Moved over a photo shown (how editors save: a hidden file, then a rename):
                    // that photo's file was replaced; it stays, and is loaded again.
                    if let old {
                        removePhotos([old])
                        removed += 1
                    }
                    if entry != nil {
                        reloadPhoto(target)
                        changed += 1
                    } else {
                        removePhotos([target])
                        removed += 1
                    }
                    continue
                }
                switch (old, entry) {
                case (let id?, let entry?):
                    movePhoto(id, renamedTo: entry, in: folder)
                    changed += 1
                case (let id?, nil):
                    removePhotos([id]) // no longer a picture by its name, or hidden now
                    removed += 1
                case (nil, let entry?):
                    new.insert(insertPhoto(entry, in: folder))
                    added += 1
                case (nil, nil):
                    break
                }
            case .changed(let path):
                guard let id = processor.photos.id(forLink: Self.link(path)) else {
                    // Written and closed, not created: a file that was not a picture by its
                    // content before (no extension) may be one now.
                    if let entry = FolderSource.entry(forNewFile: path) {
                        new.insert(insertPhoto(entry, in: folder))
                        added += 1
                    }
                    continue
                }
                guard !new.contains(id) else { continue }
                reloadPhoto(id)
                changed += 1
            }
        }
        guard added + removed + changed > 0 else { return }
        Trace.shared.emit(
            .sourceChanged(
                url: folder.url.absoluteString, added: added, removed: removed, changed: changed,
                rows: processor.photos.count))
        listChanged()
    }

    /// After rows came or went: the viewer follows its photo, the title its count.
    func listChanged() {
        viewer.listChanged()
        if loadingFinished {
            showStatus(processor.photos.count == 0 ? .empty : nil)
            refreshSubtitle()
        }
        updateVisibleRows()
    }

    func removePhotos(_ ids: [PhotoID]) {
        for id in ids { shownFolder?.facts.removeValue(forKey: id) }
        let positions = processor.remove(ids)
        // From the end, so each position is still where the model has it.
        for position in positions.reversed() {
            cp_photo_list_model_splice(store.opaque, guint(position), 1, nil, 0)
        }
    }

    @discardableResult
    func insertPhoto(_ entry: PhotoEntry, in folder: ShownFolder) -> PhotoID {
        let position = insertionPoint(for: entry, facts: facts(of: entry, in: folder), in: folder)
        let id = processor.insert(entry, at: position)
        var raw = guint64(id.rawValue)
        cp_photo_list_model_splice(store.opaque, guint(position), 0, &raw, 1)
        return id
    }

    private func movePhoto(_ id: PhotoID, renamedTo entry: PhotoEntry, in folder: ShownFolder) {
        guard let from = processor.photos.position(of: id) else { return }
        let newFacts = facts(of: entry, in: folder)
        folder.facts[id] = newFacts
        var to = insertionPoint(for: entry, facts: newFacts, in: folder, moving: from)
        processor.rename(id, to: entry, at: to)
        to = processor.photos.position(of: id) ?? to
        var raw = guint64(id.rawValue)
        if from == to {
            // Same place: the row is rebound to show the new name.
            cp_photo_list_model_splice(store.opaque, guint(from), 1, &raw, 1)
        } else {
            cp_photo_list_model_splice(store.opaque, guint(from), 1, nil, 0)
            cp_photo_list_model_splice(store.opaque, guint(to), 0, &raw, 1)
        }
    }

    private func reloadPhoto(_ id: PhotoID) {
        shownFolder?.facts.removeValue(forKey: id)
        processor.reload(id)
        viewer.photoChanged(id)
    }

    /// Where a photo named `entry` with `facts` goes in the folder's order (a binary search;
    /// the facts of the photos it is compared with are read as needed). `moving` is the photo
    /// itself when it is already in the list (renamed): the search runs as if it were not.
    private func insertionPoint(
        for entry: PhotoEntry, facts: SortFacts?, in folder: ShownFolder, moving: Int? = nil
    ) -> Int {
        let photos = processor.photos
        var low = 0, high = photos.count - (moving == nil ? 0 : 1)
        while low < high {
            let middle = (low + high) / 2
            let position = moving.map { middle < $0 ? middle : middle + 1 } ?? middle
            if precedes(entry, facts, at: position, in: folder) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Whether `entry` with `facts` comes before the photo at `position`.
    private func precedes(_ entry: PhotoEntry, _ facts: SortFacts?, at position: Int, in folder: ShownFolder) -> Bool {
        let other = processor.photos.id(at: position)
        let otherEntry = processor.photos.entry(at: position)
        var otherFacts: SortFacts?
        if folder.order.needsFacts {
            otherFacts = folder.facts[other] ?? self.facts(of: otherEntry, in: folder)
            folder.facts[other] = otherFacts
        }
        return folder.order.precedes(facts, named: entry.name, otherFacts, named: otherEntry.name)
    }

    private func facts(of entry: PhotoEntry, in folder: ShownFolder) -> SortFacts? {
        guard folder.order.needsFacts else { return nil }
        return SortFacts.read(link: entry.link, taken: folder.order.key == .dateTaken)
    }

    private static func link(_ path: String) -> String {
        guard let uri = g_filename_to_uri(path, nil, nil) else { return "" }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    // MARK: Sorting

    /// The sort chosen in the menu: remembered, and applied to the folder shown.
    func sortChosen(_ order: PhotoOrder) {
        guard order != photoOrder else { return }
        photoOrder = order
        settings.photoOrder = order
        if shownFolder != nil, loadingFinished { sortFolder() }
    }

    /// Works out the folder's order off the main thread (reading what it needs from each
    /// file), then shows it without moving the photo in view.
    private func sortFolder() {
        guard let folder = shownFolder else { return }
        folder.sorting?.cancel()
        let order = photoOrder
        let photos = processor.photos
        let ids = (0..<photos.count).map { photos.id(at: $0) }
        let entries = (0..<photos.count).map { photos.entry(at: $0) }
        let known = order.key == .name ? [:] : folder.facts
        let cancellable = Cancellable()
        folder.sorting = cancellable
        let generation = listGeneration
        DispatchQueue.global(qos: .userInitiated).async {
            var facts: [SortFacts?] = []
            if order.needsFacts {
                facts.reserveCapacity(entries.count)
                for (index, entry) in entries.enumerated() {
                    if index % 1024 == 0, cancellable.isCancelled { return }
                    let had = known[ids[index]]
                    facts.append(
                        had.flatMap { order.key != .dateTaken || $0.taken != nil ? $0 : nil }
                            ?? SortFacts.read(link: entry.link, taken: order.key == .dateTaken))
                }
            }
            if cancellable.isCancelled { return }
            let sorted = order.order(names: entries.map(\.name), links: entries.map(\.link), facts: facts)
            let newIDs = sorted.map { ids[$0] }
            let found = Dictionary(
                uniqueKeysWithValues: zip(ids, facts).compactMap { id, facts in facts.map { (id, $0) } })
            MainLoop.onMainActor { [weak self] in
                guard let self, !cancellable.isCancelled, generation == listGeneration,
                    let folder = shownFolder, folder.sorting === cancellable
                else { return }
                folder.sorting = nil
                folder.facts.merge(found) { $1 }
                folder.order = order
                showInOrder(newIDs, order: order)
            }
        }
    }

    /// Shows the photos in the order `ids` (the same photos as now, unless the folder changed
    /// meanwhile: then it is worked out again). The photo at the top of the view (or the one
    /// selected, if on screen) keeps its place on screen.
    private func showInOrder(_ ids: [PhotoID], order: PhotoOrder) {
        let photos = processor.photos
        guard ids.count == photos.count, ids.allSatisfy({ photos.contains($0) }) else {
            sortFolder()
            return
        }
        // The photo to keep in place, and how far below the top of the view its row is.
        let visible = visibleRows()
        let selected = selection.selected
        let anchorPosition = if let selected, visible.contains(selected) { selected } else { visible.lowerBound }
        let adjustment = scrolled.verticalAdjustment
        let rowHeight = adjustment.map { $0.upper / Double(max(1, photos.count)) } ?? 0
        let anchor: (id: PhotoID, offset: Double)? =
            visible.isEmpty || adjustment == nil
            ? nil
            : (photos.id(at: anchorPosition), Double(anchorPosition) * rowHeight - adjustment!.value)
        let selectedID = selected.flatMap { $0 < photos.count ? photos.id(at: $0) : nil }

        processor.reorder(ids.map { photos.position(of: $0)! })
        var raw = ids.map { guint64($0.rawValue) }
        raw.withUnsafeMutableBufferPointer {
            cp_photo_list_model_splice(store.opaque, 0, guint($0.count), $0.baseAddress, guint($0.count))
        }
        if let selectedID, let position = photos.position(of: selectedID) {
            selection.selected = position
        }
        if let anchor, let adjustment, let position = photos.position(of: anchor.id) {
            adjustment.value = Double(position) * rowHeight - anchor.offset
        }
        Trace.shared.emit(.listSorted(key: order.key.rawValue, descending: order.descending, rows: ids.count))
        listChanged()
    }
}

extension PhotoListWindow {
    /// Whether `change` is to a file the app itself changed a moment ago.
    fileprivate func isOwnChange(_ change: FolderWatch.Change) -> Bool {
        switch change {
        case .created(let path), .deleted(let path), .changed(let path): isOwnChange(path)
        case .renamed(_, let to): isOwnChange(to)
        }
    }
}
