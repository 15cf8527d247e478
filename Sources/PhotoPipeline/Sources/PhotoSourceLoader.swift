import Foundation
import GLibKit

/// What a `PhotoSourceLoader` reports, in order, for each source it reads.
public enum PhotoSourceEvent: Sendable {
    /// Reading source `index` began.
    case started(index: Int, location: URL)
    /// The next entries of source `index`, in display order.
    case batch(index: Int, PhotoSourceBatch)
    /// Source `index` was read completely: `rows` entries in all.
    case finished(index: Int, location: URL, rows: Int)
    /// Source `index` could not be read (entries it delivered before stay valid).
    case failed(index: Int, location: URL, PhotoSourceError)
}

/// Reads photo sources one after another on a worker thread and reports on the main loop.
///
/// Events are queued on the GLib main loop from the one worker, so they arrive in the order
/// they happened; once the returned `Cancellable` is cancelled (on the main thread), none
/// arrives any more.
public final class PhotoSourceLoader: Sendable {
    private let fetcher: PhotoFetcher
    private let queue: OperationQueue

    public init(fetcher: PhotoFetcher) {
        self.fetcher = fetcher
        queue = .serial("Photo Source Loading")
    }

    /// Reads `sources` in turn, reporting each through `events` on the main actor. A source
    /// that fails does not stop the ones after it. Cancel the result to abandon the load.
    ///
    /// With `pieces`, batches are cut on the worker into pieces of at most `rows` rows, the
    /// load's first `leadRows` rows into pieces of at most `leadPiece` (see
    /// `PhotoSourceBatch.pieces`), so that the main thread neither copies nor frees a source's
    /// big batches, and the views make their first rows a few at a time.
    ///
    /// With `traced`, `source.start` is traced as each source's reading begins, on the worker:
    /// the main loop may be busy with the window's first frames for a tenth of a second after.
    @discardableResult
    public func load(
        _ sources: [any PhotoSource], pieces: (leadRows: Int, leadPiece: Int, rows: Int)? = nil, traced: Bool = false,
        events: @escaping @MainActor @Sendable (PhotoSourceEvent) -> Void
    ) -> Cancellable {
        let cancellable = Cancellable()
        let post = { @Sendable (event: PhotoSourceEvent) in
            MainLoop.onMainActor {
                guard !cancellable.isCancelled else { return }
                events(event)
            }
        }
        queue.addOperation { [fetcher] in
            var rowsPosted = 0
            for (index, source) in sources.enumerated() {
                guard !cancellable.isCancelled else { return }
                if traced {
                    Trace.shared.emit(
                        .sourceStart(url: source.location.absoluteString, recursive: source.includesSubfolders))
                }
                post(.started(index: index, location: source.location))
                var rows = 0
                do throws(PhotoSourceError) {
                    try source.read(using: fetcher, cancellable: cancellable) { batch in
                        let added = batch.count - (batch.removing?.count ?? 0)
                        rows += added
                        guard let pieces else { return post(.batch(index: index, batch)) }
                        let lead = max(0, pieces.leadRows - rowsPosted)
                        for piece in batch.pieces(lead: lead, leadRows: pieces.leadPiece, rows: pieces.rows) {
                            post(.batch(index: index, piece))
                        }
                        rowsPosted += added
                    }
                    post(.finished(index: index, location: source.location, rows: rows))
                } catch {
                    if cancellable.isCancelled { return }
                    post(.failed(index: index, location: source.location, error))
                }
            }
        }
        return cancellable
    }
}
