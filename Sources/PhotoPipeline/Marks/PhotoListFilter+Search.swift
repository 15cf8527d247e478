import CGLib
import Foundation
import GLibKit

/// Which names words were made from: a list, as it was after so many renames.
struct NamesOf: Equatable, Sendable {
    let list: Int
    let renames: Int
}

/// What a list's search holds: the words typed, which photos they match, and the words of the
/// list's names made so far (kept from one search to the next, and made ahead when the search
/// bar opens: folding 100,000 names takes a fifth of a second, matching them a few
/// milliseconds).
struct SearchState {
    var text = ""
    var query: [[String]] = []
    /// Whether each photo matches, by its arrival in the list; nil: no search (or none made yet).
    var verdicts: [Bool]?
    /// The words of the names, and the list they are of (`PhotoList.generation`, and how many
    /// renames it had); read and made on by the searches, one after another on `queue`.
    let names = Locked<(of: NamesOf, words: PhotoSearch.Words)>((NamesOf(list: -1, renames: 0), PhotoSearch.Words()))
    /// Renames in the list since it came (names made before one are not reused).
    var renames = 0
    /// The words of what the index knows of the photos (dates taken, cameras, lenses), and the list
    /// they are of; made again each time the search bar opens (the index learns as photos load).
    let facts = Locked<(list: Int, words: PhotoSearch.Words?)>((-1, nil))
    /// Teaching the index the dates and cameras it lacks, for the list (`PhotoList.generation`)
    /// it was begun for.
    let learning = OperationQueue.serial("search facts", .utility)
    var learnt = -1
    var learningRun: Cancellable?
    var running: Cancellable?
    /// The list whose tags were asked of the index for the search (once for each).
    var tagsAskedFor = -1
    /// When the words were typed (GLib's monotonic clock, µs).
    var typedAt = g_get_monotonic_time()
    let queue = OperationQueue.serial("search", .userInitiated)
}

/// The search over the list: the list, the grid and the viewer's paging show only the photos
/// whose names (and sub-folders), tags, dates taken, cameras, lenses or places hold every word typed, with the
/// filter's marks besides. Matching runs off the main thread; the list is shown again when it is done.
extension PhotoListFilter {
    /// What is searched for ("" for nothing).
    public var searchText: String { search.text }
    /// Whether a search narrows the list.
    public var isSearching: Bool { !search.query.isEmpty }

    /// Shows only the photos that `text`'s words find (every photo again for ""); `typedAt`:
    /// when the key that made `text` was pressed (GLib's monotonic clock), for the trace.
    public func setSearch(_ text: String, typedAt: Int? = nil) {
        let query = PhotoSearch.query(text)
        search.text = text
        search.typedAt = typedAt ?? g_get_monotonic_time()
        guard query != search.query else { return }
        search.query = query
        search.running?.cancel()
        search.running = nil
        guard !query.isEmpty else {
            // Nothing searched for: no search made again later either.
            searchSoon.cancel()
            search.verdicts = nil
            refilter()
            return emitSearch()
        }
        askForTags()
        runSearch()
    }

    /// Makes the words of the list's names ahead (the search bar opened), so that the first
    /// word typed is matched at once.
    public func prepareSearch() {
        askForTags()
        let (snapshot, of, names, facts) = (list.snapshot(), namesOf, search.names, search.facts)
        facts.withLock { $0 = (-1, nil) }
        search.queue.addOperation {
            _ = Self.wordsOfNames(in: snapshot, of: of, names, cancelled: { false })
            _ = Self.wordsOfFacts(in: snapshot, of: of.list, facts, cancelled: { false })
        }
        learnFacts(snapshot)
    }

    /// The most photos whose dates and cameras the index is taught when the search bar opens.
    private nonisolated static let learnedAtOnce = 5_000

    /// Has the index learn the dates and cameras of the list's photos it lacks (once for a
    /// list, on a queue of its own), then matches the search again with them.
    private func learnFacts(_ snapshot: PhotoCollectionSnapshot) {
        guard search.learnt != list.generation, let index = PhotoIndex.shared else { return }
        let generation = list.generation
        search.learnt = generation
        search.learningRun?.cancel()
        let cancellable = Cancellable()
        search.learningRun = cancellable
        search.learning.addOperation { [weak self] in
            guard
                PhotoSearch.learn(
                    snapshot, into: index, limit: Self.learnedAtOnce, cancelled: { cancellable.isCancelled })
            else { return }
            MainLoop.onMainActor { [weak self] in
                guard let self, !cancellable.isCancelled, list.generation == generation else { return }
                search.facts.withLock { $0 = (-1, nil) }
                searchAgain()
            }
        }
    }

