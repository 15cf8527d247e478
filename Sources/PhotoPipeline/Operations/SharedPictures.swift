import Foundation
import GLibKit

/// Rows that show the same photo at the same size (a list naming one address twice) share
/// one decode and one picture: a decode of a request that is in progress is joined rather
/// than repeated (`WorkSharing`), and a finished picture is found again for as long as any
/// row still holds it (the table holds it weakly, so it costs no memory of its own).
public final class SharedPictures: Sendable {
    private final class WeakImage: @unchecked Sendable {
        weak var image: PhotoImage?
        init(_ image: PhotoImage) { self.image = image }
    }

    private struct Finished {
        var pictures: [PhotoRequest: WeakImage] = [:]
        /// Entries added since the last sweep of pictures no longer held.
        var added = 0
    }
    private let finished = Locked(Finished())
    /// Decodes in progress; the first row asking decodes, so there is no job to hand on.
    private let decodes = WorkSharing<PhotoRequest, Void, PhotoImage>()

    public init() {}

    /// The request of a photo shown in `frame`: its address, the frame's side and its kind.
    public static func key(_ entry: PhotoEntry, frame: ThumbnailFrame) -> PhotoRequest? {
        (try? entry.resolvedURL()).map { PhotoRequest(address: $0, size: frame.side, kind: .picture(frame.fill)) }
    }

    /// Forgets the finished pictures of the photo at `url`, at every size (its file changed).
    public func forget(_ url: URL) {
        finished.withLock { $0.pictures = $0.pictures.filter { $0.key.address.absoluteString != url.absoluteString } }
    }

    /// A finished picture for `key` that some row still holds.
    public func picture(for key: PhotoRequest) -> PhotoImage? {
        finished.withLock { $0.pictures[key]?.image }
    }

    /// Runs `work` for `key`, unless another caller is running it now: then waits for that
    /// one and takes its picture (or its failure, unless it was a cancellation, after which
    /// this caller does the work itself).
    public func produce(
        _ key: PhotoRequest, _ work: () throws(PhotoFailure) -> PhotoImage
    ) throws(PhotoFailure) -> PhotoImage {
        if let image = picture(for: key) { return image }
        let ticket = decodes.join(key) { _ in () }
        guard ticket.started else {
            switch ticket.wait() {
            case .success(let image): return image
            case .failure(let failure) where !failure.isCancellation: throw failure
            case .failure: return try work()
            }
        }
        // Finished by another row between the look and the join.
        if let image = picture(for: key) {
            decodes.finish(ticket.work, .success(image))
            return image
        }
        let result = Result(catching: work)
        if case .success(let image) = result { keep(image, for: key) }
        decodes.finish(ticket.work, result)
        return try result.get()
    }

    private func keep(_ image: PhotoImage, for key: PhotoRequest) {
        finished.withLock { finished in
            finished.pictures[key] = WeakImage(image)
            finished.added += 1
            if finished.added > 256 {
                finished.added = 0
                finished.pictures = finished.pictures.filter { $0.value.image != nil }
            }
        }
    }
}
