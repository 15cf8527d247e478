import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// What the window says about its list: the title and subtitle (source, photo count, how many
/// failed), the activity spinner, the status page shown instead of an empty or failed list,
/// toasts (one for a run of failures, with Retry) and the "Oops!" alert. Its words are
/// `StatusText`'s and the catalogue's.
@MainActor
final class WindowStatus {
    private let parent: Widget<ApplicationWindow>
    private let windowTitle: Widget<WindowTitle>
    private let spinner: Widget<Spinner>
    /// The list, or the status page instead of it (loading, empty, failed).
    private let stack: Widget<Stack>
    private let statusPage: Widget<StatusPage>
    private let statusButtons: Widget<Box>
    private let clearFilterButton: Widget<Button>
    private let retryButton: Widget<Button>
    private let openButton: Widget<Button>
    let toasts: Widget<ToastOverlay>
    /// What the window last told (the count once a list is in, a notice), for screen readers.
    private let announcement: Widget<Label>
    private var announced = ""
    private lazy var countAnnouncement = Debounce.onMainActor { [weak self] in self?.announceCount() }
    private let photos: PhotoList
    private let processor: PhotoProcessor
    /// Whether a search narrows the list (what an empty list then says).
    var isSearching: () -> Bool = { false }
    private var spinnerShowsBusy: Bool?
    private var busyPhotos = 0
    /// Whether the marks a filter or the rating order needs are still being read (the subtitle
    /// says so: more photos may come).
    var marksBeingRead = false {
        didSet { if marksBeingRead != oldValue { refreshSubtitle() } }
    }
    /// Whether sources are being read (the subtitle then says so, and the spinner turns).
    var isLoading = false {
        didSet { refreshSpinner() }
    }
    /// The failed count the subtitle shows, and its pending refresh.
    private var failedInSubtitle = 0
    private lazy var subtitleRefresh = Debounce.onMainActor { [weak self] in self?.refreshSubtitle() }
    /// The videos last counted, at the list's edit (`PhotoList.version`) they were counted at,
    /// and the edit a count off the main thread is under way for.
    private var videoTally: (generation: Int, version: Int, tally: VideoTally)?
    private var tallying: Int?
    /// Photos that failed since the last toast said so.
    private var newFailures: Set<PhotoID> = []
    /// How many of `newFailures` trying again may help.
    private var newRetryable = 0
    private lazy var failureToast = Debounce.onMainActor { [weak self] in self?.reportFailures() }
    private var alert: Alert?

    init(ui: UIFile, parent: Widget<ApplicationWindow>, photos: PhotoList, processor: PhotoProcessor) {
        self.parent = parent
        self.photos = photos
        self.processor = processor
        windowTitle = ui.widget("title")
        windowTitle.setTitle(AppInfo.displayName)
        spinner = ui.widget("spinner")
        statusPage = ui.widget("status")
        statusButtons = ui.widget("status-buttons")
        clearFilterButton = ui.widget("clear-filter-button")
        retryButton = ui.widget("retry-button")
        openButton = ui.widget("open-button")
        stack = ui.widget("stack")
        toasts = ui.widget("toasts")
        announcement = ui.widget("announcement")
        processor.observePhotos { [unowned self] snapshot in
            // A photo failed, or one may have stopped failing (Retry): the count in the title.
            if snapshot.state == .failed || failedInSubtitle > 0 { scheduleSubtitle() }
            if snapshot.state == .failed, !snapshot.isBusy {
                photoFailed(snapshot.id, retryHelps: snapshot.failure?.retryHelps ?? true)
            }
        }
        processor.onActivityChanged = { [unowned self] busy in
            busyPhotos = busy
            refreshSpinner()
        }
    }

    // MARK: Title

    /// A new list is being read from `sources`.
    func loadingBegan(_ sources: [any PhotoSource]) {
        failedInSubtitle = 0
        showStatus(.loading)
        windowTitle.setTitle(Self.title(of: sources))
        setSubtitle(tr("Loading…"))
        isLoading = true
    }

