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
    func read(
        using fetcher: PhotoFetcher, cancellable: Cancellable,
        deliver: (PhotoSourceBatch) -> Void) throws(PhotoSourceError)

    /// The same source, showing a folder's pictures in `order` (lists keep their own order).
    func ordered(by order: PhotoOrder) -> any PhotoSource

    /// The same source, showing a folder's sub-folders as items (false) or every picture
    /// beneath it instead (true). Lists are what they are.
    func includingSubfolders(_ include: Bool) -> any PhotoSource

    /// Whether a folder is shown with every picture beneath it.
    var includesSubfolders: Bool { get }
}

extension PhotoSource {
    public func ordered(by order: PhotoOrder) -> any PhotoSource { self }
    public func includingSubfolders(_ include: Bool) -> any PhotoSource { self }
    public var includesSubfolders: Bool { false }
}

/// Consecutive entries of one source, in display order.
public struct PhotoSourceBatch: Sendable {
    /// The entries; made from `packed` when the batch came packed (see `init(packed:…)`).
    public var entries: [PhotoEntry] {
        get { listed ?? packed?.entries ?? [] }
        set {
            listed = newValue
            packed = nil
        }
    }
    private var listed: [PhotoEntry]?
    /// How many entries it holds.
    public var count: Int { listed?.count ?? packed?.count ?? 0 }
    /// The index, within `entries`, of the photo the user asked to open (a single picture
    /// named on the command line), if it is in this batch.
    public var selected: Int?
    /// The folder these pictures are in, when the source is a folder (or a picture in one).
    public var folder: URL?
    /// The order the entries are in (a folder's), and the one asked for: they differ while a
    /// big folder's dates taken are still to be read.
    public var order: PhotoOrder?
    public var wantedOrder: PhotoOrder?
    /// When the source is a folder with every picture beneath it: every folder read, `folder`
    /// first.
    public var tree: [URL]?
    /// Where each entry goes (ascending), among the source's entries delivered so far, when
    /// the source delivered a photo ahead of its list (one named on a slow share, shown while
    /// its folder is read): the rest fill in around it. nil: after them, in order.
    public var positions: [Int]?
    /// Entries delivered before to take out first, by their positions among the source's
    /// entries delivered so far (ascending): rows a tree showed ahead of its listing from the
    /// index (see `TreeLead`) that the listing does not hold. `positions` count without them.
    public var removing: [Int]?
    /// Whether `order` (by date taken) comes from the dates the index held for the entries'
    /// paths, not yet checked against the files' sizes and times (a big folder, shown at once
    /// in the order it had last time; the files that changed since are found in the background).
    public var orderFromIndex: Bool
    /// When the source's folders began to be read, on the system's clock (seconds since 1970,
    /// as file times are kept), for a folder shown: a folder changed since then may hold files
    /// its listing missed, until it is watched.
    public var readBegan: Double?
    /// `entries` packed as the list keeps them, where the batch was cut into pieces (on the
    /// loader's worker: see `pieces(lead:leadRows:rows:)`) to be appended.
    public private(set) var packed: PackedEntries?

    public init(
        entries: [PhotoEntry], selected: Int? = nil, folder: URL? = nil, order: PhotoOrder? = nil,
        wantedOrder: PhotoOrder? = nil, tree: [URL]? = nil, positions: [Int]? = nil, removing: [Int]? = nil,
        orderFromIndex: Bool = false, readBegan: Double? = nil
    ) {
        self.listed = entries
        self.readBegan = readBegan
        self.selected = selected
        self.folder = folder
        self.order = order
        self.wantedOrder = wantedOrder
        self.tree = tree
        self.positions = positions
        self.removing = removing
        self.orderFromIndex = orderFromIndex
    }

