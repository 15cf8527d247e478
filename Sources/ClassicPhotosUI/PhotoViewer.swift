import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// What the viewer needs from the window it opens in.
@MainActor
protocol PhotoViewerHost: AnyObject {
    var window: Widget<ApplicationWindow> { get }
    /// Selects the row at `position` and scrolls it into view, behind the viewer.
    func viewerMoved(to position: Int)
    /// Hides or shows the window's header bar (fullscreen).
    func setHeaderBarVisible(_ visible: Bool)
    /// The viewer closed: keyboard focus goes back to the list.
    func viewerClosed()
    func showToast(_ title: String, button: (label: String, action: String)?)
    /// The editor saved the photo (`saved` says where, and what Undo takes back); `message`
    /// says so.
    func photoEdited(_ saved: EditSaving.Saved, message: String)
    /// The photo shown, for the details panel (nil: a photo is not known yet).
    func viewerShows(_ subject: DetailsSubject)
    /// The slideshow or the editor takes the window: the details panel closes.
    func hideDetails()
    /// The photos' alt text (what the picture says to a screen reader).
    var altTexts: AltTexts { get }
}

/// The photo viewer: a photo large over the dimmed list, in the same window (the tutorial's
/// modal popup: the list dims, the photo fades and scales in, a close button and Escape
/// dismiss it).
///
/// It pages through the list (buttons, Left / Right, Home / End, a horizontal swipe), zooms
/// and pans (`ZoomingPicture`), goes fullscreen (F11), tells the details panel what it shows, switches between
/// the sepia and the original photo, copies and saves the photo shown (`ViewerExport`).
/// Which photos it shows and holds is decided by `ViewerPaging`, by identity; photos are
/// loaded through `ViewerPipeline` at the size shown (decoded again, larger, when zooming in
/// asks for it), and what it knows of each photo comes as snapshots, as rows get them.
@MainActor
final class PhotoViewer {
    unowned let host: any PhotoViewerHost
    /// The list paged through: which photo is where (read only).
    let photos: any PhotoListReading
    /// Where photos are loaded, and what is known of each.
    let processor: PhotoProcessor
    let pipeline: ViewerPipeline
    let chrome = ViewerChrome()
    let export: ViewerExport
    var player: FramePlayer!
    var paging = ViewerPaging()
    private var connections: [SignalConnection] = []

    /// One photo the viewer holds: the photo shown or a neighbour.
    final class Slot {
        var photo: PhotoSnapshot
        var request: ViewerPipeline.Request?
        var picture: ViewerPicture?
        /// The photo's embedded preview, shown until `picture` is decoded.
        var preview: ViewerPreview?
        /// What its header and metadata say, once read (before `picture` or `preview` come).
        var facts: ImageInfo?
        /// The sepia version of `picture` (or of an earlier, smaller decode while a larger one
        /// is being filtered).
        var sepia: PhotoImage?
        /// The sepia frames of an animated `picture`.
        var sepiaAnimation: ViewerAnimation?
        var failure: PhotoFailure?
        /// Zooming in asked for a larger decode while one was still running.
        var wantsLargerDecode = false
        /// What the next load decodes at and from, when not the first load (a larger decode).
        var nextLoad: (side: Int, known: ViewerBytes)?
        /// A motion photo's clip, and whether it played since the photo was moved to (it plays
        /// once, then the photo rests).
        var motionClip: MotionClip?
        var clipPlayed = false
        init(photo: PhotoSnapshot) { self.photo = photo }
    }
    var slots: [PhotoID: Slot] = [:]
    /// On screen (from opening until the closing animation ends).
    private(set) var isOpen = false
    var isClosing = false
    /// Open and not on its way out: a viewer fading out after Escape counts as closed (the
    /// window's own actions are back as it begins to go).
    var isShown: Bool { isOpen && !isClosing }
    var showsSepia = true
    var isFullscreen = false
    /// What the picture shows now (to trace and make a texture only on change).
    var shownImage: PhotoImage?
    var shownTexture: ObjectRef<GObject>?
    /// The picture `shownTexture` is made of (an animation's frame shown), in sRGB: the texture
    /// may be in the display's colours.
    var shownFrame: PhotoImage?
    var shownState: ViewerImageState?
    /// The colour profile the shown photo's colours were turned into sRGB from (nil: none,
    /// sRGB assumed), for the info and the trace.
    var shownProfile: String?
    /// The photo moved to that has not yet been shown sharp, and when the move was (trace
    /// clock), for `viewer.sharp`.
    var awaitingSharp: (id: PhotoID, since: Double)?
    /// The same for a motion photo's clip: `viewer.play` counts from the move.
    var awaitingClip: (id: PhotoID, since: Double)?
    /// How fast the viewer is paging (a held arrow key holds decodes back).
    let pace = PagingPace()
    /// Decodes again, larger, once zooming pauses (`considerRedecode`).
    lazy var redecoding = Debounce.onMainActor { [weak self] in self?.considerRedecode() }
    /// The slideshow (F5), and whether the window was fullscreen before it began.
    private(set) var slideshow: ViewerSlideshow!
    /// The editor (E), over the viewer.
    private(set) var editor: PhotoEditor!
    var fullscreenBeforeSlideshow = false

