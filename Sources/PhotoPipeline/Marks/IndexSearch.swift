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
    /// Each photo's file name and link, as the list of what is found shows them, made once
    /// and packed as the list keeps them: making them for each query was most of a broad
    /// word's time.
    let fileNames: PackedTexts
    let links: PackedTexts
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
        var fileNames = PackedTexts(), links = PackedTexts()
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
            let link = LiveFolder.link(path)
            guard !link.isEmpty else { continue }
            paths.append(path)
            taken.append(PhotoOrder.dateNumber(fact.taken) ?? 0)
            fileNames.append(Self.fileName(path))
            links.append(link)
            // The folders' names as a person knows them: below the home folder, the whole path
            // elsewhere ("Pictures 2021 07 Paris IMG_1.jpg").
            names.append(path.hasPrefix(homePrefix) ? String(path.dropFirst(homePrefix.count)) : path)
            tags.append(marks[path]?.tags.joined(separator: " ") ?? "")
            facts.append(PhotoSearch.factText(fact), ended: true)
        }
        return IndexSearch(
            paths: paths, taken: taken, fileNames: fileNames, links: links, names: names, tags: tags, facts: facts)
    }

    /// The last part of a path (Foundation's `lastPathComponent` is several times slower).
    static func fileName(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// The photos a query found, in order: their paths, and their rows for the list.
    public struct Found: Sendable {
        /// Every indexed photo's path, file name and link (the search's own, not copied).
        let allPaths: [String]
        let fileNames: PackedTexts
        let links: PackedTexts
        /// The photos found, by their places in those.
        let rows: [Int]

        public var count: Int { rows.count }
        public var paths: [String] { rows.map { allPaths[$0] } }

        func path(_ position: Int) -> String { allPaths[rows[position]] }
        func entry(_ position: Int) -> PhotoEntry {
            PhotoEntry(name: fileNames[rows[position]], link: links[rows[position]], base: nil)
        }
    }

    /// The photos every word of `query` finds, latest taken first (ties by path);
    /// nil once `cancelled` says so. (Whether each is a file still is for the list to find:
    /// `FoundPhotosSource`.)
    public func find(_ query: [[String]], cancelled: () -> Bool) -> Found? {
        guard !query.isEmpty else { return Found(allPaths: paths, fileNames: fileNames, links: links, rows: []) }
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
        return Found(allPaths: paths, fileNames: fileNames, links: links, rows: found)
    }
}

/// The photos a search over every indexed folder found (`IndexSearch`), as a list: each by its
/// file's name, in the order found; those that are no file now (the index keeps photos since
/// deleted or moved until it is cleared) are taken out once all are listed.
public struct FoundPhotosSource: PhotoSource {
    /// What was searched for.
    public let query: String
    public let found: IndexSearch.Found

    /// The photos in the first batch: more than a screen holds.
    let firstBatch: Int

    public init(query: String, found: IndexSearch.Found) {
        self.init(query: query, found: found, firstBatch: 300)
    }

    init(query: String, found: IndexSearch.Found, firstBatch: Int) {
        self.query = query
        self.found = found
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
        var delivered: [Int] = []
        let first = min(firstBatch, found.count)
        for position in 0..<first where Self.isFile(found.path(position)) { delivered.append(position) }
        deliver(PhotoSourceBatch(entries: delivered.map(found.entry)))
        let checked = delivered.count
        // ...the rest as they are, packed as the list keeps them (their texts are the search's)...
        var start = first
        while start < found.count {
            if cancellable.isCancelled { throw .cancelled }
            let end = min(start + PhotoSources.bulkBatchSize, found.count)
            deliver(
                PhotoSourceBatch(
                    packed: PackedEntries(names: found.fileNames, links: found.links, order: found.rows[start..<end])))
            delivered += start..<end
            start = end
        }
        // ...then the rest that are no file now (deleted or moved since) taken out: checking
        // 100,000 files takes a fifth of a second, which the list need not wait for.
        var gone: [Int] = []
        for (position, photo) in delivered.enumerated() where position >= checked {
            if position % 4_096 == 0, cancellable.isCancelled { throw .cancelled }
            if !Self.isFile(found.path(photo)) { gone.append(position) }
        }
        if !gone.isEmpty { deliver(PhotoSourceBatch(entries: [], removing: gone)) }
    }

    private static func isFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}
