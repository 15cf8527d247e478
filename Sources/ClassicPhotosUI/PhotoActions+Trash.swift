import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// Photos moved to the trash together (one Delete on a selection): what one Undo puts back.
struct TrashedBatch {
    struct Photo: Sendable {
        let trashed: PhotoFiles.Trashed
        let entry: PhotoEntry
        /// Where it was in the whole list (shown or not).
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
        withFiles(photoTargets()) { [weak self] files in self?.trash(files) }
    }

    private func trash(_ files: [FileTarget]) {
        let list = photos.generation
        let trashes = PhotoFiles.TrashFolders()
        defer { refresh() } // Undo stops the photos on their way
        trashing = runRemoval(
            .trash, files,
            text: { done, total in
                String(
                    format: ntr(
                        "Moving %1$@ of %2$@ photo to the trash", "Moving %1$@ of %2$@ photos to the trash", total),
                    Localization.number(done), Localization.number(total))
            },
            work: { file in trashes.trash(file.path) },
            trace: { .fileTrashed(row: $0.position, id: $0.id, name: $0.name) },
            finished: { [weak self] tally in
                guard let self else { return }
                trashing = nil
                let moved = tally.succeeded
                if !moved.isEmpty {
                    if !undoOnceTrashed { undoSteps.append(.trash) }
                    trashed.append(
                        TrashedBatch(
                            photos: moved.map {
                                .init(trashed: $0.value, entry: $0.item.target.entry, position: $0.item.target.place)
                            }, list: list))
                }
                if undoOnceTrashed {
                    // Undo was pressed on the way: what was moved comes back at once.
                    undoOnceTrashed = false
                    return moved.isEmpty ? refresh() : undoTrash()
                }
                if !moved.isEmpty {
                    let title =
                        moved.count == 1
                        ? String(format: tr("“%@” moved to the trash"), DisplayText.line(moved[0].item.target.name))
                        : String(
                            format: ntr("%d photo moved to the trash", "%d photos moved to the trash", moved.count),
                            moved.count)
                    status.showToast(title, button: (tr("_Undo"), "win.undo-trash"))
                }
                if let (file, failure) = tally.failed.first {
                    status.showToast(
                        tally.failed.count == 1
                            ? String(
                                format: tr("“%@” could not be moved to the trash: %@"),
                                DisplayText.line(file.target.name),
                                failure.localizedMessage)
                            : String(
                                format: ntr(
                                    "%d photo could not be moved to the trash: %@",
                                    "%d photos could not be moved to the trash: %@", tally.failed.count),
                                tally.failed.count, failure.localizedMessage))
                }
                refresh()
            })
    }

    /// Puts the photos last moved to the trash back where they were, and back in the list.
    func undoTrash() {
        if let running = trashing {
            // The photos still on their way stop; those moved come back once it has stopped.
            undoOnceTrashed = true
            running.cancel()
            return
        }
        guard let batch = trashed.popLast() else { return }
        refresh()
        // Back in the list they left; a list opened since (a reload) finds the files itself, if
        // it shows their folder.
        let paths = batch.photos.map(\.trashed.originalPath)
        if batch.list == photos.generation {
            feed.ownChangesBegan(paths)
        } else {
            feed.forgetOwnChanges(paths)
        }
        // The photos put back so far, all selected again.
        let back = Collected<PhotoID>()
        // Where the list is a folder in an order of its files' facts, each photo's facts are
        // read as it comes back, with the rest of its work: the main thread only places it.
        // Those of the list's photos not known yet are read there too (once), so that placing
        // them reads no file on the main thread.
        let placement = feed.folderPlacement()
        runBatch(
            .restore, batch.photos,
            text: { done, total in
                String(
                    format: ntr("Putting back %1$@ of %2$@ photo", "Putting back %1$@ of %2$@ photos", total),
                    Localization.number(done), Localization.number(total))
            },
            work: { photo in
                var result = PhotoFiles.restore(photo.trashed)
                if case .failure = result,
                    let item = DesktopServices.trashItem(originalPath: photo.trashed.originalPath)
                {
                    result = PhotoFiles.restore(photo.trashed, from: item)
                }
                return result.map {
                    guard let placement else { return PlacingFacts() }
                    return placement.facts(placing: photo.entry)
                }
            },
            piece: { [weak self] restored in
                guard let self, batch.list == photos.generation else { return }
                back.items += putBack(restored.map { ($0.item, $0.value) }, after: back.items)
            },
            finished: { [weak self] tally, _ in
                guard let self else { return }
                feed.ownChangesEnded(paths)
                // What was not tried (the work was cancelled) stays for another Undo; a photo that
                // could not be put back stays in the trash, and the toast says why.
                let left = batch.photos.dropFirst(tally.succeeded.count + tally.failed.count)
                if !left.isEmpty {
                    trashed.append(TrashedBatch(photos: Array(left), list: batch.list))
                    undoSteps.append(.trash)
                    refresh()
                }
                if let (photo, failure) = tally.failed.first {
                    let count = tally.failed.count
                    status.showToast(
                        count == 1
                            ? String(
                                format: tr("“%@” could not be put back: %@"), DisplayText.line(photo.entry.name),
                                failure.localizedMessage)
                            : String(
                                format: ntr(
                                    "%d photo could not be put back: %@", "%d photos could not be put back: %@", count),
                                count, failure.localizedMessage))
                }
            })
    }