    /// The viewer's widget, an overlay child of the list's area.
    var root: Widget<Overlay> { chrome.root }
    var picture: Widget<ZoomPicture> { chrome.picture }
    var zooming: ZoomingPicture { chrome.zooming }

    init(host: any PhotoViewerHost, photos: PhotoList, processor: PhotoProcessor) {
        self.host = host
        self.photos = photos
        self.processor = processor
        pipeline = processor.makeViewerPipeline()
        export = ViewerExport(host: host)
        player = FramePlayer(
            show: { [unowned self] frame in showTexture(of: frame) },
            frameChanged: { [unowned self] frame in
                if let position = paging.position, let id = paging.shown {
                    Trace.shared.emit(.viewerFrame(row: position, id: id, frame: frame))
                }
            },
            isOnScreen: { [unowned self] in picture.isMapped })
        chrome.onCommand = { [unowned self] command in perform(command) }
        chrome.video.onFailure = { [unowned self] message in videoFailed(message) }
        // The clip's own controls stood in for the zoom and the sepia while it played.
        chrome.video.onClipEnded = { [unowned self] in chrome.showVideo(false) }
        pace.onPause = { [unowned self] in pagingPausedNow() }
        zooming.onZoomChanged = { [unowned self] in zoomChanged() }
        // An animation plays only while the picture is on screen: hiding the window (or the
        // viewer) pauses it on its frame, showing it again goes on from there.
        connections.append(picture.connect("unmap") { [unowned self] in player.pause() })
        connections.append(picture.connect("map") { [unowned self] in player.resume() })
        zooming.onSwipe = { [unowned self] step in perform(.step(step)) }
        zooming.onPanned = { [unowned self] in
            Trace.shared.emit(.viewerPan(x: zooming.center.x, y: zooming.center.y))
        }
        slideshow = ViewerSlideshow(root: chrome.root)
        editor = PhotoEditor(host: host)
        root.addOverlay(editor.root)
        editor.onClose = { [unowned self] in
            picture.isVisible = true
            if isShown { picture.grabFocus() }
        }
        slideshow.onAdvance = { [unowned self] in advanceSlideshow() }
        slideshow.onShowControls = { [unowned self] shown in chrome.showControls(shown) }
        // Keys, seen by the window before the list behind: only while the viewer is open.
        let keys = Handle<KeyController>.make()
        keys.setPropagationPhase(GTK_PHASE_CAPTURE)
        connections.append(
            keys.onKeyPressed { [unowned self] keyval, _, state in
                // Keys typed into an entry (the details panel's alt text) are the entry's.
                guard isOpen, !isClosing, !host.window.isTyping else { return false }
                if editor.isOpen { return editor.key(keyval, state: GdkModifierType(state)) }
                if slideshow.isRunning { return slideshowKey(keyval) }
                guard let command = ViewerCommand.forKey(keyval, state: GdkModifierType(state)) else { return false }
                pace.pressed()
                perform(command)
                return true
            })
        // A paging key let go after it repeated: paging stopped here, now.
        connections.append(
            keys.onKeyReleased { [unowned self] keyval, _, state in
                guard isOpen, !isClosing, case .step? = ViewerCommand.forKey(keyval, state: GdkModifierType(state))
                else { return }
                if pace.released() { pagingPausedNow() }
            })
        host.window.addController(keys)
        photos.observe(
            willApply: { [unowned self] edit in
                // A new list: nothing of the old one stays.
                guard case .replaceAll = edit else { return }
                close(animated: false)
                cancelAll()
            },
            didApply: { [unowned self] change in
                switch change.edit {
                case .replaceAll, .append: break
                case .replace: for id in change.replaced { photoChanged(id) }
                case .insert, .remove, .move, .reorder, .refilter: listChanged()
                }
            })
        processor.observePhotos { [unowned self] snapshot in photoUpdated(snapshot) }
    }

