import CGLib
import CGtk
import Foundation
import GLibKit
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
}

/// The photo viewer: a photo large over the dimmed list, in the same window (the tutorial's
/// modal popup: the list dims, the photo fades and scales in, a close button and Escape
/// dismiss it).
///
/// It pages through the list (buttons, Left / Right, Home / End, a horizontal swipe), zooms
/// and pans (`ZoomingPicture`), goes fullscreen (F11), shows an info popover, switches between
/// the sepia and the original photo, copies and saves the photo shown (`ViewerExport`).
/// Which photos it shows and holds is decided by `ViewerPaging`, by identity; photos are
/// loaded through `ViewerPipeline` at the size shown (decoded again, larger, when zooming in
/// asks for it), and what it knows of each photo comes as snapshots, as rows get them.
@MainActor
final class PhotoViewer {
    private unowned let host: any PhotoViewerHost
    /// The list paged through: which photo is where (read only).
    private let photos: any PhotoListReading
    /// Where photos are loaded, and what is known of each.
    private let processor: PhotoProcessor
    private let pipeline: ViewerPipeline
    private let chrome = ViewerChrome()
    private let export: ViewerExport
    private var player: FramePlayer!
    private var paging = ViewerPaging()
    private var connections: [SignalConnection] = []

    /// One photo the viewer holds: the photo shown or a neighbour.
    private final class Slot {
        var photo: PhotoSnapshot
        var request: ViewerPipeline.Request?
        var picture: ViewerPicture?
        /// The sepia version of `picture` (or of an earlier, smaller decode while a larger one
        /// is being filtered).
        var sepia: PhotoImage?
        /// The sepia frames of an animated `picture`.
        var sepiaAnimation: ViewerAnimation?
        var failure: PhotoFailure?
        /// Zooming in asked for a larger decode while one was still running.
        var wantsLargerDecode = false
        /// What the next load decodes at and from, when not the first load (a larger decode).
        var nextLoad: (side: Int, bytes: Data)?
        init(photo: PhotoSnapshot) { self.photo = photo }
    }
    private var slots: [PhotoID: Slot] = [:]
    /// On screen (from opening until the closing animation ends).
    private(set) var isOpen = false
    private var isClosing = false
    private var showsSepia = true
    private(set) var isFullscreen = false
    /// What the picture shows now (to trace and make a texture only on change).
    private var shownImage: PhotoImage?
    private var shownTexture: ObjectRef<GObject>?
    private var shownState: ViewerImageState?
    private var redecodeTimer: MainLoopSource?
    /// The slideshow (F5), and whether the window was fullscreen before it began.
    private(set) var slideshow: ViewerSlideshow!
    private var fullscreenBeforeSlideshow = false

