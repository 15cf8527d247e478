import Foundation
import GLibKit

/// A photo list in a property list file, local or on the web: the tutorial's data source.
///
/// Two shapes are read: a dictionary of name → address, shown in natural order of the names
/// (as a file manager sorts), and an array of `{name, url}` dictionaries, shown in the order
/// written. Addresses are kept as written; relative ones resolve against the list's own
/// location when a photo is first loaded.
public struct PropertyListSource: PhotoSource {
    public let location: URL

    public init(location: URL) {
        self.location = location
    }

    public func read(
        using fetcher: PhotoFetcher, cancellable: Cancellable,
        deliver: (PhotoSourceBatch) -> Void
    ) throws(PhotoSourceError) {
        let data: Data
        let policy: AddressPolicy
        do {
            // Within the fetcher's list limits: `maxListBytes` (a million rows with long
            // addresses fit) and `listSeconds`. Where the list came from decides what its
            // photos may reach.
            (data, policy) = try fetcher.readList(location, cancellable: cancellable)
        } catch {
            if cancellable.isCancelled { throw .cancelled }
            throw .listNotFetched(list: displayName, error)
        }
        let list = try PropertyListParser.parse(data, name: displayName, cancellable: cancellable)
        try Self.deliver(
            list, base: PhotoEntryBase(location, addressPolicy: policy), cancellable: cancellable, deliver)
    }

    /// The list's file name (its address when it has none), as errors name it.
    var displayName: String {
        let name = location.lastPathComponent
        return name.isEmpty || name == "/" ? location.absoluteString : name
    }

    /// Puts `list` in display order and hands it over in batches.
    static func deliver(
        _ list: ParsedPhotoList, base: PhotoEntryBase, cancellable: Cancellable,
        _ deliver: (PhotoSourceBatch) -> Void
    ) throws(PhotoSourceError) {
        let order: [Int]? =
            switch list.form {
            case .dictionary: NaturalOrder.order(names: list.names, links: list.links)
            case .array: nil
            }
        var start = 0
        while start < list.count {
            if cancellable.isCancelled { throw .cancelled }
            let end = min(start + PhotoSources.batchSize, list.count)
            let entries = (start..<end).map { position in
                let index = order?[position] ?? position
                return PhotoEntry(name: list.names[index], link: list.links[index], base: base)
            }
            deliver(PhotoSourceBatch(entries: entries))
            start = end
        }
    }
}
