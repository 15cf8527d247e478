/// Loads a photo list off the main thread and reports back on the main actor.
import Foundation
import GLibKit

public final class PhotoListLoader: Sendable {
    private let fetcher: PhotoFetcher
    private let queue: OperationQueue

    public init(fetcher: PhotoFetcher) {
        self.fetcher = fetcher
        queue = OperationQueue()
        queue.name = "Photo List Loading"
        queue.maxConcurrentOperationCount = 1
    }

    /// Fetches and parses the list at `url` on a worker thread; `completion` runs on the main actor.
    /// Returns a cancellable that abandons the load.
    @discardableResult
    public func load(_ url: URL, completion: @escaping @MainActor @Sendable (Result<[PhotoEntry], PhotoListError>) -> Void) -> Cancellable {
        let cancellable = Cancellable()
        Trace.shared.emit("source.start", ["url": .string(url.absoluteString)])
        queue.addOperation { [fetcher] in
            let result: Result<[PhotoEntry], PhotoListError>
            do {
                let data = try fetcher.readAll(url, cancellable: cancellable)
                result = .success(try PhotoList.parse(data, base: url))
            } catch let error as PhotoFailure {
                result = .failure(PhotoListError("Could not load “\(url.lastPathComponent)”: \(error.description)"))
            } catch let error as PhotoListError {
                result = .failure(error)
            } catch {
                result = .failure(PhotoListError(String(describing: error)))
            }
            guard !cancellable.isCancelled else { return }
            Task { @MainActor in completion(result) }
        }
        return cancellable
    }
}