    /// The viewer's widget, an overlay child of the list's area.
    var root: Widget<Overlay> { chrome.root }
    private var picture: Widget<ZoomPicture> { chrome.picture }
    private var zooming: ZoomingPicture { chrome.zooming }

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
        slideshow.onAdvance = { [unowned self] in advanceSlideshow() }
        slideshow.onShowControls = { [unowned self] shown in chrome.showControls(shown) }
        // Keys, seen by the window before the list behind: only while the viewer is open.
        let keys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE)
        connections.append(
            SignalConnection.connect(
                UnsafeMutableRawPointer(keys), "key-pressed",
                keys: { [unowned self] keyval, _, state in
                    guard isOpen, !isClosing else { return false }
                    if slideshow.isRunning { return slideshowKey(keyval) }
                    guard let command = ViewerCommand.forKey(keyval, state: GdkModifierType(state)) else {
                        return false
                    }
                    perform(command)
                    return true
                }))
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
                case .insert, .remove, .move, .reorder: listChanged()
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
        case .properties: chrome.popUpProperties()
        case .slideshow: startSlideshow()
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

    /// Closes the viewer: its work is cancelled, the photo fades out, the list gets the focus.
    func close(animated: Bool = true) {
        guard isOpen, !isClosing else { return }
        slideshow.stop()
        if isFullscreen { toggleFullscreen() }
        if let position = paging.position, let id = paging.shown {
            Trace.shared.emit(.viewerClose(row: position, id: id))
        }
        cancelAll()
        player.stop()
        chrome.popDownProperties()
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
        redecodeTimer = nil
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
        guard let slot = slots[snapshot.id], slot.photo.entry != snapshot.entry else { return }
        slot.photo = snapshot
        if snapshot.id == paging.shown, let position = paging.position {
            chrome.showPlace(name: snapshot.name, position: position, count: photos.count)
            refresh(slot)
        }
    }

    // MARK: Paging and loading

    private var current: Slot? { paging.shown.flatMap { slots[$0] } }

    /// Carries out what `ViewerPaging` decided, then shows the photo shown.
    private func apply(_ actions: [ViewerPaging.Action]) {
        var shown: (id: PhotoID, position: Int, moved: Bool)?
        for action in actions {
            switch action {
            case .show(let id, let position, let moved):
                shown = (id, position, moved)
                guard moved else { continue }
                Trace.shared.emit(.viewerOpen(row: position, id: id, name: processor.snapshot(of: id)?.name ?? ""))
                // Another photo: fit, and whatever was drawn goes.
                setShown(nil, state: nil)
                zooming.setImageSize(width: 0, height: 0)
                zooming.fit()
                redecodeTimer = nil
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
        guard let shown, let slot = slots[shown.id] else { return }
        chrome.showPlace(name: slot.photo.name, position: shown.position, count: photos.count)
        refresh(slot)
        if shown.moved { host.viewerMoved(to: shown.position) }
    }

    private func drop(_ id: PhotoID) {
        slots.removeValue(forKey: id)?.request?.cancel()
    }

    /// Loads `slot`'s photo at the viewer's size, or as `slot.nextLoad` says.
    private func start(_ slot: Slot, urgent: Bool) {
        slot.request?.cancel()
        let next = slot.nextLoad
        slot.nextLoad = nil
        let id = slot.photo.id
        slot.request = pipeline.load(id, wantedSide: next?.side ?? viewerSide(), bytes: next?.bytes, urgent: urgent) {
            [weak self, weak slot] event in
            guard let self, let slot else { return }
            switch event {
            case .decoded(let picture):
                slot.picture = picture
                slot.failure = nil
            case .filtered(let sepia):
                slot.sepia = sepia.image
                slot.sepiaAnimation = sepia.animation
                paging.loadEnded(id)
                if slot.wantsLargerDecode { MainLoop.onMainActor { [weak self] in self?.considerRedecode() } }
            case .failed(let failure):
                if slot.picture == nil { slot.failure = failure }
                paging.loadEnded(id)
            }
            if slot === current { refresh(slot) }
        }
        if slot.request == nil {
            // The photo left the list between the decision and now: nothing to load.
            paging.loadEnded(id)
        }
    }

    private func retryCurrent() {
        guard let slot = current else { return }
        slot.failure = nil
        slot.picture = nil
        slot.sepia = nil
        slot.sepiaAnimation = nil
        apply(paging.reload())
        refresh(slot)
    }

    /// The longest side of the viewer's area in device pixels: what a fitted photo needs at most.
    private func viewerSide() -> Int {
        let window = host.window
        var side = root.parent.map { Int(max($0.width, $0.height)) } ?? Int(max(window.width, window.height))
        if side <= 0 {
            side = Int(max(window.width, window.height))
        }
        return max(1, side) * Int(max(1, root.scaleFactor))
    }

    // MARK: Showing the photo

    /// Shows what `slot` has: the picture (sepia or original), the failure, or the spinner.
    private func refresh(_ slot: Slot) {
        let failed = slot.picture == nil && slot.failure != nil
        let reason = slot.failure.map {
            $0.summary == $0.detail ? $0.localizedSummary : $0.localizedSummary + "\n" + $0.detail
        }
        chrome.showProgress(loading: slot.picture == nil && !failed, failure: failed ? reason : nil)
        chrome.info.show(
            name: slot.photo.name, address: slot.photo.entry.link, url: try? slot.photo.entry.resolvedURL(),
            info: slot.picture?.info)
        if failed, let reason {
            if shownState != .failed, let position = paging.position {
                Trace.shared.emit(.viewerStatus(row: position, id: slot.photo.id, text: reason))
            }
            setShown(nil, state: .failed)
            return
        }
        guard let picture = slot.picture else { return }
        zooming.setImageSize(width: picture.info.width, height: picture.info.height)
        if showsSepia, let sepia = slot.sepia {
            setShown(sepia, state: .filtered, animation: slot.sepiaAnimation)
        } else if showsSepia, shownImage != nil, shownState == .filtered {
            // A larger decode is being filtered: the smaller sepia picture stays until then.
        } else {
            setShown(picture.original, state: .original, animation: picture.animation)
        }
    }

    /// Puts `image` in the picture (an animation's first frame, with the animation), tracing
    /// `viewer.image` when what is shown changed.
    private func setShown(_ image: PhotoImage?, state: ViewerImageState?, animation: ViewerAnimation? = nil) {
        guard image !== shownImage || state != shownState else { return }
        if image !== shownImage {
            shownImage = image
            if let animation {
                player.play(animation)
            } else {
                player.stop()
                showTexture(of: image)
            }
        }
        shownState = state
        if let state, let position = paging.position, let id = paging.shown {
            Trace.shared.emit(
                .viewerImage(
                    row: position, id: id, w: image?.width ?? 0, h: image?.height ?? 0, state: state,
                    frames: player.frameCount))
        }
    }

    private func showTexture(of image: PhotoImage?) {
        shownTexture = image.map { ObjectRef(takingOpaque: gdk_texture_new_for_pixbuf($0.pixbuf)) }
        zooming.setPaintable(shownTexture)
    }

    private func setSepia(_ sepia: Bool) {
        guard sepia != showsSepia else { return }
        showsSepia = sepia
        if let slot = current { refresh(slot) }
    }

    // MARK: Zoom

    private func zoomChanged() {
        guard isOpen, current?.picture != nil else { return }
        let zoom = zooming.zoom
        Trace.shared.emit(.viewerZoom(level: zoom))
        chrome.showZoom(zoom)
        // Decoding again waits until zooming pauses (a pinch changes the zoom every frame).
        redecodeTimer = MainLoopSource.onMainActor(.timeout(milliseconds: 150)) { [weak self] in
            self?.considerRedecode()
            return .remove
        }
    }

    /// Zoomed in past the decoded resolution: decodes again, larger, from the bytes the viewer
    /// already has (`ViewerLimits.largerDecodeSide`).
    private func considerRedecode() {
        redecodeTimer = nil
        // An animation is decoded once, at the size shown; zooming in enlarges its frames.
        guard let slot = current, let picture = slot.picture, picture.animation == nil,
            let side = ViewerLimits.largerDecodeSide(
                width: picture.info.width, height: picture.info.height,
                decoded: max(picture.original.width, picture.original.height),
                zoom: zooming.zoom)
        else { return }
        if let request = slot.request, request.isBusy {
            slot.wantsLargerDecode = true
            return
        }
        slot.wantsLargerDecode = false
        slot.nextLoad = (side, picture.bytes)
        apply(paging.reload())
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

    // MARK: Slideshow

    /// Starts the slideshow from the photo shown, fullscreen.
    func startSlideshow() {
        guard isOpen, !isClosing, !slideshow.isRunning else { return }
        fullscreenBeforeSlideshow = isFullscreen
        if !isFullscreen { toggleFullscreen() }
        chrome.popDownProperties()
        slideshow.start()
    }

    func stopSlideshow() {
        guard slideshow.isRunning else { return }
        slideshow.stop()
        if isFullscreen, !fullscreenBeforeSlideshow { toggleFullscreen() }
    }

    /// The next photo, or the first after the last.
    private func advanceSlideshow() {
        guard isOpen, !isClosing, let position = paging.position else { return }
        if position + 1 < photos.count {
            apply(paging.step(1, in: photos))
        } else {
            apply(paging.open(at: 0, in: photos))
        }
    }

    /// A key during the slideshow: Escape and F5 stop it; Left and Right move, and the interval
    /// starts again; any other key pauses it for a moment.
    private func slideshowKey(_ keyval: UInt32) -> Bool {
        switch Int32(bitPattern: keyval) {
        case GDK_KEY_Escape, GDK_KEY_F5:
            stopSlideshow()
        case GDK_KEY_Left, GDK_KEY_KP_Left, GDK_KEY_Page_Up:
            apply(paging.step(-1, in: photos))
            slideshow.restartInterval()
        case GDK_KEY_Right, GDK_KEY_KP_Right, GDK_KEY_Page_Down:
            advanceSlideshow()
            slideshow.restartInterval()
        case GDK_KEY_Shift_L, GDK_KEY_Shift_R, GDK_KEY_Control_L, GDK_KEY_Control_R, GDK_KEY_Alt_L, GDK_KEY_Alt_R:
            return false
        default:
            slideshow.userActed()
        }
        return true
    }

    // MARK: Fullscreen

    func toggleFullscreen() {
        isFullscreen.toggle()
        host.setHeaderBarVisible(!isFullscreen)
        host.window.setFullscreen(isFullscreen)
        chrome.showFullscreen(isFullscreen)
    }

    // MARK: Copy and Save As…

    /// Puts the photo shown on the clipboard as a texture (an animation's frame shown).
    func copy() {
        guard let texture = shownTexture else { return }
        export.copy(texture, from: root)
    }

    /// Asks where to save the photo shown, then saves it at full size in the version shown.
    func saveAs() {
        guard let slot = current, let picture = slot.picture, shownImage != nil, let state = shownState,
            state != .failed
        else { return }
        export.saveAs(name: slot.photo.name, bytes: picture.bytes, sepia: state == .filtered)
    }

    /// Lets go of everything (the window is closing).
    func shutDown() {
        cancelAll()
        player.stop()
        export.shutDown()
        zooming.shutDown()
        connections.removeAll()
    }
}
