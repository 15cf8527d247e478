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

    /// The same source, showing a folder's pictures in `order` (lists keep their own order).
    func ordered(by order: PhotoOrder) -> any PhotoSource
}

extension PhotoSource {
    public func ordered(by order: PhotoOrder) -> any PhotoSource { self }
}

/// Consecutive entries of one source, in display order.
public struct PhotoSourceBatch: Sendable {
    public var entries: [PhotoEntry]
    /// The index, within `entries`, of the photo the user asked to open (a single picture
    /// named on the command line), if it is in this batch.
    public var selected: Int?
    /// The folder these pictures are in, when the source is a folder (or a picture in one).
    public var folder: URL?
    /// The order the entries are in (a folder's), and the one asked for: they differ while a
    /// big folder's dates taken are still to be read.
    public var order: PhotoOrder?
    public var wantedOrder: PhotoOrder?

    public init(entries: [PhotoEntry], selected: Int? = nil, folder: URL? = nil, order: PhotoOrder? = nil,
                wantedOrder: PhotoOrder? = nil) {
        self.entries = entries
        self.selected = selected
        self.folder = folder
        self.order = order
        self.wantedOrder = wantedOrder
    }
}

/// Why a whole source could not be read, in words for the “Oops!” alert.
public struct PhotoSourceError: Error, CustomStringConvertible, Sendable, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }

    /// The read was cancelled (nobody is told: a cancelled load reports nothing).
    public static let cancelled = PhotoSourceError("Cancelled")
}
