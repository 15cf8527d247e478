import Foundation
import GLibKit

/// Where photos come from: a property list, a folder, a single picture's folder.
///
/// A source is read on a worker thread and hands over its entries in display order, in
/// batches, so that neither a slow network nor a million rows ever holds the main loop.
public protocol PhotoSource: Sendable {
    /// Where the source is, as traced (`source.start {url}`) and shown to the user.
    var location: URL { get }

    /// Reads the source on the calling (worker) thread, calling `deliver` with consecutive
    /// batches of entries in display order. Blocking; honours `cancellable`.
    func read(using fetcher: PhotoFetcher, cancellable: Cancellable,
              deliver: (PhotoSourceBatch) -> Void) throws(PhotoSourceError)
}

/// Consecutive entries of one source, in display order.
public struct PhotoSourceBatch: Sendable {
    public var entries: [PhotoEntry]
    /// The index, within `entries`, of the photo the user asked to open (a single picture
    /// named on the command line), if it is in this batch.
    public var selected: Int?

    public init(entries: [PhotoEntry], selected: Int? = nil) {
        self.entries = entries
        self.selected = selected
    }
}

/// Why a whole source could not be read, in words for the “Oops!” alert.
public struct PhotoSourceError: Error, CustomStringConvertible, Sendable, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }

    /// The read was cancelled (nobody is told: a cancelled load reports nothing).
    public static let cancelled = PhotoSourceError("Cancelled")
}