    /// The words of what the index knows of `snapshot`'s photos (of the list `generation`):
    /// those kept in `facts` for it, or made (and kept).
    private nonisolated static func wordsOfFacts(
        in snapshot: PhotoCollectionSnapshot, of generation: Int,
        _ facts: Locked<(list: Int, words: PhotoSearch.Words?)>, cancelled: () -> Bool
    ) -> PhotoSearch.Words? {
        if let kept = facts.withLock({ $0.list == generation ? $0.words : nil }) { return kept }
        guard let index = PhotoIndex.shared,
            let made = PhotoSearch.facts(of: snapshot, in: index, cancelled: cancelled)
        else { return nil }
        facts.withLock { if $0.list <= generation { $0 = (generation, made) } }
        return made
    }

    /// Tags count too: what the index holds of them is read (once for a list) if not known.
    private func askForTags() {
        guard search.tagsAskedFor != list.generation, reading == nil, !allKnown else { return }
        search.tagsAskedFor = list.generation
        readUnknown(indexOnly: true)
    }

    /// What the list's names are now, for the words made of them.
    private var namesOf: NamesOf { NamesOf(list: list.generation, renames: search.renames) }

    /// The words of the names of `snapshot`'s photos (the list as `of` says), made on from
    /// those kept in `names` for the same, and kept there unless the list moved on meanwhile.
    private nonisolated static func wordsOfNames(
        in snapshot: PhotoCollectionSnapshot, of: NamesOf,
        _ names: Locked<(of: NamesOf, words: PhotoSearch.Words)>, cancelled: () -> Bool
    ) -> PhotoSearch.Words? {
        let kept = names.withLock { $0.of == of ? $0.words : PhotoSearch.Words() }
        guard let made = PhotoSearch.names(of: snapshot, after: kept, cancelled: cancelled) else { return nil }
        // Lists and renames only count up: words of an older state are not kept over newer.
        names.withLock { if ($0.of.list, $0.of.renames) <= (of.list, of.renames) { $0 = (of, made) } }
        return made
    }

    /// The list changed under the search: photos came (matched once the list is still), or one
    /// was renamed (its words are made again).
    func searchListChanged(_ change: PhotoListChange) {
        if change.edit == .move {
            guard !change.renamed.isEmpty else { return }
            search.renames += 1
        }
        if change.edit == .replaceAll {
            search.learningRun?.cancel()
            if !search.query.isEmpty {
                // A new list: none of it found until the search is made over it.
                search.running?.cancel()
                search.running = nil
                search.verdicts = []
                learnFacts(list.snapshot())
            }
        }
        searchAgain()
    }

    /// Matches the search again soon (new photos, tags read).
    func searchAgain() {
        guard !search.query.isEmpty, !searchSoon.isPending else { return }
        searchSoon.schedule(afterMilliseconds: 100)
    }

    func runSearch() {
        search.running?.cancel()
        guard !search.query.isEmpty else { return }
        let cancellable = Cancellable()
        search.running = cancellable
        let (query, names, marks, of, facts) = (search.query, search.names, marks, namesOf, search.facts)
        let snapshot = list.snapshot()
        search.queue.addOperation { [weak self] in
            let isCancelled = { cancellable.isCancelled }
            guard let words = Self.wordsOfNames(in: snapshot, of: of, names, cancelled: isCancelled) else {
                return
            }
            let tags = Dictionary(
                uniqueKeysWithValues: marks.compactMap { id, marks in
                    marks.tags.isEmpty ? nil : snapshot.arrival(of: id).map { ($0, marks.tags) }
                })
            let known = Self.wordsOfFacts(in: snapshot, of: of.list, facts, cancelled: isCancelled)
            guard
                let found = PhotoSearch.match(
                    query, in: snapshot, names: words, facts: known, tags: tags, cancelled: isCancelled)
            else { return }
            MainLoop.onMainActor { [weak self] in
                guard let self, search.running === cancellable, !cancellable.isCancelled, search.query == query,
                    list.generation == of.list
                else { return }
                search.running = nil
                search.verdicts = found
                refilter()
                emitSearch()
            }
        }
    }

    private func emitSearch() {
        let ms = Double(g_get_monotonic_time() - search.typedAt) / 1000
        Trace.shared.emit(
            .searchChanged(query: search.text, shown: list.photosShown, total: list.photoTotal, ms: ms))
    }
}