    private static func title(of sources: [any PhotoSource]) -> String {
        if sources.count == 1, let found = sources.first as? FoundPhotosSource {
            // TRANSLATORS: the title of a search's results over every folder ("“paris” in All Folders")
            return String(format: tr("“%@” in All Folders"), DisplayText.line(found.query))
        }
        guard sources.count == 1, let source = sources.first else {
            return String(format: ntr("%@ source", "%@ sources", sources.count), Localization.number(sources.count))
        }
        return DisplayText.line(source.location.lastPathComponent)
    }

    private func setSubtitle(_ text: String) {
        windowTitle.setSubtitle(text)
        Trace.shared.emit(.windowSubtitle(text: text))
        // Told once it settles (a list coming in changes it many times a second).
        countAnnouncement.schedule(afterMilliseconds: 500)
    }

    /// Tells screen readers `text` through the window's status bar. GTK 4.8 has no way to have
    /// it spoken at once (`gtk_accessible_announce` comes in 4.14): a screen reader reads it
    /// when asked for the status bar.
    private func announce(_ text: String) {
        guard text != announced else { return }
        announced = text
        announcement.setText(text)
    }

    private func announceCount() {
        guard !isLoading else { return }
        announce(windowTitle.subtitle)
    }

    /// The subtitle once the list is in (the title names the source): how many photos (and
    /// videos), and how many of those shown so far could not be loaded ("16 photos, 3 failed").
    func refreshSubtitle() {
        subtitleRefresh.cancel()
        guard !isLoading else { return }
        // Sub-folders head the list; the count is of photos.
        let folders = photos.firstPhoto
        let count = photos.count - folders
        failedInSubtitle = processor.failedCount
        let total = photos.photoTotal
        let videos = countedVideos()
        let photos =
            self.photos.isFiltered
            ? String(
                format: (videos?.whole ?? 0) > 0
                    ? ntr("%1$@ of %2$@ photo and video", "%1$@ of %2$@ photos and videos", total)
                    : ntr("%1$@ of %2$@ photo", "%1$@ of %2$@ photos", total),
                Localization.number(count), Localization.number(total))
            : folders > 0
                ? FolderCounts.text(folders: folders, pictures: count, videos: min(videos?.shown ?? 0, count))
                : FolderCounts.items(pictures: count, videos: min(videos?.shown ?? 0, count))
        let failed = failedInSubtitle
        let counted =
            failed > 0
            ? String(
                format: ntr("%1$@, %2$@ failed", "%1$@, %2$@ failed", failed), photos, Localization.number(failed))
            : photos
        setSubtitle(marksBeingRead ? String(format: tr("%@, reading marks…"), counted) : counted)
    }

    /// The videos among the list's items: counted at once for a list of a few thousand, off
    /// the main thread for a bigger one (the subtitle is refreshed once they are; meanwhile the
    /// last count stands). Nil until a first count.
    private func countedVideos() -> VideoTally? {
        let version = photos.version
        // Another list's count stands for nothing here.
        if let videoTally, videoTally.generation != photos.generation { self.videoTally = nil }
        if let videoTally, videoTally.version == version { return videoTally.tally }
        let source = photos.videoTallySource()
        guard source.count > 2_000 else {
            let tally = source.tally()
            videoTally = (photos.generation, version, tally)
            return tally
        }
        if tallying != version {
            tallying = version
            Thread.detachNewThread {
                let tally = source.tally()
                MainLoop.onMainActor { [weak self] in
                    guard let self else { return }
                    if tallying == version { tallying = nil }
                    guard self.photos.version == version else { return }
                    videoTally = (self.photos.generation, version, tally)
                    refreshSubtitle()
                }
            }
        }
        return videoTally?.tally
    }

    /// Refreshes the subtitle a moment later: photos that fail one after another update it once
    /// (250 ms after the first; those after it do not put it off).
    private func scheduleSubtitle() {
        guard !subtitleRefresh.isPending else { return }
        subtitleRefresh.schedule(afterMilliseconds: 250)
    }

