/// Every event the app writes to its trace, with its fields typed.
///
/// The trace's vocabulary lives in three files: the events here, with the names written as
/// `ev` (`Name`, the one place each is spelled) and the field keys (`Field`); how each event is
/// laid out on its line (`TraceEvent+JSON.swift`, one switch that gives the name and the fields
/// in order); and how a line is read back (`TraceRecord.swift`). Events about a photo carry
/// `row`, its position in the list at that moment, and `id`, its identity.
public enum TraceEvent: Sendable, Equatable {
    /// The process started.
    case appStart(version: String)
    /// Clean shutdown finished.
    case appQuit
    /// The first frame of the main window was painted.
    case windowShown
    /// The window's subtitle now reads `text` (how many photos, how many failed), in the
    /// user's language.
    case windowSubtitle(text: String)
    /// A source began loading; `recursive` when it is a folder with every picture beneath it
    /// (written only then).
    case sourceStart(url: String, recursive: Bool = false)
    /// A source was read and its `rows` shown.
    case sourceLoaded(url: String, rows: Int, recursive: Bool = false)
    /// A source could not be read; `error` says why, in words.
    case sourceFailed(url: String, error: String)
    /// Mounting the share `url` is on asks the user something (a dialog for a password, or a
    /// question), before the source is read.
    case mountAsk(url: String)
    /// The folder at `url` changed while shown: pictures `added`, `removed` and `changed`
    /// (rewritten; renamed ones count as changed), `rows` in the list after.
    case sourceChanged(url: String, added: Int, removed: Int, changed: Int, rows: Int)
    /// The list is now shown in this order (`key` is `name`, `date-taken`, `date-modified` or
    /// `size`), all `rows` of it.
    case listSorted(key: String, descending: Bool, rows: Int)
    /// The picture named on the command line was selected.
    case listSelect(row: Int, id: PhotoID, name: String)
    /// The rows on screen changed without scrolling (`last` is `first - 1` when no row is on
    /// screen).
    case viewVisible(first: Int, last: Int)
    /// The photos are shown as `mode` (`list` or `grid`), `columns` to a row, each `size`
    /// logical pixels high (the grid's squares; the list's rows): whenever one of them changes.
    case viewMode(mode: String, columns: Int, size: Int)
    /// While scrolling a long view, where it is now floats over it: `text` (the folder, or the
    /// month when sorted by date taken), traced when it changes.
    case viewPlace(text: String)
    /// Pictures are shown in the colours of the display's profile `name` (its description),
    /// or in sRGB (`name` empty: the display names none, or the setting is off); traced at
    /// start and when that changes.
    case displayProfile(name: String)
    /// The About window opened; `text` is what its Troubleshooting page says (versions, the
    /// decoder helpers, the colours pictures are turned into).
    case aboutShown(text: String)
    /// The selection now holds `count` photos.
    case selectionChanged(count: Int)
    /// A folder's dates taken were wanted: of its `rows` photos, the index knew `hits`.
    case indexRead(rows: Int, hits: Int)
    /// A big tree sorted by date showed its first `rows` photos from the index while its
    /// folders were still being read (see `TreeLead`).
    case indexLead(rows: Int)
    /// A big folder shown in the order of the dates the index held for its paths was checked
    /// against its files (their sizes and times, the dates of those that changed read again):
    /// `reordered` when that moved its photos (a `list.sorted` follows).
    case indexChecked(rows: Int, reordered: Bool)
    /// Scrolling began.
    case scrollBegin(via: ScrollVia)
    /// Scrolling and any deceleration ended; the rows then on screen.
    case scrollEnd(first: Int, last: Int)
    /// Both operation queues were suspended.
    case queuesSuspended
    /// Both operation queues were resumed.
    case queuesResumed
    /// A row widget (a grid cell) was bound to a photo, or to a sub-folder (`kind`).
    case rowShown(row: Int, id: PhotoID, name: String, kind: RowKind)
    /// An operation began its work.
    case opStart(kind: OperationKind, row: Int, id: PhotoID)
    /// An operation completed its work in `ms` milliseconds.
    case opFinish(kind: OperationKind, row: Int, id: PhotoID, ms: Double)
    /// The photo failed; `error` is the detail, `reason` the stable code.
    case opFail(kind: OperationKind, row: Int, id: PhotoID, error: String, reason: PhotoFailure.Reason)
    /// Cancellation of a queued (`running` false) or running operation.
    case opCancel(kind: OperationKind, row: Int, id: PhotoID, running: Bool)
    /// A photo changed state.
    case rowState(row: Int, id: PhotoID, state: PhotoState)
    /// A failed photo's row shows its short reason.
    case rowStatus(row: Int, id: PhotoID, text: String, retry: Bool)
    /// A photo's tooltip was asked for (the pointer rests on its row or cell); `text`: what is
    /// known of it beyond its name, "" while nothing is (yet).
    case rowTooltip(row: Int, id: PhotoID, text: String)
    /// A row's download found a thumbnail the photo holds (`source`: `exif`, `heif`), `w`×`h`
    /// upright; `covers`: large enough for the row, so the photo is not decoded.
    case rowPreview(row: Int, id: PhotoID, source: String, w: Int, h: Int, covers: Bool)
    /// The main loop did not answer for `ms` milliseconds (more than a frame).
    case mainloopStall(ms: Double)
    /// The main thread was about to touch the disk (`kind`: `stat`, `index`): a bug, caught in
    /// the act; `text` says where.
    case ioOnMain(kind: String, text: String)
    /// The desktop's low-memory warning, at its level.
    case memoryLow(level: Int)
    /// The disk cache of downloaded photos was emptied; it held `bytes`.
    case cacheCleared(bytes: Int)
    /// The photo viewer shows a photo (on opening, and on each move).
    case viewerOpen(row: Int, id: PhotoID, name: String)
    /// The viewer's picture is ready; `w`×`h` is its decoded size. `frames` is the number of
    /// frames of an animation it plays (written only then; 0 for a still photo).
    case viewerImage(
        row: Int, id: PhotoID, w: Int, h: Int, state: ViewerImageState, frames: Int = 0, profile: String? = nil)
    /// The viewer shows a photo it moved to sharp, at the size it is shown (not a preview):
    /// `ms` from the move (a key, a click, a swipe) to that picture.
    case viewerSharp(id: PhotoID, ms: Double)
    /// The video the viewer opened shows its first frame, `ms` after it was opened.
    case viewerPlay(id: PhotoID, ms: Double)
    /// The compare view opened on `count` photos (2 to 4), side by side.
    case compareOpen(count: Int)
    /// A compared photo's picture is shown: `w`×`h` decoded, in `state`.
    case compareImage(id: PhotoID, w: Int, h: Int, state: ViewerImageState)
    /// A compared photo's zoom (`level`, 1.0 is 100 %) and the point of it at its pane's
    /// centre, as fractions of its width and height (`x`, `y`), after a zoom or a pan (every
    /// pane, once the others followed).
    case compareView(id: PhotoID, level: Double, x: Double, y: Double)
    /// The photo the compare view's keys act on (focused, or under the pointer).
    case compareFocus(id: PhotoID)
    /// The compare view closed.
    case compareClose
    /// The viewer's animation moved to frame `frame` (0-based). Only the frame changes of an
    /// animation's first two plays are traced, to keep traces small.
    case viewerFrame(row: Int, id: PhotoID, frame: Int)
    /// The viewer shows that its photo failed, with this reason.
    case viewerStatus(row: Int, id: PhotoID, text: String)
    /// The viewer's zoom changed (`level` 1.0 is 100 %).
    case viewerZoom(level: Double)
    /// The viewer closed.
    case viewerClose(row: Int, id: PhotoID)
    /// A drag or the wheel moved the zoomed photo; (`x`, `y`) is the image point now at the
    /// view's centre, in image pixels.
    case viewerPan(x: Double, y: Double)
    /// The info popover opened (`shown` true), closed (false), or changed what it shows while
    /// open; what it shows.
    case viewerInfo(shown: Bool, info: ViewerInfoText)
    /// The details panel, open, shows these facts (`PhotoDetailsPanel.Row` names, in the order
    /// shown) of the photo `id` (none: no photo selected), `ms` after it was asked to show it;
    /// `sheet`: under the photos (a narrow window), not beside them.
    case viewerDetails(id: PhotoID?, fields: [String], sheet: Bool, ms: Double)
    /// Save As wrote the photo to `path` as `format` (`png`, `jpeg`), `w`×`h` pixels.
    case viewerSaved(path: String, format: String, w: Int, h: Int)
    /// Save As could not write `path`; `error` says why.
    case viewerSaveFailed(path: String, error: String)
    /// Open in Maps: the `geo:` address handed to the desktop, and whether an app took it.
    case viewerMaps(address: String, opened: Bool)
    /// The alt text of the photo `id` was written (`text`, empty: taken away) to `path` (its
    /// sidecar, or the photo), or could not be (`path` empty, `error` says why).
    case altTextSaved(id: PhotoID, text: String, path: String, error: String)
    /// The editor opened on the photo `id`.
    case editBegin(id: PhotoID)
    /// The edited photo `id` was saved to `path`, `w`×`h` pixels, without decoding it
    /// (`lossless`), `ms` after Save was asked for.
    case editSaved(id: PhotoID, path: String, lossless: Bool, w: Int, h: Int, ms: Double)
    /// Saving the edited photo `id` took long enough for the editor to say "Saving…".
    case editSaving(id: PhotoID)
    /// The edited photo `id` could not be saved; `error` says why.
    case editFailed(id: PhotoID, error: String)
    /// A low-memory warning made the viewer let go of a photo it had loaded ahead (its bytes
    /// and pictures).
    case viewerDropped(row: Int, id: PhotoID)
    /// The photo `name` was moved to the desktop's trash (Delete).
    case fileTrashed(row: Int, id: PhotoID, name: String)
    /// A photo moved to the trash was put back (Undo), at `row`.
    case fileRestored(row: Int, id: PhotoID, name: String)
    /// The photo `name` was deleted for good (Shift+Delete, confirmed).
    case fileDeleted(row: Int, id: PhotoID, name: String)
    /// The photo shown was turned by `degrees` (90 clockwise, -90 counter-clockwise), and its
    /// file written.
    case viewerRotate(row: Int, id: PhotoID, degrees: Int)
    /// Work on `count` photos at once began (moving them to the trash, putting them back,
    /// deleting or turning them).
    case batchStart(kind: FileBatchKind, count: Int)
    /// Such work has done `done` of its `count` photos (traced with each piece handed back
    /// while its progress is on screen).
    case batchProgress(kind: FileBatchKind, done: Int, count: Int)
    /// Such work ended after `done` of `count` photos (fewer when `cancelled`), `ms` after it began.
    case batchEnd(kind: FileBatchKind, done: Int, count: Int, cancelled: Bool, ms: Double)
    /// Marks were given to `count` photos at once (one key, one Undo): the stars (−1:
    /// rejected, 0: none), the label ("" for none) and the tags they now have, each only when
    /// that is what changed; `ms` after the key, the photos on screen show them.
    case photoMarked(count: Int, rating: Int?, label: String?, tags: [String]?, ms: Double)
    /// The tags popover opened (`shown` true) or closed, showing these tags of the photos it
    /// acts on.
    case tagsPopover(shown: Bool, tags: [String])
    /// The window's filter changed, or what it knows of the photos' marks did: `shown` of the
    /// `total` photos pass; `reading`: marks of some are still being read; `ms`: the main
    /// thread's time making the list shown again; `elapsed`: ms since the filter was chosen.
    case filterChanged(shown: Int, total: Int, reading: Bool, ms: Double, elapsed: Double)
    /// A search shows `shown` of the list's `total` photos for `query` ("" once it ended),
    /// `ms` after the words were typed.
    case searchChanged(query: String, shown: Int, total: Int, ms: Double)
    /// The search bar is open and its entry on screen: what is typed now goes into it.
    case searchOpen
    /// The row or cell showing the photo `id` shows these marks (when they changed).
    case rowMarks(row: Int, id: PhotoID, rating: Int, label: String, tags: [String])
    /// The slideshow began.
    case slideshowStart
    /// The slideshow ended.
    case slideshowStop
    /// A notice (a toast) told the user `text`.
    case noticeShown(text: String)
    /// The main window's frame clock finished painting a frame (only when
    /// `CLASSIC_PHOTOS_TRACE_FRAMES=1`; the benchmark takes frame intervals from these).
    case framePainted
    /// An event this definition does not know (read from a newer trace); written as its name
    /// alone. Its fields, if any, are not kept.
    case other(name: String)

