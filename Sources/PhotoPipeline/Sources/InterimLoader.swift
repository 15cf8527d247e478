// Interim stand-in until the real sources land (deleted at merge).
import Foundation
import GLibKit

public enum PhotoSourceEvent: Sendable {
    case started(index: Int, location: URL)
    case batch(index: Int, PhotoSourceBatch)
    case finished(index: Int, location: URL, rows: Int)
    case failed(index: Int, location: URL, PhotoSourceError)
}

struct InterimListSource: PhotoSource {
    let location: URL
    func read(using fetcher: PhotoFetcher, cancellable: Cancellable, deliver: (PhotoSourceBatch) -> Void) throws(PhotoSourceError) {
        do {
            let data = try fetcher.readAll(location, cancellable: cancellable)
            deliver(PhotoSourceBatch(entries: try PhotoList.parse(data, base: location)))
        } catch let error as PhotoListError {
            throw PhotoSourceError(error.description)
        } catch {
            throw PhotoSourceError(String(describing: error))
        }
    }
}

public enum PhotoSources {
    public static func source(for argument: String, relativeTo directory: URL) -> any PhotoSource {
        InterimListSource(location: PhotoList.location(of: argument, relativeTo: directory))
    }
}

public final class PhotoSourceLoader: Sendable {
    private let fetcher: PhotoFetcher
    private let queue = OperationQueue()
    public init(fetcher: PhotoFetcher) { self.fetcher = fetcher; queue.maxConcurrentOperationCount = 1 }
    public func load(_ sources: [any PhotoSource], events: @escaping @MainActor @Sendable (PhotoSourceEvent) -> Void) -> Cancellable {
        let cancellable = Cancellable()
        queue.addOperation { [fetcher] in
            for (index, source) in sources.enumerated() {
                func send(_ e: PhotoSourceEvent) {
                    guard !cancellable.isCancelled else { return }
                    MainLoop.perform { MainActor.assumeIsolated { events(e) } }
                }
                send(.started(index: index, location: source.location))
                var rows = 0
                do {
                    try source.read(using: fetcher, cancellable: cancellable) { batch in
                        rows += batch.entries.count
                        send(.batch(index: index, batch))
                    }
                    send(.finished(index: index, location: source.location, rows: rows))
                } catch {
                    send(.failed(index: index, location: source.location, error as? PhotoSourceError ?? PhotoSourceError("\(error)")))
                }
            }
        }
        return cancellable
    }
}
