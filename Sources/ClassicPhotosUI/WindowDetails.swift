import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The window's details panel (`PhotoDetailsPanel`): F9, the info button in the viewer or the
/// header bar's show it beside the photos, or under them as a bottom sheet when the window is
/// narrow. With the viewer open it tells of the photo shown; otherwise of the photo selected
/// in the list or the grid, whose file is read for it (off the main thread, the read before
/// cancelled) while the panel is open. The slideshow and the editor close it.
@MainActor
final class WindowDetails {
    let panel = PhotoDetailsPanel()
    private let window: Widget<ApplicationWindow>
    private let content: Widget<Box>
    private let revealer: Widget<Revealer>
    private let processor: PhotoProcessor
    private let fetcher: PhotoFetcher
    private var action: ObjectRef<GObject>?
    private var connections: [SignalConnection] = []
    /// Whether the panel is wanted (F9).
    private(set) var isOpen = false
    /// Whether it is under the photos (a narrow window) rather than beside them.
    private(set) var isNarrow = false
    /// The photo the viewer shows, while it is open.
    private var viewerSubject: DetailsSubject?
    /// The selected photo's file being read, and the facts last read (shown again at once when
    /// the same photo is selected again).
    private var reading: (id: PhotoID, cancellable: Cancellable, since: Int)?
    private var lastRead: (id: PhotoID, link: String, info: ImageInfo?, video: VideoDetails?)?
    /// Shows a photo still being read without its facts, if its reading takes long enough to
    /// be seen (the facts of the photo before stay until then: no rows come and go on each key).
    private lazy var readingShown = Debounce.onMainActor { [weak self] in self?.showReadingPhoto() }
    private let readings = OperationQueue.serial("Classic Photos details", .userInitiated)
    /// The photo selected in the list or the grid (nil: none, or several).
    var selectedPhoto: (() -> PhotoID?)?
    /// The panel came or went, or moved under the photos: the grid fits its columns again.
    var onLayoutChanged: (() -> Void)?
    var showToast: ((String) -> Void)?

    /// The width below which the panel goes under the photos: beside them it takes 320 pixels,
    /// and fewer than about 360 would be left for them.
    static let narrowWidth: Int32 = 700
    /// The panel's width beside the photos, and its height under them.
    static let sideWidth: Int32 = 320
    static let sheetHeight: Int32 = 260

    static let acceleratorsByAction: [(String, [String])] = [("win.details", ["F9"])]

    init(ui: UIFile, window: Widget<ApplicationWindow>, processor: PhotoProcessor, fetcher: PhotoFetcher) {
        self.window = window
        self.processor = processor
        self.fetcher = fetcher
        content = ui.widget("content")
        revealer = ui.widget("details-revealer")
        revealer.setChild(panel.root)
        let made = ToggleAction.make("details", false) { [unowned self] on in setOpen(on) }
        action = made.action
        connections.append(made.connection)
        window.addAction(made.action)
        // Open once it has slid in (traced then), closed once it has slid out (GTK then hides it).
        connections += [
            revealer.onNotify("child-revealed") { [unowned self] in
                if revealer.isChildRevealed, isOpen { panel.isOpen = true }
            },
            panel.root.connect("unmap") { [unowned self] in panel.isOpen = false },
        ]
        for property in ["default-width", "maximized", "fullscreened"] {
            connections.append(window.onNotify(property) { [unowned self] in fitSoon() })
        }
        // The photo shown was marked or renamed.
        processor.observePhotos { [unowned self] snapshot in photoUpdated(snapshot.id) }
        panel.onOpenMaps = { [unowned self] address in openMaps(address) }
        panel.onCopied = { [unowned self] message in showToast?(message) }
        fit()
    }

    // MARK: Open or closed

    private func setOpen(_ open: Bool) {
        guard open != isOpen else { return }
        isOpen = open
        if let action { ToggleAction.setState(action, open) }
        fit()
        revealer.reveals = open
        if open {
            if let viewerSubject { viewerShows(viewerSubject) } else { showSelection() }
        } else {
            cancelReading()
        }
        onLayoutChanged?()
    }

    /// Closes the panel (the slideshow and the editor take the window).
    func hide() { setOpen(false) }

    /// Stops reading and lets go of every signal handler (the window is closing).
    func close() {
        cancelReading()
        readings.cancelAllOperations()
        connections.removeAll()
        panel.close()
        selectedPhoto = nil
        onLayoutChanged = nil
        showToast = nil
    }

    /// The panel's width beside the photos while it is open (the grid's columns leave it room).
    var widthTaken: Int32 { isOpen && !isNarrow ? Self.sideWidth : 0 }

    // MARK: Beside or under

    private lazy var fitting = Debounce.onMainActor { [weak self] in self?.fit() }

    /// `fit` once the window has its new size.
    private func fitSoon() { fitting.schedule(afterMilliseconds: 0) }

    /// Puts the panel beside the photos, or under them in a narrow window.
    private func fit() {
        let width = max(window.width, window.defaultSize.width)
        let narrow = width > 0 && width < Self.narrowWidth
        let changed = narrow != isNarrow
        isNarrow = narrow
        panel.isSheet = narrow
        content.setOrientation(narrow ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL)
        revealer.setTransition(narrow ? GTK_REVEALER_TRANSITION_TYPE_SLIDE_UP : GTK_REVEALER_TRANSITION_TYPE_SLIDE_LEFT)
        panel.root.setSizeRequest(width: narrow ? -1 : Self.sideWidth, height: narrow ? Self.sheetHeight : -1)
        if narrow {
            panel.root.addCSSClass("bottom-sheet")
        } else {
            panel.root.removeCSSClass("bottom-sheet")
        }
        if changed, isOpen { onLayoutChanged?() }
    }