    /// Photos back from the trash, into the list: in a folder's order where the list is their
    /// folder, where they were otherwise. The viewer (or the selection, with `before`, those
    /// put back earlier in the same Undo) shows them again. Their identities.
    private func putBack(
        _ restored: [(photo: TrashedBatch.Photo, facts: PlacingFacts)], after before: [PhotoID]
    )
        -> [PhotoID]
    {
        let ids = feed.putBack(
            restored.map { ($0.photo.entry, $0.photo.trashed.originalPath, $0.photo.position, $0.facts.own) },
            compared: restored.reduce(into: [:]) { all, photo in all.merge(photo.facts.compared) { first, _ in first } }
        )
        for id in ids {
            guard let position = photos.position(of: id) else { continue }
            Trace.shared.emit(.fileRestored(row: position, id: id, name: photos.name(at: position)))
        }
        guard let first = ids.first, let shownAt = photos.position(of: first) else { return ids }
        if viewer.shownPhoto != nil {
            if before.isEmpty { viewer.open(at: shownAt) }
        } else {
            pane.selection.select(before + ids)
        }
        return ids
    }

    /// Moves photos' files out of their folder (to the trash, or for good) as a batch. Their
    /// rows go at once, in one edit: no picture of a photo on its way out is loaded again (its
    /// file may already be gone). Those whose work failed or never happened (cancelled) come
    /// back where they were before `finished` is told how it went.
    @discardableResult
    private func runRemoval<Value: Sendable>(
        _ kind: FileBatchKind, _ files: [FileTarget], text: @escaping (_ done: Int, _ total: Int) -> String,
        work: @escaping @Sendable (FileTarget) -> Result<Value, PhotoFileFailure>,
        trace: @escaping @Sendable (PhotoTarget) -> TraceEvent,
        finished: @escaping @MainActor @Sendable (BatchTally<FileTarget, Value>) -> Void
    ) -> FileBatch {
        let targets = files.map(\.target)
        let paths = files.map(\.path)
        let list = photos.generation
        feed.ownChangesBegan(paths)
        feed.remove(targets.map(\.id))
        return runBatch(
            kind, files, text: text, work: work,
            piece: { done in for (file, _) in done { Trace.shared.emit(trace(file.target)) } },
            finished: { [weak self] tally, _ in
                guard let self else { return }
                feed.ownChangesEnded(paths)
                if list == photos.generation {
                    let untouched = targets.dropFirst(tally.succeeded.count + tally.failed.count)
                    putBackUntouched(tally.failed.map(\.item.target) + untouched, removedWith: targets)
                }
                finished(tally)
            })
    }

    /// Photos taken out of the list for work that did not happen to them (cancelled, or
    /// failed) are shown again where they were; `removed` are all those taken out with them.
    private func putBackUntouched(_ kept: [PhotoTarget], removedWith removed: [PhotoTarget]) {
        guard !kept.isEmpty else { return }
        // Where each was, less the photos before it that stay out.
        let keptIDs = Set(kept.map(\.id))
        var out = 0
        var places: [PhotoID: Int] = [:]
        for target in removed.sorted(by: { $0.place < $1.place }) {
            if keptIDs.contains(target.id) { places[target.id] = target.place - out } else { out += 1 }
        }
        let entries = kept.map { ($0.entry, $0.path ?? "", places[$0.id] ?? $0.place, feed.sortFacts(of: $0.id)) }
        // In a folder's order by its files' facts, those not known (a folder that came in that
        // order has none) are read off the main thread first, with the list's, as Undo does.
        guard let placement = feed.folderPlacement(), entries.contains(where: { $0.3 == nil }) else {
            return pane.selection.select(feed.putBack(entries))
        }
        let list = photos.generation
        inBackground(
            {
                var compared: [PhotoID: SortFacts] = [:]
                let placed = entries.map { entry in
                    guard entry.3 == nil else { return entry }
                    let facts = placement.facts(placing: entry.0)
                    compared.merge(facts.compared) { first, _ in first }
                    return (entry.0, entry.1, entry.2, facts.own)
                }
                return (placed, compared)
            },
            then: { [weak self] placed, compared in
                guard let self, list == photos.generation else { return }
                pane.selection.select(feed.putBack(placed, compared: compared))
            })
    }

    /// Deletes the photos for good, once the user said so.
    func deletePhotos() {
        withFiles(photoTargets()) { [weak self] files in self?.delete(files) }
    }

    private func delete(_ files: [FileTarget]) {
        let targets = files.map(\.target)
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
            runRemoval(
                .delete, files,
                text: { done, total in
                    String(
                        format: ntr("Deleting %1$@ of %2$@ photo", "Deleting %1$@ of %2$@ photos", total),
                        Localization.number(done), Localization.number(total))
                },
                work: { file in PhotoFiles.delete(photoAt: file.path) },
                trace: { .fileDeleted(row: $0.position, id: $0.id, name: $0.name) },
                finished: { [weak self] tally in
                    guard let self else { return }
                    let deleted = tally.succeeded.map(\.item.target)
                    if let (file, failure) = tally.failed.first {
                        let target = file.target
                        let count = tally.failed.count
                        status.showToast(
                            count == 1
                                ? String(
                                    format: tr("“%@” could not be deleted: %@"), DisplayText.line(target.name),
                                    failure.localizedMessage)
                                : String(
                                    format: ntr(
                                        "%d photo could not be deleted: %@", "%d photos could not be deleted: %@", count
                                    ),
                                    count, failure.localizedMessage))
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
