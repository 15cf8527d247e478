import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// What one key does to the marks of the photos it acts on.
enum MarkChange: Sendable, Equatable {
    /// 1 to 5 stars; 0 takes them away (and un-rejects).
    case rating(Int)
    /// Rejects; on photos all rejected already, takes the reject away.
    case reject
    /// Gives a colour label; on photos that all have it already, takes it away.
    case label(String)
    /// Adds a tag to each photo's tags (after those it has), where it does not have it.
    case addTag(String)
    /// Takes a tag away from each photo that has it.
    case removeTag(String)

    /// The change a `win.mark` target names: "0" to "5", "reject", or a label's name in
    /// lower case ("red").
    init?(target: String) {
        if let stars = Int(target), (0...PhotoMarks.mostStars).contains(stars) {
            self = .rating(stars)
        } else if target == "reject" {
            self = .reject
        } else if let label = PhotoMarks.labels.first(where: { $0.lowercased() == target }) {
            self = .label(label)
        } else {
            return nil
        }
    }

    /// Whether every one of `marks` has what the change gives already (a reject or a label
    /// pressed again takes it away).
    func isHeld(byAll marks: [PhotoMarks]) -> Bool {
        switch self {
        case .rating, .addTag, .removeTag: false
        case .reject: marks.allSatisfy(\.isRejected)
        case .label(let label): marks.allSatisfy { $0.label == label }
        }
    }

    /// `marks` changed: given, or (`off`) taken away.
    func applied(to marks: PhotoMarks, off: Bool) -> PhotoMarks {
        var new = marks
        switch self {
        case .rating(let stars): new.rating = stars
        case .reject: new.rating = off ? 0 : PhotoMarks.rejected
        case .label(let label): new.label = off ? nil : label
        case .addTag(let tag): new.tags = PhotoMarks.unique(marks.tags + [tag])
        case .removeTag(let tag): new.tags.removeAll { $0 == tag }
        }
        return new
    }
}

/// One photo's marks changed: what they were and what they are, for its file and for Undo.
struct MarkEdit: Sendable {
    let file: PhotoActions.FileTarget
    let old: PhotoMarks
    let new: PhotoMarks

    var reversed: MarkEdit { MarkEdit(file: file, old: new, new: old) }
}

/// One photo to mark: its file, its marks where they are known already (nil: read them in the
/// work), and, for Undo, the marks it is to have again.
struct MarkStep: Sendable {
    let file: PhotoActions.FileTarget
    let known: PhotoMarks?
    var target: PhotoMarks? = nil

    /// What the step does, when its marks are known: nil when they are not, or nothing changes.
    func edit(_ change: (MarkChange, off: Bool)?) -> MarkEdit? {
        guard let known else { return nil }
        let new = target ?? change.map { $0.0.applied(to: known, off: $0.off) } ?? known
        return new == known ? nil : MarkEdit(file: file, old: known, new: new)
    }
}

/// What marking one photo came to: the change, and whether its sidecar holds it (nil:
/// nothing changed, so nothing was written; false: only the index keeps it).
struct MarkOutcome: Sendable {
    let edit: MarkEdit
    let saved: Bool?
}

/// Stars, reject and colour labels from the keyboard, on every photo acted on: shown at once,
/// written to each photo's XMP sidecar off the main thread (a batch, with progress past a
/// second), undone together.
extension PhotoActions {
    /// Gives the photos acted on the marks `change` names, or takes them away. Photos whose
    /// marks are known (those on screen) show the change at once; the others' marks are read
    /// as they are written, and show as the work goes. A reject or a label is taken away when
    /// every photo is known to have it already.
    func mark(_ change: MarkChange) {
        let pressed = ContinuousClock.now
        let targets = photoTargets()
        guard !targets.isEmpty else { return }
        // One marking at a time: a key pressed while marks are written waits for them (each
        // sidecar is read and written whole, so two writers of one would lose a mark).
        if marking != nil {
            waitingMarks.append { [weak self] in self?.mark(change, on: targets, pressed: pressed) }
            return
        }
        mark(change, on: targets, pressed: pressed)
    }

    private func mark(_ change: MarkChange, on targets: [PhotoTarget], pressed: ContinuousClock.Instant) {
        let known = processor.knownMarks(of: targets.map(\.id))
        let marks = known.compactMap { $0 }
        let off = marks.count == known.count && change.isHeld(byAll: marks)
        let knownByID = Dictionary(zip(targets.map(\.id), known), uniquingKeysWith: { first, _ in first })
        withFiles(targets, elsewhereToo: true) { [weak self] files in
            let steps = files.map { MarkStep(file: $0, known: knownByID[$0.target.id] ?? nil) }
            self?.write(steps, change: (change, off), pressed: pressed)
        }
    }