    // MARK: What it shows

    /// The viewer shows this photo (or learnt more of it).
    /// A video's facts are not the viewer's to read: they are read here, as for the list.
    func viewerShows(_ subject: DetailsSubject) {
        var subject = subject
        var toRead = subject.entry.isVideo && subject.video == nil
        // Read already (a video whose facts could not be read is not read again and again).
        if toRead, let lastRead, lastRead.id == subject.id, lastRead.link == subject.entry.link {
            subject.video = lastRead.video
            toRead = false
        }
        viewerSubject = subject
        if toRead {
            if reading?.id != subject.id, isOpen {
                cancelReading()
                startReading(subject.id, entry: subject.entry)
            }
        } else {
            cancelReading()
        }
        if isOpen { panel.show(subject) }
    }

    /// The viewer closed: the panel tells of the photo selected (the one the viewer showed last).
    func viewerClosed() {
        // What the viewer read of its photo is what a read of the file would give.
        if let shown = viewerSubject, shown.info != nil || shown.video != nil {
            lastRead = (shown.id, shown.entry.link, shown.info, shown.video)
        }
        viewerSubject = nil
        if isOpen { showSelection() }
    }

    /// The list's selection changed.
    func selectionChanged() {
        if isOpen, viewerSubject == nil { showSelection() }
    }

    /// A photo's marks or name changed in the list: shown again if it is the one shown.
    func photoUpdated(_ id: PhotoID) {
        if isOpen, viewerSubject == nil, panel.shownID == id { showSelection() }
    }

    /// Shows the photo selected: at once with what was read of it before, or else once its
    /// file is read.
    private func showSelection(askedAt: Int? = nil) {
        guard let id = selectedPhoto?(), let snapshot = processor.snapshot(of: id), !snapshot.entry.isFolder else {
            cancelReading()
            panel.show(nil)
            return
        }
        var subject = DetailsSubject(
            id: id, name: snapshot.name, entry: snapshot.entry, info: nil, profile: nil,
            marks: snapshot.marks ?? .none)
        if let lastRead, lastRead.id == id, lastRead.link == snapshot.entry.link {
            cancelReading()
            subject.info = lastRead.info
            subject.video = lastRead.video
            return panel.show(subject, askedAt: askedAt)
        }
        if reading?.id == id { return }
        cancelReading()
        if panel.shownID == nil {
            panel.show(subject)
        } else {
            readingShown.schedule(afterMilliseconds: 150)
        }
        startReading(id, entry: snapshot.entry)
    }

    /// Reads what photo `id`'s file says, off the main thread; then shows it, if it is still
    /// the one to show (the list's selection, or the viewer's video).
    private func startReading(_ id: PhotoID, entry: PhotoEntry) {
        let cancellable = Cancellable()
        reading = (id, cancellable, g_get_monotonic_time())
        let fetcher = fetcher
        readings.addOperation {
            guard !cancellable.isCancelled else { return }
            let facts = try? Self.read(entry, fetcher: fetcher, cancellable: cancellable)
            MainLoop.onMainActor { [weak self] in
                guard let self, !cancellable.isCancelled, let read = reading, read.id == id else { return }
                reading = nil
                readingShown.cancel()
                lastRead = (id, entry.link, facts?.info, facts?.video)
                if let shown = viewerSubject {
                    if shown.id == id { viewerShows(shown) }
                } else {
                    showSelection(askedAt: read.since)
                }
            }
        }
    }

    /// What the viewer would read of the photo: its file whole, and what it says (without the
    /// picture the viewer decodes); of a video on this computer, what its container says.
    private nonisolated static func read(
        _ entry: PhotoEntry, fetcher: PhotoFetcher, cancellable: Cancellable
    ) throws(PhotoFailure) -> (info: ImageInfo?, video: VideoDetails?) {
        let url = try entry.resolvedURL()
        if entry.isVideo { return (nil, try VideoDetails.read(url, cancellable: cancellable)) }
        if let facts = try PhotoFacts.facts(ofLocalRaw: url, cancellable: cancellable) { return (facts, nil) }
        let file = try fetcher.readAll(
            url, cancellable: cancellable, limit: ViewerLimits.maxFileBytes, policy: entry.addressPolicy)
        return (try PhotoFacts.facts(file, at: url, cancellable: cancellable), nil)
    }

    /// The photo being read, shown without its facts meanwhile.
    private func showReadingPhoto() {
        guard let reading, let snapshot = processor.snapshot(of: reading.id) else { return }
        panel.show(
            DetailsSubject(
                id: reading.id, name: snapshot.name, entry: snapshot.entry, info: nil, profile: nil,
                marks: snapshot.marks ?? .none), askedAt: reading.since)
    }

    private func cancelReading() {
        reading?.cancellable.cancel()
        reading = nil
        readingShown.cancel()
    }

    // MARK: The panel's buttons

    /// Shows where the photo was taken (`address`, a `geo:` address) in the desktop's maps app;
    /// says so where there is none.
    private func openMaps(_ address: String) {
        do {
            try window.openInDefaultApp(address)
            Trace.shared.emit(.viewerMaps(address: address, opened: true))
        } catch {
            Trace.shared.emit(.viewerMaps(address: address, opened: false))
            showToast?(tr("No maps app is installed to show this place"))
        }
    }
}