    /// Each event's name as the trace writes it (`ev`): the one place it is spelled. A name's
    /// case is named as the event's.
    public enum Name: String, CaseIterable, Sendable, CustomStringConvertible {
        case appStart = "app.start"
        case appQuit = "app.quit"
        case windowShown = "window.shown"
        case windowSubtitle = "window.subtitle"
        case sourceStart = "source.start"
        case sourceLoaded = "source.loaded"
        case sourceFailed = "source.failed"
        case mountAsk = "mount.ask"
        case sourceChanged = "source.changed"
        case listSorted = "list.sorted"
        case listSelect = "list.select"
        case viewVisible = "view.visible"
        case viewMode = "view.mode"
        case viewPlace = "view.place"
        case displayProfile = "display.profile"
        case aboutShown = "about.shown"
        case selectionChanged = "selection.changed"
        case indexRead = "index.read"
        case indexLead = "index.lead"
        case indexChecked = "index.checked"
        case scrollBegin = "scroll.begin"
        case scrollEnd = "scroll.end"
        case queuesSuspended = "queues.suspended"
        case queuesResumed = "queues.resumed"
        case rowShown = "row.shown"
        case opStart = "op.start"
        case opFinish = "op.finish"
        case opFail = "op.fail"
        case opCancel = "op.cancel"
        case rowState = "row.state"
        case rowStatus = "row.status"
        case rowPreview = "row.preview"
        case rowTooltip = "row.tooltip"
        case mainloopStall = "mainloop.stall"
        case ioOnMain = "io.main"
        case memoryLow = "memory.low"
        case cacheCleared = "cache.cleared"
        case viewerOpen = "viewer.open"
        case viewerImage = "viewer.image"
        case viewerSharp = "viewer.sharp"
        case viewerPlay = "viewer.play"
        case compareOpen = "compare.open"
        case compareImage = "compare.image"
        case compareView = "compare.view"
        case compareFocus = "compare.focus"
        case compareClose = "compare.close"
        case viewerFrame = "viewer.frame"
        case viewerStatus = "viewer.status"
        case viewerZoom = "viewer.zoom"
        case viewerClose = "viewer.close"
        case viewerPan = "viewer.pan"
        case viewerInfo = "viewer.info"
        case viewerDetails = "viewer.details"
        case viewerSaved = "viewer.saved"
        case viewerSaveFailed = "viewer.save-failed"
        case viewerMaps = "viewer.maps"
        case altTextSaved = "alt-text.saved"
        case editBegin = "edit.begin"
        case editSaved = "edit.saved"
        case editSaving = "edit.saving"
        case editFailed = "edit.failed"
        case viewerDropped = "viewer.dropped"
        case fileTrashed = "file.trashed"
        case fileRestored = "file.restored"
        case fileDeleted = "file.deleted"
        case viewerRotate = "viewer.rotate"
        case batchStart = "batch.start"
        case batchProgress = "batch.progress"
        case batchEnd = "batch.end"
        case photoMarked = "photo.marked"
        case rowMarks = "row.marks"
        case tagsPopover = "tags.popover"
        case filterChanged = "filter.changed"
        case searchChanged = "search.changed"
        case searchOpen = "search.open"
        case slideshowStart = "slideshow.start"
        case slideshowStop = "slideshow.stop"
        case noticeShown = "notice.shown"
        case framePainted = "frame.painted"

