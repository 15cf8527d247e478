import CGLib
import Foundation
import GLibKit

/// Finding photos in every folder the index knows (each folder opened, sorted by date or
/// searched before), not only the list shown: the same words as the list's search (the
/// photo's name and its folders' names, its tags, the year and month it was taken, its camera
/// and lens, its town and country), matched against what the index holds, so no file is read.
/// The words of every indexed photo are made once (off the main thread, some 0.3 s for 100,000)
/// and kept while the search goes on; each query is matched against them in milliseconds.
public struct IndexSearch: Sendable {
    /// Each indexed photo's path (in the order of their bytes), and when it was taken as a number
    /// (`PhotoOrder.dateNumber`), for the order found photos come in.
    let paths: [String]
    let taken: [Int64]
    /// The words of each photo's name and folders (below the home folder), of its tags, and of
    /// what the index knows of it, by its place in `paths`.
    let names: PhotoSearch.Words
    let tags: PhotoSearch.Words
    let facts: PhotoSearch.Words

    /// How many photos the index knows.
    public var count: Int { paths.count }

    /// The words of every photo `index` holds; nil once `cancelled` says so.
    public static func read(from index: PhotoIndex, cancelled: () -> Bool) -> IndexSearch? {
        let marks = index.marks(under: "")
        let home = String(cString: g_get_home_dir())
        let homePrefix = home.hasSuffix("/") ? home : home + "/"
        var paths: [String] = []
        var taken: [Int64] = []
        var names = PhotoSearch.Words(), tags = PhotoSearch.Words(), facts = PhotoSearch.Words()
        // Every row, in the order of the paths (the table's own: no sort), read first: the words
        // are made after, not while the index is held.
        var rows: [(path: String, facts: PhotoIndex.Facts)] = []
        index.forEachRow(inFolder: "/") { bytes, length, fact in
            rows.append((String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self), fact))
        }
        paths.reserveCapacity(rows.count)
        taken.reserveCapacity(rows.count)
        for (count, (path, fact)) in rows.enumerated() {
            if count % 4_096 == 0, cancelled() { return nil }
            paths.append(path)
            taken.append(PhotoOrder.dateNumber(fact.taken) ?? 0)
            // The folders' names as a person knows them: below the home folder, the whole path
            // elsewhere ("Pictures 2021 07 Paris IMG_1.jpg").
            names.append(path.hasPrefix(homePrefix) ? String(path.dropFirst(homePrefix.count)) : path)
            tags.append(marks[path]?.tags.joined(separator: " ") ?? "")
            facts.append(PhotoSearch.factText(fact), ended: true)
        }
        return IndexSearch(paths: paths, taken: taken, names: names, tags: tags, facts: facts)
    }

    /// The paths of the photos every word of `query` finds, latest taken first (ties by path);
    /// nil once `cancelled` says so. (Whether each is a file still is for the list to find:
    /// `FoundPhotosSource`.)
    public func find(_ query: [[String]], cancelled: () -> Bool) -> [String]? {
        guard !query.isEmpty else { return [] }
        let forms = query.map { forms in forms.map { Array($0.utf8) } }
        var found: [Int] = []
        for photo in paths.indices {
            if photo % 4_096 == 0, cancelled() { return nil }
            let matches = forms.allSatisfy { word in
                word.contains { form in
                    names.matches(photo, [form]) || tags.matches(photo, [form])
                        || facts.matches(photo, [PhotoSearch.factNeedle(form)])
                }
            }
            if matches { found.append(photo) }
        }
        // (The paths are in order: ties keep it.)
        found.sort { taken[$0] != taken[$1] ? taken[$0] > taken[$1] : $0 < $1 }
        return found.map { paths[$0] }
    }
}

/// The photos a search over every indexed folder found (`IndexSearch`), as a list: each by its
/// file's name, in the order found; those that are no file now (the index keeps photos since
/// deleted or moved until it is cleared) are taken out once all are listed.
public struct FoundPhotosSource: PhotoSource {
    /// What was searched for.
    public let query: String
    public let paths: [String]

    /// The photos in the first batch: more than a screen holds.
    let firstBatch: Int

    public init(query: String, paths: [String]) {
        self.init(query: query, paths: paths, firstBatch: 300)
    }

    init(query: String, paths: [String], firstBatch: Int) {
        self.query = query
        self.paths = paths
        self.firstBatch = firstBatch
    }

    /// A search's address, as traced: `classic-photos-search:` and the words.
    public var location: URL {
        var parts = URLComponents()
        parts.scheme = "classic-photos-search"
        parts.path = query
        return parts.url ?? URL(string: "classic-photos-search:")!
    }

    public func read(
        using fetcher: PhotoFetcher, cancellable: Cancellable, deliver: (PhotoSourceBatch) -> Void
    ) throws(PhotoSourceError) {
        // Every photo found at once, as the index has it: a screenful first, only those that
        // are files (they are loaded at once)...
        var delivered: [String] = []
        delivered.reserveCapacity(paths.count)
        var checked = 0
        var start = 0
        while start < paths.count {
            if cancellable.isCancelled { throw .cancelled }
            let end = min(start + (start == 0 ? firstBatch : PhotoSources.batchSize), paths.count)
            var entries: [PhotoEntry] = []
            entries.reserveCapacity(end - start)
            for path in paths[start..<end] {
                if start == 0, !Self.isFile(path) { continue }
                let link = LiveFolder.link(path)
                guard !link.isEmpty else { continue }
                entries.append(PhotoEntry(name: (path as NSString).lastPathComponent, link: link, base: nil))
                delivered.append(path)
            }
            deliver(PhotoSourceBatch(entries: entries))
            if start == 0 { checked = delivered.count }
            start = end
        }
        // ...then the rest that are no file now (deleted or moved since) taken out: checking
        // 100,000 files takes a fifth of a second, which the list need not wait for.
        var gone: [Int] = []
        for (position, path) in delivered.enumerated() where position >= checked {
            if position % 4_096 == 0, cancellable.isCancelled { throw .cancelled }
            if !Self.isFile(path) { gone.append(position) }
        }
        if !gone.isEmpty { deliver(PhotoSourceBatch(entries: [], removing: gone)) }
    }

    private static func isFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}