    /// A batch of entries already packed, to be appended after the source's others (a big
    /// folder's, packed on the worker that read it).
    public init(
        packed: PackedEntries, selected: Int? = nil, folder: URL? = nil, order: PhotoOrder? = nil,
        wantedOrder: PhotoOrder? = nil, tree: [URL]? = nil, orderFromIndex: Bool = false, readBegan: Double? = nil
    ) {
        self.init(
            entries: [], selected: selected, folder: folder, order: order, wantedOrder: wantedOrder, tree: tree,
            orderFromIndex: orderFromIndex, readBegan: readBegan)
        listed = nil
        self.packed = packed
    }

    /// The batch cut into pieces: its first `lead` entries in pieces of at most `leadRows`,
    /// the rest in pieces of at most `rows`. Each keeps the batch's folder and order, and the
    /// piece holding the selected entry says so. Pieces to be appended carry their entries
    /// packed (`packed`). Entries to take out (`removing`) are taken out with the first piece.
    public func pieces(lead: Int, leadRows: Int, rows: Int) -> [PhotoSourceBatch] {
        // An empty folder still says which folder it is; a packed batch that is one piece
        // stays packed.
        if count == 0 || (packed != nil && lead == 0 && count <= rows) { return [self] }
        let entries = entries
        var pieces: [PhotoSourceBatch] = []
        var start = 0
        while start < entries.count {
            let end = min(entries.count, start + max(1, start < lead ? min(leadRows, lead - start) : rows))
            var piece = self
            // A batch that is one piece keeps its entries as they are (a tree's 100,000 were
            // copied here, and the copy freed again on another thread).
            if start > 0 || end < entries.count { piece.entries = Array(entries[start..<end]) }
            // Positions ascend, so each piece's are right once the pieces before it are in.
            piece.positions = positions.map { Array($0[start..<end]) }
            piece.selected = selected.flatMap { (start..<end).contains($0) ? $0 - start : nil }
            if start > 0 { piece.removing = nil }
            // A piece that goes after the rest is packed here, off the main thread.
            if positions == nil, piece.packed == nil { piece.packed = PackedEntries(piece.entries) }
            pieces.append(piece)
            start = end
        }
        return pieces
    }
}

/// Why a whole source could not be read: what went wrong, with what it concerns. The words a
/// person reads for each are the app's, not the pipeline's.
public enum PhotoSourceError: Error, Sendable, Equatable {
    /// The read was cancelled (nobody is told: a cancelled load reports nothing).
    case cancelled
    /// Nothing is at `path`.
    case notFound(path: String)
    /// `path`, or a folder on the way to it, may not be read.
    case permissionDenied(path: String)
    /// `path` could not be read for another reason; `detail` is the system's own account.
    case unreadable(path: String, detail: String)
    /// A folder was to be read at `path`, and something else is there.
    case notAFolder(path: String)
    /// `path` is neither a folder nor a regular file (a device, a socket, …).
    case notPhotos(path: String)
    /// The network share or device holding `location` is not mounted (the app mounts it and
    /// reads the source again).
    case notMounted(location: String)
    /// The share holding `location` could not be mounted; `detail` is GIO's account.
    case mountFailed(location: String, detail: String)
    /// The list called `list` could not be fetched, for the reasons a photo cannot: the server's
    /// HTTP status, the network, a deadline, the size limit, no bytes at all, …
    case listNotFetched(list: String, PhotoFailure)
    /// The bytes of the list called `list` are not a property list; `flaw` says what the XML
    /// reader found, when it knows.
    case notAPropertyList(list: String, flaw: PropertyListFlaw? = nil)
    /// A property list that is neither a dictionary of names to addresses nor an array of
    /// `{name, url}` dictionaries.
    case notAPhotoList
    /// Item `item` (0-based) of an array list is not a dictionary.
    case itemNotADictionary(item: Int)
    /// Item `item` (0-based) of an array list has no `name` string.
    case itemWithoutName(item: Int)

    /// What made an XML file unreadable as a property list, when there is more to say.
    public enum PropertyListFlaw: Sendable, Equatable {
        /// A dictionary holds a value with no key before it.
        case valueWithoutKey
        /// GLib's markup reader stopped; its own message (with the line and character).
        case markup(String)
    }
}
