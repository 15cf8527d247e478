import Foundation
import GLibKit
import PhotoPipeline

/// The alt text of the photos the details panel and the viewer tell of: read off the main
/// thread (the sidecar's, else the photo's own XMP's: `MarksFiles.altText`), kept, and written
/// where the photo's marks go (its sidecar, or the photo with Write Marks into Photos) as the
/// details panel edits it. Reads and writes run one at a time, in the order asked.
@MainActor
final class AltTexts {
    /// What is known of each photo asked about (nil inside: it has none).
    private var known: [PhotoID: String?] = [:]
    private var reading: Set<PhotoID> = []
    private let queue = OperationQueue.serial("Classic Photos alt text", .userInitiated)
    private var observers: [(PhotoID) -> Void] = []
    /// Told of a save that failed, in words (for a toast).
    var onFailed: ((String) -> Void)?

    /// The most photos kept; past it, what is kept is let go (a person reads a few at a time).
    private static let capacity = 2_000

    /// The file of `entry`, where it is one on this computer (alt text is kept in files only).
    static func path(of entry: PhotoEntry) -> String? {
        guard let url = try? entry.resolvedURL(), url.isFileURL else { return nil }
        return url.path
    }

    /// Tells `body` of each photo whose alt text has been read or written.
    func observe(_ body: @escaping (PhotoID) -> Void) { observers.append(body) }

    /// The alt text of `id` once read (nil inside: none); nil while it is being read (asked for
    /// now: the observers are told when it comes).
    func text(of id: PhotoID, entry: PhotoEntry) -> String?? {
        if let held = known[id] { return .some(held) }
        guard let path = Self.path(of: entry) else { return .some(nil) }
        guard reading.insert(id).inserted else { return nil }
        queue.addOperation {
            let text = MarksFiles.altText(ofPhotoAt: path)
            MainLoop.onMainActor { [weak self] in
                guard let self, reading.remove(id) != nil else { return }
                keep(text, for: id)
            }
        }
        return nil
    }

    /// Writes `text` as the alt text of `id` (empty: takes it away), unless it is the one it
    /// has; shown at once, traced (`alt-text.saved`) once written.
    func save(_ text: String, of id: PhotoID, entry: PhotoEntry, intoPhoto: Bool) {
        let change = AltTextChange(text)
        guard let path = Self.path(of: entry) else {
            onFailed?(tr("Alt text is kept only for photos that are files on this computer"))
            return
        }
        guard known[id].map({ $0 != change.text }) ?? true else { return }
        reading.remove(id) // a read under way would bring the old text back
        keep(change.text, for: id)
        queue.addOperation {
            let written = MarksFiles.writeAltText(change, photoAt: path, intoPhoto: intoPhoto)
            MainLoop.onMainActor { [weak self] in self?.saved(written, change, of: id, name: entry.name) }
        }
    }

    private func saved(_ written: MarksFiles.Written, _ change: AltTextChange, of id: PhotoID, name: String) {
        switch written {
        case .sidecar(let path), .photo(let path):
            Trace.shared.emit(.altTextSaved(id: id, text: change.text ?? "", path: path, error: ""))
        case .failed(let failure, _):
            Trace.shared.emit(.altTextSaved(id: id, text: change.text ?? "", path: "", error: failure.message))
            forget([id])
            observers.forEach { $0(id) }
            onFailed?(
                String(
                    format: tr("The alt text of “%@” could not be saved: %@"), DisplayText.line(name),
                    failure.localizedMessage))
        }
    }

    /// Lets go of what was read of `ids` (their files changed): read again when next asked for.
    func forget(_ ids: some Sequence<PhotoID>) {
        for id in ids {
            known.removeValue(forKey: id)
            reading.remove(id)
        }
    }

    private func keep(_ text: String?, for id: PhotoID) {
        if known.count >= Self.capacity { known.removeAll() }
        known[id] = .some(text)
        observers.forEach { $0(id) }
    }

    /// Waits for the writes under way (the window is closing).
    func close() {
        queue.waitUntilAllOperationsAreFinished()
        observers.removeAll()
        onFailed = nil
    }
}
