import Foundation
import GLibKit
import PhotoPipeline

/// What a batch of file work came to so far: the items it did, and those it could not.
@MainActor
final class BatchTally<Item: Sendable, Value: Sendable> {
    var succeeded: [(item: Item, value: Value)] = []
    var failed: [(item: Item, failure: PhotoFileFailure)] = []
}

/// What the pieces of a batch have brought so far (the photos put back, say).
@MainActor
final class Collected<Element> {
    var items: [Element] = []
}

/// Acting on many photos at once, at the speed of the platform: the file work runs off the
/// main thread (`FileBatch`), the list is edited once for each piece handed back (not once a
/// photo), and work that takes over a second says how far it is, with Cancel.
extension PhotoActions {
    /// Runs `work` on each of `items`; `piece` gets each piece's successes on the main actor
    /// (to edit the list once for them), `finished` what the whole batch came to, cancelled
    /// or not. `text` words the progress ("Moving 3 of 10 photos to the trash").
    @discardableResult
    func runBatch<Item: Sendable, Value: Sendable>(
        _ kind: FileBatchKind, _ items: [Item], concurrency: Int = 1,
        text: @escaping (_ done: Int, _ total: Int) -> String,
        work: @escaping @Sendable (Item) -> Result<Value, PhotoFileFailure>,
        finishing: (@Sendable () -> Void)? = nil,
        piece: @escaping @MainActor @Sendable ([(item: Item, value: Value)]) -> Void,
        finished: @escaping @MainActor @Sendable (BatchTally<Item, Value>, _ cancelled: Bool) -> Void
    ) -> FileBatch {
        Trace.shared.emit(.batchStart(kind: kind, count: items.count))
        let batch = FileBatch()
        let tally = BatchTally<Item, Value>()
        let job = progress.begin(kind, total: items.count, text: text) { batch.cancel() }
        let delay = AppConfiguration.current.testSwitches.fileWorkDelayMilliseconds
        let paced: @Sendable (Item) -> Result<Value, PhotoFileFailure> = { item in
            if delay > 0 { usleep(delay * 1_000) }
            return work(item)
        }
        batch.run(items, concurrency: concurrency, work: paced, finishing: finishing) { [weak self] part in
            var succeeded: [(item: Item, value: Value)] = []
            for (item, outcome) in part.results {
                switch outcome {
                case .success(let value): succeeded.append((item, value))
                case .failure(let failure): tally.failed.append((item, failure))
                }
            }
            tally.succeeded += succeeded
            guard let self else { return }
            if !succeeded.isEmpty { piece(succeeded) }
            progress.update(job, done: part.done)
            guard part.isLast else { return }
            progress.end(job)
            let ms =
                Double(part.elapsed.components.seconds) * 1_000 + Double(part.elapsed.components.attoseconds) / 1e15
            Trace.shared.emit(
                .batchEnd(kind: kind, done: part.done, count: part.total, cancelled: part.wasCancelled, ms: ms))
            finished(tally, part.wasCancelled)
        }
        return batch
    }

    /// Finds which of `targets` are files on this computer, off the main thread (an address is
    /// parsed for each: 10,000 of them held the main loop 150 ms), then hands them to `body`.
    /// `elsewhereToo` (marks): a photo that is no file here (a share's, a web list's) comes
    /// too, by its address, its marks kept in the index alone (`MarksFiles`).
    func withFiles(
        _ targets: [PhotoTarget], elsewhereToo: Bool = false,
        _ body: @escaping @MainActor @Sendable ([FileTarget]) -> Void
    ) {
        guard !targets.isEmpty else { return }
        inBackground(
            {
                targets.compactMap { target in
                    let path = target.url.flatMap { $0.isFileURL ? $0.path : elsewhereToo ? $0.absoluteString : nil }
                    return path.map { FileTarget(target: target, path: $0) }
                }
            },
            then: { files in if !files.isEmpty { body(files) } })
    }
}
