import CGLib
import Foundation
import GLibKit
import PhotoPipeline

/// The search over every folder the index knows ("All Folders" beside the search entry, Alt+A): each change of the words finds the photos they match in the index
/// (`IndexSearch`, off the main thread) and shows them as a list of their own, the latest taken
/// first; the list, the grid, the viewer and the photo actions work on it as on any other.
/// Ending it (the switch off, Escape, Ctrl+F) brings back the list shown before, with the photo
/// that was selected in it.
@MainActor
final class SearchEverywhere {
    /// What was shown when the search began: its sources and the link of the photo selected.
    private var before: (sources: [any PhotoSource], selected: String?)?
    /// Whether the window shows the search's results (not the list from before).
    var showingResults: Bool { shown != nil }
    /// The words of every indexed photo, made as the search begins and kept until it ends (the
    /// index learns more meanwhile: they are made again for the next), with the search they are
    /// for (`session`).
    private let words = Locked<(session: Int, search: IndexSearch?)>((0, nil))
    private var session = 0
    /// The words last searched for.
    private var searched: String?
    private let queue = OperationQueue.serial("search every folder", .userInitiated)
    private var running: Cancellable?
    /// The results shown: what was searched for, when it was typed, how many photos it found
    /// and how many the index knows, for the trace once they are in the list; and how many the
    /// trace said (nil: not yet; photos found that are no file now are taken out after).
    private var shown: (query: String, typedAt: Int, found: Int, total: Int, traced: Int?)?
    /// Making the words of every indexed photo, as the search began.
    private var preparing: Cancellable?
    /// Whether a list is being opened by the search itself (not by the user).
    private var opening = false
    /// The link of the photo selected when the search bar opened (the list's own search may
    /// have hidden it since).
    private var selectedAtOpen: String?
    /// Brings the list from before back once the entry has stayed empty a moment (words typed
    /// over the words selected empty it for an instant: that is no end).
    private lazy var emptied = Debounce.onMainActor { [weak self] in self?.showBefore() }

    /// What the window shows now: its sources, and the link of the photo selected.
    var current: () -> (sources: [any PhotoSource], selected: String?) = { ([], nil) }
    /// Opens sources in the window.
    var open: ([any PhotoSource]) -> Void = { _ in }
    /// Selects the photo with a link once the list opened holds it.
    var selectWhenLoaded: (String) -> Void = { _ in }
    /// Whether the viewer is open (results that come then are not shown under it).
    var viewerOpen: () -> Bool = { false }
    /// The user opened another list while searching: the search is over (it is not brought back).
    var onLeft: (() -> Void)?

    /// Whether every folder is being searched.
    var isOn: Bool { before != nil }

    /// The search bar opened: the photo selected then is the one to come back to.
    func barOpened() {
        selectedAtOpen = current().selected
    }

    /// Finds `text`'s words in every indexed folder and shows what they find; nothing typed
    /// shows the list from before. `typedAt`: when the key was pressed (GLib's monotonic clock).
    func search(_ text: String, typedAt: Int) {
        // The same words again (put back in the entry as the viewer closed): nothing new.
        guard text != searched || !isOn else { return }
        searched = text
        if before == nil {
            let now = current()
            before = (now.sources, now.selected ?? selectedAtOpen)
            session += 1
            // The words of every indexed photo are made now, before the first key asks.
            let (words, session, preparing) = (words, session, Cancellable())
            self.preparing = preparing
            queue.addOperation { _ = Self.words(words, for: session, cancelled: { preparing.isCancelled }) }
        }
        running?.cancel()
        running = nil
        let query = PhotoSearch.query(text)
        guard !query.isEmpty else { return emptied.schedule(afterMilliseconds: 300) }
        emptied.cancel()
        let cancellable = Cancellable()
        running = cancellable
        let (words, session) = (words, session)
        queue.addOperation { [weak self] in
            let isCancelled = { cancellable.isCancelled }
            guard let search = Self.words(words, for: session, cancelled: isCancelled) else { return }
            guard let found = search.find(query, cancelled: isCancelled) else { return }
            MainLoop.onMainActor { [weak self] in
                guard let self, running === cancellable, !cancellable.isCancelled else { return }
                running = nil
                // The viewer opened meanwhile (Enter on the list): the list stays under it, and
                // the words are searched again when the viewer closes and puts them back.
                guard !viewerOpen() else {
                    searched = nil
                    return
                }
                shown = (text, typedAt, found.count, search.count, nil)
                opening = true
                open([FoundPhotosSource(query: text, found: found)])
                opening = false
            }
        }
    }

    /// The words of every indexed photo for the search `session`: those kept for it, or made
    /// (and kept, unless another search began meanwhile).
    private nonisolated static func words(
        _ words: Locked<(session: Int, search: IndexSearch?)>, for session: Int, cancelled: () -> Bool
    ) -> IndexSearch? {
        if let kept = words.withLock({ $0.session == session ? $0.search : nil }) { return kept }
        guard let index = PhotoIndex.shared, let made = IndexSearch.read(from: index, cancelled: cancelled) else {
            return nil
        }
        words.withLock { if $0.session <= session { $0 = (session, made) } }
        return made
    }

    /// A list was opened in the window: another one than the search's (a folder chosen, a
    /// drop) ends the search, leaving that list shown.
    func listOpened(_ sources: [any PhotoSource]) {
        // (The results read again, as after a Retry, are still the search's.)
        guard !opening, let before, !sources.contains(where: { $0 is FoundPhotosSource }) else { return }
        // The list from before read again (Include Sub-folders, a share's change): still it.
        if !showingResults, sources.map(\.location) == before.sources.map(\.location) {
            self.before?.sources = sources
            return
        }
        forget()
        onLeft?()
    }

    /// Rows of the list opened came: once every photo found is in, the trace says how many,
    /// and how long after the key.
    func rowsArrived(count: Int) {
        guard let shown, shown.traced == nil, count >= shown.found else { return }
        trace(count)
    }

    /// The list opened is read whole: the trace says how many photos it shows, if it has not
    /// (or if some found were no file, and are taken out).
    func listLoaded(shown count: Int) {
        guard let shown, shown.traced != count else { return }
        trace(count)
    }

    private func trace(_ count: Int) {
        guard let search = shown else { return }
        shown?.traced = count
        let ms = Double(g_get_monotonic_time() - search.typedAt) / 1000
        Trace.shared.emit(.searchChanged(query: search.query, shown: count, total: search.total, ms: ms))
    }

    /// Ends the search: the list from before comes back, with its photo selected.
    func end() {
        showBefore()
        forget()
    }

    private func forget() {
        searched = nil
        emptied.cancel()
        preparing?.cancel()
        preparing = nil
        running?.cancel()
        running = nil
        before = nil
        shown = nil
        words.withLock { $0 = (0, nil) }
    }

    private func showBefore() {
        emptied.cancel()
        guard showingResults, let before else { return }
        shown = nil
        opening = true
        open(before.sources)
        opening = false
        if let selected = before.selected { selectWhenLoaded(selected) }
    }
}
