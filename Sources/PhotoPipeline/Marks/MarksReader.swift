import Foundation
import GLibKit

/// Reads the marks of the photos shown, off the main thread, a few dozen at a time, in the
/// order they were asked for: from the index where it holds them for the file as it is, else
/// from the sidecar or the photo's own XMP (`MarksFiles.read`). What was read comes back to the
/// main actor in one go for each batch.
@MainActor
final class MarksReader {
    /// Photos asked for and not yet read, in order.
    private var wanted: [PhotoID] = []
    /// The entry each is read by: the latest given (a photo renamed meanwhile is read by its
    /// new name), for those waiting and those to be read again.
    private var entries: [PhotoID: PhotoEntry] = [:]
    /// Those being read.
    private var inFlight: Set<PhotoID> = []
    /// Photos asked for again while being read (their sidecar changed meanwhile).
    private var again: Set<PhotoID> = []
    private var reading = false
    /// How many photos one trip off the main thread reads.
    private let batchSize = 48
    private let queue = OperationQueue.serial("marks", .utility)
    /// Receives each batch's marks, by photo (photos that can have none are given `.none`).
    var onRead: (([(PhotoID, PhotoMarks)]) -> Void)?

    /// Has the marks of `id` read, unless they are being read already; `afresh`: read again
    /// after a read under way (what it reads may be from before a change).
    func want(_ id: PhotoID, entry: PhotoEntry, afresh: Bool = false) {
        guard !entry.isFolder else { return }
        if inFlight.contains(id) {
            if afresh {
                again.insert(id)
                entries[id] = entry
            }
            return
        }
        if entries.updateValue(entry, forKey: id) == nil { wanted.append(id) }
        readNext()
    }

    /// Forgets what was asked and not yet read (a new list).
    func forgetWanted() {
        wanted.removeAll()
        entries.removeAll()
        again.removeAll()
    }

    private func readNext() {
        guard !reading, !wanted.isEmpty else { return }
        reading = true
        let ids = wanted.prefix(batchSize)
        wanted.removeFirst(ids.count)
        let batch = ids.compactMap { id in entries.removeValue(forKey: id).map { (id, $0) } }
        inFlight = Set(ids)
        queue.addOperation {
            let indexing = MarksForIndex()
            let read = batch.map { id, entry in
                // Files on this computer by their paths; others (a share's, a web list's) by
                // their addresses, whose marks only the index keeps.
                let path = (try? entry.resolvedURL()).map { $0.isFileURL ? $0.path : $0.absoluteString }
                return (id, path.map { MarksFiles.read(photoAt: $0, indexing: indexing) } ?? PhotoMarks.none)
            }
            indexing.flush()
            MainLoop.onMainActor { [weak self] in
                guard let self else { return }
                reading = false
                inFlight = []
                onRead?(read)
                for id in again {
                    if let entry = entries.removeValue(forKey: id) { want(id, entry: entry) }
                }
                again.removeAll()
                readNext()
            }
        }
    }

    /// Stops reading (the window is closing).
    func close() {
        wanted.removeAll()
        entries.removeAll()
        again.removeAll()
        onRead = nil
        queue.cancelAllOperations()
    }
}