    private func refreshSpinner() {
        let busy = isLoading || busyPhotos > 0
        // Called on every change of activity; GTK work (a tooltip set queries the display) only
        // when busy-ness itself changed.
        guard busy != spinnerShowsBusy else { return }
        spinnerShowsBusy = busy
        // Only the spinning changes (an idle spinner draws nothing): showing or hiding it would
        // resize the header bar, and this runs during the list's layout too (from the
        // adjustment's `changed`), which left the header bar unallocated for that frame.
        spinner.isSpinning = busy
        // A stopped spinner can stay on screen as a still frame; transparent, it cannot.
        spinner.opacity = busy ? 1 : 0
        spinner.setTooltip(busy ? tr("Loading") : nil)
    }

    // MARK: Status page

    /// What the window shows instead of the list (its words are `StatusText`'s).
    enum Status: Equatable {
        /// The sources are being read, and no photo has arrived yet.
        case loading
        /// Every source was read, and none holds a picture.
        case empty
        /// No photo could be shown: why each source that failed did.
        case failed([PhotoSourceError])
        /// The list holds photos, and the filter lets none of them through.
        case filteredOut
        /// The search found none of the list's photos.
        case noResults
    }

    /// Shows the status page for `status`, or the list (nil).
    func showStatus(_ status: Status?) {
        guard let status else {
            stack.showPage("list")
            return
        }
        let (icon, title, description) = StatusText.page(status)
        statusPage.setIconName(icon)
        statusPage.setTitle(title)
        statusPage.setDescription(markup: description.map(Self.markupEscaped))
        statusButtons.isVisible = status != .loading && status != .noResults
        clearFilterButton.isVisible = status == .filteredOut
        retryButton.isVisible = status != .filteredOut
        openButton.isVisible = status != .filteredOut
        stack.showPage("status")
    }

    /// After rows came or went in a list read to its end: the status page if none is left,
    /// and the count.
    func listChanged() {
        guard !isLoading else { return }
        showStatus(
            photos.count > 0
                ? nil
                : !photos.isFiltered || photos.photoTotal == 0 ? .empty : isSearching() ? .noResults : .filteredOut)
        refreshSubtitle()
    }

    /// `text` safe to show where markup is read (status page descriptions are).
    private static func markupEscaped(_ text: String) -> String {
        let escaped = g_markup_escape_text(text, -1)!
        defer { g_free(escaped) }
        return String(cString: escaped)
    }

    // MARK: Notices

    /// Counts a failed photo; a moment after the last of a run of failures, one toast says how
    /// many, with Retry (rows failing one after another make one notice, not a pile of them).
    private func photoFailed(_ id: PhotoID, retryHelps: Bool) {
        guard newFailures.insert(id).inserted else { return }
        if retryHelps { newRetryable += 1 }
        failureToast.schedule(afterMilliseconds: 1_000)
    }

    private func reportFailures() {
        guard !newFailures.isEmpty else { return }
        let count = newFailures.count
        let retryable = newRetryable
        newFailures = []
        newRetryable = 0
        failureToast.cancel()
        // Retry only when trying again may help one of them.
        showToast(
            String(
                format: ntr("%@ photo could not be loaded", "%@ photos could not be loaded", count),
                Localization.number(count)),
            button: retryable > 0 ? (tr("_Retry"), "win.retry-failed") : nil)
    }

    /// A notice at the bottom of the window that hides by itself (a libadwaita toast), with an
    /// optional button.
    func showToast(_ title: String, button: (label: String, action: String)? = nil) {
        Trace.shared.emit(.noticeShown(text: title))
        announce(title)
        toasts.addToast(markup: Self.markupEscaped(title), button: button, closeName: tr("Dismiss"))
    }

    /// The "Oops!" alert: a modal message with the reason, and Retry when it can help.
    func showError(title: String, message: String, retry: (() -> Void)?) {
        alert = Alert(parent: parent, title: title, message: message, retryable: retry != nil) { [weak self] retried in
            self?.alert = nil
            if retried { retry?() }
        }
    }

    /// Stops every pending refresh (the window is closing).
    func close() {
        failureToast.cancel()
        countAnnouncement.cancel()
        subtitleRefresh.cancel()
        processor.onActivityChanged = nil
    }
}