    // MARK: Commands

    private func perform(_ command: ViewerCommand) {
        switch command {
        case .escape: if isFullscreen { toggleFullscreen() } else { close() }
        case .close: close()
        case .step(let delta): apply(paging.step(delta, in: photos))
        case .jump(let toEnd): apply(paging.jump(toEnd: toEnd, in: photos))
        case .zoomIn: zooming.zoom(by: ZoomGeometry.zoomStep)
        case .zoomOut: zooming.zoom(by: 1 / ZoomGeometry.zoomStep)
        case .fit: zooming.fit()
        case .actualSize: zooming.setZoom(1)
        case .toggleFit: zooming.toggleFitAndActualSize()
        case .fullscreen: toggleFullscreen()
        case .copy: copy()
        case .saveAs: saveAs()
        case .retry: retryCurrent()
        case .sepia(let sepia): setSepia(sepia)
        case .toggleSepia: chrome.selectSepia(!showsSepia)
        case .properties: host.window.activateAction("win.details")
        case .slideshow: startSlideshow()
        case .edit: startEditing()
        case .playPause:
            if chrome.video.shown == nil || chrome.video.isClip, let slot = current {
                playMotionClip(of: slot, again: true)
            } else {
                chrome.video.togglePlaying()
            }
        case .mute: chrome.video.toggleMuted()
        case .loop: chrome.video.toggleLoop()
        case .seek(let seconds):
            // Shift+Left / Shift+Right page through photos as Left and Right do.
            if chrome.video.shown == nil || chrome.video.isClip {
                perform(.step(seconds < 0 ? -1 : 1))
            } else {
                chrome.video.seek(by: seconds)
            }
        case .ignore: break
        }
    }

    // MARK: Opening and closing

    /// Opens the viewer on the photo at `position` (or moves to it if already open).
    func open(at position: Int) {
        guard position >= 0, position < photos.count else { return }
        if !isOpen || isClosing {
            isOpen = true
            isClosing = false
            root.isVisible = true
            animate(in: true)
            picture.grabFocus()
        }
        apply(paging.open(at: position, in: photos))
    }

    /// Gives the keys to the viewer (a menu over it closed).
    func grabFocus() {
        picture.grabFocus()
    }

    /// Closes the viewer: its work is cancelled, the photo fades out, the list gets the focus.
    func close(animated: Bool = true) {
        guard isOpen, !isClosing else { return }
        slideshow.stop()
        editor.close()
        if isFullscreen { toggleFullscreen() }
        if let position = paging.position, let id = paging.shown {
            Trace.shared.emit(.viewerClose(row: position, id: id))
        }
        cancelAll()
        player.stop()
        chrome.video.stop()
        chrome.video.closeClipFile()
        isClosing = true
        if animated {
            animate(in: false)
        } else {
            finishClosing()
        }
        host.viewerClosed()
    }

    private func finishClosing() {
        isClosing = false
        isOpen = false
        root.isVisible = false
        awaitingSharp = nil
        setShown(nil, state: nil)
        zooming.setImageSize(width: 0, height: 0)
    }

    /// The desktop is short of memory: lets go of the photos loaded ahead (their bytes and
    /// pictures; loads still running are cancelled), keeping only the one shown. The next move
    /// loads its neighbours again.
    func memoryWarning() {
        for case .drop(let id) in paging.memoryWarning() {
            drop(id)
            Trace.shared.emit(.viewerDropped(row: photos.position(of: id) ?? -1, id: id))
        }
    }

    /// Cancels every load and forgets every photo (closing, or the list is replaced).
    func cancelAll() {
        redecoding.cancel()
        pace.reset()
        for case .drop(let id) in paging.close() { drop(id) }
        slots.removeAll()
    }

    /// Fades and scales in (or out, then hides). libadwaita skips the animation, jumping to its
    /// end, when the desktop turned animations off.
    private func animate(in entering: Bool) {
        zooming.playReveal(entering: entering) { [unowned self] in
            if isClosing { finishClosing() }
        }
    }

