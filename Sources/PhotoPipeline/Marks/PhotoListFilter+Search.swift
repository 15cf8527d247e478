import CGLib
import Foundation
import GLibKit

/// What a list's search holds: the words typed, which photos they match, and the words of the
/// list's names made so far (kept from one search to the next: folding 100,000 names takes a
/// fifth of a second, matching them again a few milliseconds).
struct SearchState {
    var text = ""
    var query: [[String]] = []
    /// Whether each photo matches, by its arrival in the list; nil: no search (or none made yet).
    var verdicts: [Bool]?
    var names = PhotoSearch.Words()
    /// The list (`PhotoList.generation`) the names are of.
    var namesOf = -1
    var running: Cancellable?
    /// When the words were typed (GLib's monotonic clock, µs).
    var typedAt = g_get_monotonic_time()
    let queue = OperationQueue.serial("search", .userInitiated)
}

/// The search over the list: the list, the grid and the viewer's paging show only the photos
/// whose names (and sub-folders) or tags hold every word typed, with the filter's marks
/// besides. Matching runs off the main thread; the list is shown again when it is done.
extension PhotoListFilter {
    /// What is searched for ("" for nothing).
    public var searchText: String { search.text }
    /// Whether a search narrows the list.
    public var isSearching: Bool { !search.query.isEmpty }

    /// Shows only the photos that `text`'s words find (every photo again for "").
    public func setSearch(_ text: String) {
        let query = PhotoSearch.query(text)
        search.text = text
        search.typedAt = g_get_monotonic_time()
        guard query != search.query else { return }
        search.query = query
        search.running?.cancel()
        search.running = nil
        guard !query.isEmpty else {
            search.verdicts = nil
            refilter()
            return emitSearch()
        }
        // Tags count too: what the index holds of them is read (once) if not known.
        if reading == nil, !allKnown { readUnknown(indexOnly: true) }
        runSearch()
    }

    /// The list changed under the search: photos came (matched once the list is still), or one
    /// was renamed (its words are made again).
    func searchListChanged(_ change: PhotoListChange) {
        if change.edit == .move && !change.renamed.isEmpty { search.namesOf = -1 }
        guard change.edit != .move || !change.renamed.isEmpty else { return }
        searchAgain()
    }

    /// Matches the search again soon (new photos, tags read).
    func searchAgain() {
        guard !search.query.isEmpty, !searchSoon.isPending else { return }
        searchSoon.schedule(afterMilliseconds: 100)
    }

    func runSearch() {
        search.running?.cancel()
        let cancellable = Cancellable()
        search.running = cancellable
        if search.namesOf != list.generation {
            search.names = PhotoSearch.Words()
            search.namesOf = list.generation
        }
        let (query, names, marks, generation) = (search.query, search.names, marks, list.generation)
        let snapshot = list.snapshot()
        search.queue.addOperation { [weak self] in
            let tags = Dictionary(
                uniqueKeysWithValues: marks.compactMap { id, marks in
                    marks.tags.isEmpty ? nil : snapshot.arrival(of: id).map { ($0, marks.tags) }
                })
            let found = PhotoSearch.match(
                query, in: snapshot, names: names, tags: tags, cancelled: { cancellable.isCancelled })
            guard let found else { return }
            MainLoop.onMainActor { [weak self] in
                guard let self, search.running === cancellable, !cancellable.isCancelled else { return }
                search.running = nil
                if list.generation == generation { search.names = found.names }
                search.verdicts = found.verdicts
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