        public var description: String { rawValue }
    }

    /// The keys of a line's fields, as written.
    public enum Field: String, CodingKey, Sendable {
        case t, ev
        case version, url, rows, added, removed, changed, key, descending, error, row, id, name, first, last, via
        case kind, ms, reason, running, state, text, level, w, h, x, y, shown, source, bytes, format, camera, date,
            place
        case path, covers, frames, frame, degrees, mode, columns, size, count, hits, recursive, profile, retry
        case reordered, done, cancelled, rating, label, tags, total, reading, elapsed, lossless, opened, query
        case fields, sheet
    }
}

/// What is done to many photos at once (`FileBatch`).
public enum FileBatchKind: String, Sendable, CaseIterable {
    case trash, restore, delete, rotate
    /// Writing the marks of many photos (and writing them back, Undo).
    case mark
}

/// What a row shows: a photo, or a sub-folder of the folder shown.
public enum RowKind: String, Sendable, CaseIterable {
    /// `motion`: a photo with a clip (a motion or Live Photo), known when its row is bound once
    /// its thumbnail has been read (a row bound again, or shown from the thumbnail cache).
    case photo, folder, video, motion
}

/// What the viewer's picture shows.
public enum ViewerImageState: String, Sendable, CaseIterable {
    /// The sepia version.
    case filtered
    /// The photo as decoded, without the filter.
    case original
    /// A small picture the photo carries of itself (a camera's EXIF thumbnail), enlarged, shown
    /// until the photo is decoded (sepia or not, as the photo will be).
    case preview
    /// The photo could not be loaded; the viewer shows the failed placeholder.
    case failed
}

/// What the viewer's info popover shows, as its trace event carries it: the photo's name, its
/// source (a path, or an address), its size in pixels and in bytes and its format (0 and empty
/// until the photo is loaded), and the EXIF camera and date taken where the photo has them.
public struct ViewerInfoText: Sendable, Equatable {
    public var name: String
    public var source: String
    public var width: Int
    public var height: Int
    public var bytes: Int
    public var format: String
    public var camera: String?
    public var date: String?
    /// The colour profile the photo's colours were turned from, as the info names it.
    public var profile: String?
    /// Where it was taken, as the info says it (the nearest town, once known, and the
    /// coordinates).
    public var place: String?

    public init(
        name: String, source: String, width: Int = 0, height: Int = 0, bytes: Int = 0, format: String = "",
        camera: String? = nil, date: String? = nil, profile: String? = nil, place: String? = nil
    ) {
        self.name = name
        self.source = source
        self.width = width
        self.height = height
        self.bytes = bytes
        self.format = format
        self.camera = camera
        self.profile = profile
        self.place = place
        self.date = date
    }
}