    // MARK: The list and its photos

    /// Rows came, went or moved (the folder changed, or was sorted): the photo shown stays,
    /// wherever it is now; if it went, the one that took its place is shown.
    private func listChanged() {
        guard isOpen, !isClosing else { return }
        // The photo being edited went: so does the editor.
        if let edited = editor.subject?.id, photos.position(of: edited) == nil { editor.close() }
        if photos.count == 0 {
            close(animated: false)
        } else {
            apply(paging.listChanged(in: photos))
        }
    }

    /// The photo `id`'s file was rewritten: what was decoded from it goes, and if it is shown,
    /// it is loaded again (the old picture stays until the new one is ready).
    private func photoChanged(_ id: PhotoID) {
        guard isOpen, !isClosing else { return }
        apply(paging.photoChanged(id, in: photos))
    }

    /// A photo's snapshot changed (a renamed file keeps its picture under its new name).
    private func photoUpdated(_ snapshot: PhotoSnapshot) {
        if snapshot.id == paging.shown {
            chrome.showMarks(snapshot.marks ?? .none)
            if let slot = slots[snapshot.id] { showDetails(of: slot) }
        }
        guard let slot = slots[snapshot.id], slot.photo.entry != snapshot.entry else { return }
        slot.photo = snapshot
        if snapshot.id == paging.shown, let position = paging.position {
            chrome.showPlace(name: snapshot.name, position: position, count: photos.count)
            refresh(slot)
        }
    }

    // MARK: Paging and loading

    var current: Slot? { paging.shown.flatMap { slots[$0] } }

    /// Carries out what `ViewerPaging` decided, then shows the photo shown.
    func apply(_ actions: [ViewerPaging.Action]) {
        if case .show(_, _, moved: true)? = actions.first { noteMove() }
        var shown: (id: PhotoID, position: Int, moved: Bool)?
        for action in actions {
            switch action {
            case .show(let id, let position, let moved):
                shown = (id, position, moved)
                guard moved else { continue }
                Trace.shared.emit(.viewerOpen(row: position, id: id, name: processor.snapshot(of: id)?.name ?? ""))
                // Another photo: fit, and whatever was drawn goes.
                awaitingSharp = (id, Trace.shared.now)
                awaitingClip = (id, Trace.shared.now)
                setShown(nil, state: nil)
                zooming.setImageSize(width: 0, height: 0)
                zooming.fit()
                redecoding.cancel()
            case .start(let id, let urgent):
                guard let photo = slots[id]?.photo ?? processor.snapshot(of: id) else { continue }
                let slot = slots[id] ?? Slot(photo: photo)
                slots[id] = slot
                start(slot, urgent: urgent)
            case .hurry(let id):
                slots[id]?.request?.makeUrgent()
            case .drop(let id):
                drop(id)
            case .close:
                close(animated: false)
            }
        }
        decodeShownUnlessFast()
        guard let shown, let slot = slots[shown.id] else { return }
        chrome.showPlace(name: slot.photo.name, position: shown.position, count: photos.count)
        processor.wantMarks(of: shown.id)
        chrome.showMarks(processor.snapshot(of: shown.id)?.marks ?? .none)
        showVideo(of: slot, moved: shown.moved)
        refresh(slot)
        if shown.moved { host.viewerMoved(to: shown.position) }
    }

    func drop(_ id: PhotoID) {
        slots.removeValue(forKey: id)?.request?.cancel()
    }

    // MARK: What the window's actions act on

    /// The photo shown, and where it is in the list, while the viewer is open.
    var shownPhoto: (id: PhotoID, position: Int)? {
        guard isOpen, !isClosing, let id = paging.shown, let position = paging.position else { return nil }
        return (id, position)
    }

    /// The bytes of the photo shown and whether it shows sepia, once it is loaded (Print).
    var shownPictureBytes: (bytes: Data, sepia: Bool)? {
        guard let slot = current, let picture = slot.picture, let state = shownState, state != .failed else {
            return nil
        }
        return (picture.bytes, state == .filtered)
    }

    /// Lets go of everything (the window is closing).
    func shutDown() {
        cancelAll()
        player.stop()
        chrome.video.stop()
        chrome.video.closeClipFile()
        export.shutDown()
        zooming.shutDown()
        connections.removeAll()
    }
}
