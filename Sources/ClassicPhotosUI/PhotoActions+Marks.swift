import CGLib
import Foundation
import GLibKit
import PhotoPipeline

/// What one key does to the marks of the photos it acts on.
enum MarkChange: Sendable, Equatable {
    /// 1 to 5 stars; 0 takes them away (and un-rejects).
    case rating(Int)
    /// Rejects; on photos all rejected already, takes the reject away.
    case reject
    /// Gives a colour label; on photos that all have it already, takes it away.
    case label(String)

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
        case .rating: false
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

/// Stars, reject and colour labels from the keyboard, on every photo acted on: shown at once,
/// written to each photo's XMP sidecar off the main thread (a batch, with progress past a
/// second), undone together.
extension PhotoActions {
    /// Gives the photos acted on the marks `change` names, or takes them away.
    func mark(_ change: MarkChange) {
        let targets = photoTargets()
        guard !targets.isEmpty else { return }
        // Marks known already are taken as they are; the others are read, with the paths.
        let known = processor.knownMarks(of: targets.map(\.id))
        inBackground(
            {
                zip(targets, known).compactMap { target, marks -> (FileTarget, PhotoMarks)? in
                    guard let path = target.path else { return nil }
                    return (FileTarget(target: target, path: path), marks ?? MarksFiles.read(photoAt: path))
                }
            },
            then: { [weak self] files in
                guard let self, !files.isEmpty else { return }
                let off = change.isHeld(byAll: files.map(\.1))
                let edits = files.compactMap { file, old in
                    let new = change.applied(to: old, off: off)
                    return new == old ? nil : MarkEdit(file: file, old: old, new: new)
                }
                apply(edits, undoing: false)
            })
    }

    /// Takes back the marks given last.
    func undoMarks(_ edits: [MarkEdit]) {
        apply(edits.map(\.reversed), undoing: true)
    }

    /// Shows `edits` at once, then writes them; what was done goes on the Undo list (unless
    /// `undoing`).
    private func apply(_ edits: [MarkEdit], undoing: Bool) {
        guard !edits.isEmpty else { return }
        processor.setMarks(edits.map { ($0.file.target.id, $0.new) })
        Trace.shared.emit(Self.markedEvent(edits))
        marking = runBatch(
            .mark, edits,
            text: { done, total in
                String(
                    format: ntr("Marking %1$@ of %2$@ photo", "Marking %1$@ of %2$@ photos", total),
                    Localization.number(done), Localization.number(total))
            },
            work: { edit in
                switch MarksFiles.write(edit.new, old: edit.old, photoAt: edit.file.path) {
                case .sidecar: .success(true)
                case .failed(_, keptInIndex: true): .success(false)
                case .failed(let failure, keptInIndex: false): .failure(failure)
                }
            },
            piece: { _ in },
            finished: { [weak self] tally, _ in
                guard let self else { return }
                marking = nil
                markingFinished(edits, tally: tally, undoing: undoing)
            })
        refresh()
    }

    private func markingFinished(_ edits: [MarkEdit], tally: BatchTally<MarkEdit, Bool>, undoing: Bool) {
        // Photos not written (the work was stopped, or a file refused them and nothing could
        // keep them) show what they had again.
        let done = Set(tally.succeeded.map(\.item.file.target.id))
        let undone = edits.filter { !done.contains($0.file.target.id) }
        if !undone.isEmpty { processor.setMarks(undone.map { ($0.file.target.id, $0.old) }) }
        let applied = tally.succeeded.map(\.item)
        if undoOnceMarked {
            // Undo was pressed while they were written: what was written is taken back.
            undoOnceMarked = false
            if !undoing { undoMarks(applied) }
        } else if !undoing, !applied.isEmpty {
            undoSteps.append(.marks(applied))
        }
        // A folder that cannot be written keeps its marks in the app's index: said once.
        let unsaved = tally.succeeded.filter { !$0.value }.map {
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
        if let (edit, failure) = tally.failed.first {
            let count = tally.failed.count
            status.showToast(
                count == 1
                    ? String(
                        format: tr("The marks of “%@” could not be saved: %@"), DisplayText.line(edit.file.target.name),
                        failure.localizedMessage)
                    : String(
                        format: ntr(
                            "The marks of %d photo could not be saved: %@",
                            "The marks of %d photos could not be saved: %@", count),
                        count, failure.localizedMessage))
        }
        refresh()
    }

    /// The trace's `photo.marked`: how many photos, and what they now have in common where
    /// that changed.
    private static func markedEvent(_ edits: [MarkEdit]) -> TraceEvent {
        func common<T: Equatable>(_ value: (PhotoMarks) -> T) -> T? {
            guard let first = edits.first.map({ value($0.new) }),
                edits.allSatisfy({ value($0.new) == first }),
                edits.contains(where: { value($0.old) != value($0.new) })
            else { return nil }
            return first
        }
        return .photoMarked(
            count: edits.count, rating: common(\.rating), label: common { $0.label ?? "" }, tags: common(\.tags))
    }
}