    /// Opens the tags popover on the photos acted on: over the photo in the viewer, else
    /// pointing at the first one selected where it is on screen.
    func editTags() {
        let targets = photoTargets()
        guard !targets.isEmpty else { return }
        let popover = tagsPopover ?? makeTagsPopover()
        let parent: Widget<AnyWidget> = viewer.shownPhoto != nil ? viewer.root.anyWidget : pane.view
        if popover.popover.parent?.raw != parent.raw {
            popover.popover.unparent()
            popover.popover.setParent(parent)
        }
        popover.popover.point(at: tagsAnchor(for: targets[0].id, in: parent))
        let marks = processor.knownMarks(of: targets.map(\.id)).compactMap { $0 }
        popover.show(marks: marks, count: targets.count, known: knownTags)
        popover.popover.popUp()
        popover.focusEntry()
        // The index's tags, read off the main thread, join those of the photos in view.
        DispatchQueue.global(qos: .userInitiated).async {
            let indexed = PhotoIndex.shared?.knownTags() ?? []
            MainLoop.onMainActor { [weak self] in
                guard let self else { return }
                knownTags = PhotoMarks.unique(knownTags + indexed)
                tagsPopover?.offer(knownTags)
            }
        }
    }

    private func makeTagsPopover() -> TagsPopover {
        let made = TagsPopover()
        made.onAdd = { [unowned self] tag in
            knownTags = PhotoMarks.unique([tag] + knownTags)
            mark(.addTag(tag))
        }
        made.onRemove = { [unowned self] tag in mark(.removeTag(tag)) }
        // GTK hands the keys to the header bar's first button as it closes: back to the photos.
        made.onClosed = { [unowned self] in
            if compare?.isOpen == true {
                compare?.grabFocus()
            } else if viewer.shownPhoto != nil {
                viewer.grabFocus()
            } else {
                pane.grabFocus()
            }
        }
        tagsPopover = made
        return made
    }

    /// Where the tags popover points: the top middle of the viewer, or the first photo's row or
    /// cell where it is on screen (the top middle of the list where it is not).
    private func tagsAnchor(for id: PhotoID, in parent: Widget<AnyWidget>) -> GdkRectangle {
        let middle = GdkRectangle(x: parent.width / 2, y: 48, width: 1, height: 1)
        guard viewer.shownPhoto == nil, let tile = pane.boundTiles[id], tile.photo == id,
            let frame = tile.root.frame(in: parent), frame.y + frame.height > 0, frame.y < parent.height
        else { return middle }
        return frame
    }

    /// Takes back the marks given last.
    func undoMarks(_ edits: [MarkEdit], intoPhotos: Bool) {
        write(
            edits.map { MarkStep(file: $0.file, known: $0.new, target: $0.old) }, change: nil, pressed: .now,
            intoPhotos: intoPhotos)
    }

    /// Shows what is known of `steps` at once, then reads what is not and writes each photo's
    /// marks (`change` applied, or each step's `target`: Undo), a few files at once; what was
    /// done goes on the Undo list (unless undoing).
    /// `intoPhotos`: into the photos too (Undo: as the marks taken back were written), else as
    /// the preference says.
    private func write(
        _ steps: [MarkStep], change: (MarkChange, off: Bool)?, pressed: ContinuousClock.Instant,
        intoPhotos: Bool? = nil
    ) {
        let undoing = change == nil
        let shown = steps.compactMap { step in step.edit(change).map { (step.file.target.id, $0.new) } }
        guard !steps.isEmpty, !closing else { return }
        processor.setMarks(shown)
        let indexing = MarksForIndex()
        // One list for what is read and what is written: the index takes them in that order.
        let intoPhotos = intoPhotos ?? Self.writesMarksIntoPhotos
        let sidecars = SidecarWrites(indexing: indexing, intoPhotos: intoPhotos)
        // The folder watch is not to read back what is written here (as another app's change).
        let names = steps.flatMap {
            [$0.file.path + ".xmp", $0.file.path + ".XMP"] + (intoPhotos ? [$0.file.path] : [])
        }
        feed.ownChangesBegan(names)
        let since = (ContinuousClock.now - pressed).components
        let ms = Double(since.seconds) * 1_000 + Double(since.attoseconds) / 1e15
        Trace.shared.emit(
            change.map { Self.markedEvent($0.0, off: $0.off, steps: steps, ms: ms) }
                ?? Self.markedEvent(steps.compactMap { $0.edit(nil) }, ms: ms))
        marking = runBatch(
            .mark, steps, concurrency: 4,
            text: { done, total in
                String(
                    format: ntr("Marking %1$@ of %2$@ photo", "Marking %1$@ of %2$@ photos", total),
                    Localization.number(done), Localization.number(total))
            },
            work: { step -> Result<MarkOutcome, PhotoFileFailure> in
                let old = step.known ?? MarksFiles.read(photoAt: step.file.path, indexing: indexing)
                let new = step.target ?? change.map { $0.0.applied(to: old, off: $0.off) } ?? old
                let edit = MarkEdit(file: step.file, old: old, new: new)
                guard edit.new != edit.old else { return .success(MarkOutcome(edit: edit, saved: nil)) }
                switch sidecars.write(edit.new, old: edit.old, photoAt: step.file.path) {
                case .sidecar, .photo: return .success(MarkOutcome(edit: edit, saved: true))
                case .failed(_, keptInIndex: true): return .success(MarkOutcome(edit: edit, saved: false))
                case .failed(let failure, keptInIndex: false): return .failure(failure)
                }
            },
            finishing: { sidecars.flush() },
            piece: { [weak self] done in
                // Photos whose marks were read in the work show them now.
                let read = done.filter { $0.item.known == nil }.map { ($0.item.file.target.id, $0.value.edit.new) }
                if !read.isEmpty { self?.processor.setMarks(read) }
            },
            finished: { [weak self] tally, _ in
                guard let self else { return }
                marking = nil
                feed.ownChangesEnded(names)
                markingFinished(steps, tally: tally, undoing: undoing, intoPhotos: intoPhotos)
                // A key pressed meanwhile.
                if marking == nil, !waitingMarks.isEmpty { waitingMarks.removeFirst()() }
            })
        refresh()
    }

