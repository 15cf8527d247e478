import Foundation
import GLibKit

/// Rows that show the same photo at the same size (a list naming one address twice) share
/// one decode and one picture: a decode of a key that is in progress is waited for rather
/// than repeated, and a finished picture is found again for as long as any row still holds it
/// (the table holds it weakly, so it costs no memory of its own).
public final class SharedPictures: Sendable {
    private typealias Flight = OneShot<Result<PhotoImage, PhotoFailure>>

    private final class WeakImage: @unchecked Sendable {
        weak var image: PhotoImage?
        init(_ image: PhotoImage) { self.image = image }
    }

    private struct Table {
        var inFlight: [String: Flight] = [:]
        var finished: [String: WeakImage] = [:]
        /// Entries added since the last sweep of pictures no longer held.
        var added = 0
    }
    private let table = Locked(Table())

    public init() {}

    /// The key of a photo shown at `side` pixels: its address and the size.
    public static func key(_ entry: PhotoEntry, side: Int) -> String? {
        (try? entry.resolvedURL()).map { "\(side) \($0.absoluteString)" }
    }

    /// Forgets the finished pictures of the photo at `url`, at every size (its file changed).
    public func forget(_ url: URL) {
        let suffix = " " + url.absoluteString
        table.withLock { table in table.finished = table.finished.filter { !$0.key.hasSuffix(suffix) } }
    }

    /// A finished picture for `key` that some row still holds.
    public func picture(for key: String) -> PhotoImage? {
        table.withLock { $0.finished[key]?.image }
    }

    /// Runs `work` for `key`, unless another caller is running it now: then waits for that
    /// one and takes its picture (or its failure, unless it was a cancellation, after which
    /// this caller does the work itself).
    public func produce(_ key: String, _ work: () throws(PhotoFailure) -> PhotoImage) throws(PhotoFailure) -> PhotoImage
    {
        enum Role {
            case found(PhotoImage)
            case wait(Flight)
            case run(Flight)
        }
        let role = table.withLock { table -> Role in
            if let image = table.finished[key]?.image { return .found(image) }
            if let flight = table.inFlight[key] { return .wait(flight) }
            let flight = Flight()
            table.inFlight[key] = flight
            return .run(flight)
        }
        switch role {
        case .found(let image):
            return image
        case .wait(let flight):
            switch flight.wait() {
            case .success(let image): return image
            case .failure(let failure) where !failure.isCancellation: throw failure
            case .failure: return try work()
            }
        case .run(let flight):
            let result = Result(catching: work)
            table.withLock { table in
                table.inFlight[key] = nil
                if case .success(let image) = result {
                    table.finished[key] = WeakImage(image)
                    table.added += 1
                    if table.added > 256 {
                        table.added = 0
                        table.finished = table.finished.filter { $0.value.image != nil }
                    }
                }
            }
            flight.set(result)
            return try result.get()
        }
    }
}
