import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// Photos moved to the trash together (one Delete on a selection): what one Undo puts back.
struct TrashedBatch {
    struct Photo {
        let trashed: PhotoFiles.Trashed
        let entry: PhotoEntry
        /// Where it was in the list.
        let position: Int
    }
    var photos: [Photo]
    /// The list (its generation) they were taken from.
    let list: Int
}

/// Move to Trash, its Undo, and Delete Permanently: on every photo acted on at once, with one
/// toast and one confirmation for all of them.
extension PhotoActions {
    func trashPhotos() {
        let targets = photoTargets().filter { $0.path != nil }
        guard !targets.isEmpty else { return }
        let paths = targets.map { $0.path! }
        paths.forEach(noteOwnChange)
        inBackground(
            { paths.map { PhotoFiles.trash($0) } },
            then: { [weak self] results in
                guard let self else { return }
                var batch = TrashedBatch(photos: [], list: photos.generation)
                var moved: [PhotoTarget] = []
                var failures: [(PhotoTarget, PhotoFiles.Failure)] = []
                for (target, result) in zip(targets, results) {
                    switch result {
                    case .success(let trashed):
                        batch.photos.append(.init(trashed: trashed, entry: target.entry, position: target.position))
                        moved.append(target)
                    case .failure(let failure): failures.append((target, failure))
                    }
                }
                if !moved.isEmpty {
                    trashed.append(batch)
                    photos.apply(.remove(moved.map(\.id)))
                    for target in moved {
                        Trace.shared.emit(.fileTrashed(row: target.position, id: target.id, name: target.name))
                    }
                    let title =
                        moved.count == 1
                        ? String(format: tr("“%@” moved to the trash"), DisplayText.line(moved[0].name))
                        : String(
                            format: ntr("%d photo moved to the trash", "%d photos moved to the trash", moved.count),
                            moved.count)
                    status.showToast(title, button: (tr("_Undo"), "win.undo-trash"))
                }
                if let (target, failure) = failures.first {
                    status.showToast(
                        failures.count == 1
                            ? String(
                                format: tr("“%@” could not be moved to the trash: %@"), DisplayText.line(target.name),
                                failure.localizedMessage)
                            : String(
                                format: ntr(
                                    "%d photo could not be moved to the trash: %@",
                                    "%d photos could not be moved to the trash: %@", failures.count),
                                failures.count, failure.localizedMessage))
                }
                refresh()
            })
    }

    /// Puts the photos last moved to the trash back where they were, and back in the list.
    func undoTrash() {
        guard let batch = trashed.popLast() else { return }
        refresh()
        // Back in the list they left; a list opened since (a reload) finds the files itself, if
        // it shows their folder.
        for photo in batch.photos {
            if batch.list == photos.generation {
                noteOwnChange(photo.trashed.originalPath)
            } else {
                ownChanges[photo.trashed.originalPath] = nil
            }
        }
        let items = batch.photos.map(\.trashed)
        inBackground(
            {
                items.map { trashed in
                    let result = PhotoFiles.restore(trashed)
                    if case .failure = result, let item = DesktopServices.trashItem(originalPath: trashed.originalPath)
                    {
                        return PhotoFiles.restore(trashed, from: item)
                    }
                    return result
                }
            },
            then: { [weak self] results in
                guard let self else { return }
                let restored = zip(batch.photos, results).compactMap { photo, result in
                    if case .success = result { photo } else { nil }
                }
                if batch.list == photos.generation, !restored.isEmpty { putBack(restored) }
                let failed = zip(batch.photos, results).compactMap { photo, result -> (PhotoEntry, String)? in
                    if case .failure(let failure) = result { (photo.entry, failure.localizedMessage) } else { nil }
                }
                if let (entry, message) = failed.first {
                    status.showToast(
                        failed.count == 1
                            ? String(
                                format: tr("“%@” could not be put back: %@"), DisplayText.line(entry.name), message)
                            : String(
                                format: ntr(
                                    "%d photo could not be put back: %@", "%d photos could not be put back: %@",
                                    failed.count),
                                failed.count, message))
                }
            })
    }

    /// Photos back from the trash, into the list: in a folder's order where the list is their
    /// folder, where they were otherwise. The viewer (or the selection) shows them again.
    private func putBack(_ restored: [TrashedBatch.Photo]) {
        let folder = liveFolder
        // Each photo's place in the list as it is now, then the places once all are in.
        let places = restored.map { photo -> Int in
            let directory = (photo.trashed.originalPath as NSString).deletingLastPathComponent
            if let folder, folder.url.standardizedFileURL.path == directory { return folder.position(for: photo.entry) }
            return min(photo.position, photos.count)
        }
        let order = restored.indices.sorted { (places[$0], $0) < (places[$1], $1) }
        let entries = order.map { restored[$0].entry }
        let positions = order.enumerated().map { offset, index in places[index] + offset }
        let ids = photos.apply(.insert(entries, at: positions)).inserted
        for (id, entry) in zip(ids, entries) {
            Trace.shared.emit(.fileRestored(row: photos.position(of: id) ?? 0, id: id, name: entry.name))
        }
        guard let first = ids.first, let shownAt = photos.position(of: first) else { return }
        if viewer.shownPhoto != nil {
            viewer.open(at: shownAt)
        } else {
            pane.selection.select(ids)
        }
    }

    /// Deletes the photos for good, once the user said so.
    func deletePhotos() {
        let targets = photoTargets().filter { $0.path != nil }
        guard let only = targets.first else { return }
        let heading =
            targets.count == 1
            ? String(format: tr("Delete “%@” Permanently?"), DisplayText.line(only.name))
            : String(
                format: ntr("Delete %d Photo Permanently?", "Delete %d Photos Permanently?", targets.count),
                targets.count)
        confirm(
            heading: heading,
            body: targets.count == 1
                ? tr("The photo will be deleted for good: it cannot be brought back from the trash.")
                : tr("The photos will be deleted for good: they cannot be brought back from the trash."),
            action: tr("_Delete"), destructive: true
        ) { [unowned self] in
            let paths = targets.map { $0.path! }
            paths.forEach(noteOwnChange)
            inBackground(
                { paths.map { PhotoFiles.delete($0) } },
                then: { [weak self] results in
                    guard let self else { return }
                    let deleted = zip(targets, results).compactMap { target, result in
                        if case .success = result { target } else { nil }
                    }
                    photos.apply(.remove(deleted.map(\.id)))
                    for target in deleted {
                        Trace.shared.emit(.fileDeleted(row: target.position, id: target.id, name: target.name))
                    }
                    let failures = zip(targets, results).compactMap { target, result -> (PhotoTarget, String)? in
                        if case .failure(let failure) = result { (target, failure.localizedMessage) } else { nil }
                    }
                    if let (target, message) = failures.first {
                        status.showToast(
                            failures.count == 1
                                ? String(
                                    format: tr("“%@” could not be deleted: %@"), DisplayText.line(target.name), message)
                                : String(
                                    format: ntr(
                                        "%d photo could not be deleted: %@", "%d photos could not be deleted: %@",
                                        failures.count),
                                    failures.count, message))
                    } else if deleted.count == 1 {
                        status.showToast(String(format: tr("“%@” deleted"), DisplayText.line(deleted[0].name)))
                    } else if !deleted.isEmpty {
                        status.showToast(
                            String(format: ntr("%d photo deleted", "%d photos deleted", deleted.count), deleted.count))
                    }
                    refresh()
                })
        }
    }
}