    private func markingFinished(
        _ steps: [MarkStep], tally: BatchTally<MarkStep, MarkOutcome>, undoing: Bool, intoPhotos: Bool
    ) {
        // Photos not written (the work was stopped, or a file refused them and nothing could
        // keep them) show what they had again, where that was known.
        let done = Set(tally.succeeded.map(\.item.file.target.id))
        let undone = steps.filter { !done.contains($0.file.target.id) }.compactMap { step in
            step.known.map { (step.file.target.id, $0) }
        }
        if !undone.isEmpty { processor.setMarks(undone) }
        let applied = tally.succeeded.compactMap { $0.value.saved == nil ? nil : $0.value.edit }
        if undoOnceMarked {
            // Undo was pressed while they were written: what was written is taken back.
            undoOnceMarked = false
            if !undoing { undoMarks(applied, intoPhotos: intoPhotos) }
        } else if !undoing, !applied.isEmpty {
            undoSteps.append(.marks(applied, intoPhotos: intoPhotos))
        }
        // A folder that cannot be written keeps its marks in the app's index: said once.
        let unsaved = tally.succeeded.filter { $0.value.saved == false }.map {
            ($0.item.file.path as NSString).deletingLastPathComponent
        }
        let newFolders = Set(unsaved).subtracting(foldersToldUnwritable)
        if let folder = newFolders.first {
            foldersToldUnwritable.formUnion(newFolders)
            status.showToast(
                String(
                    format: tr("Marks could not be saved in “%@”: Classic Photos keeps them itself"),
                    DisplayText.line((folder as NSString).lastPathComponent)))
        }
        if let (step, failure) = tally.failed.first {
            let count = tally.failed.count
            status.showToast(
                count == 1
                    ? String(
                        format: tr("The marks of “%@” could not be saved: %@"), DisplayText.line(step.file.target.name),
                        failure.localizedMessage)
                    : String(
                        format: ntr(
                            "The marks of %d photo could not be saved: %@",
                            "The marks of %d photos could not be saved: %@", count),
                        count, failure.localizedMessage))
        }
        refresh()
    }

    /// The trace's `photo.marked` for a key's change on the photos of `steps`: what it gives
    /// (for a tag, the tags those whose marks are known now have in common).
    private static func markedEvent(_ change: MarkChange, off: Bool, steps: [MarkStep], ms: Double) -> TraceEvent {
        let count = steps.count
        switch change {
        case .rating(let stars): return .photoMarked(count: count, rating: stars, label: nil, tags: nil, ms: ms)
        case .reject:
            return .photoMarked(count: count, rating: off ? 0 : PhotoMarks.rejected, label: nil, tags: nil, ms: ms)
        case .label(let label):
            return .photoMarked(count: count, rating: nil, label: off ? "" : label, tags: nil, ms: ms)
        case .addTag, .removeTag:
            let tagsNow: [[String]] = steps.compactMap { step in
                step.known.map { change.applied(to: $0, off: off).tags }
            }
            var common = tagsNow.first ?? []
            for tags in tagsNow.dropFirst() { common = common.filter(tags.contains) }
            return .photoMarked(count: count, rating: nil, label: nil, tags: common, ms: ms)
        }
    }

    /// The trace's `photo.marked` for Undo: how many photos, and what they now have in common
    /// where that changed.
    private static func markedEvent(_ edits: [MarkEdit], ms: Double) -> TraceEvent {
        func common<T: Equatable>(_ value: (PhotoMarks) -> T) -> T? {
            guard let first = edits.first.map({ value($0.new) }),
                edits.allSatisfy({ value($0.new) == first }),
                edits.contains(where: { value($0.old) != value($0.new) })
            else { return nil }
            return first
        }
        return .photoMarked(
            count: edits.count, rating: common(\.rating), label: common { $0.label ?? "" }, tags: common(\.tags),
            ms: ms)
    }
}
