import CGLib
import CGdkPixbuf
import CGtk
import CPhotoViewer
import Foundation
import GLibKit
import PhotoPipeline

/// What the viewer needs from the window it opens in.
@MainActor
protocol PhotoViewerHost: AnyObject {
    var window: UnsafeMutablePointer<GtkWindow> { get }
    /// The photos of the list, and the record of the photo at a position.
    var photoCount: Int { get }
    func viewerRecord(at position: Int) -> PhotoRecord?
    /// Where the photo `id` is in the list now, if it still is.
    func viewerPosition(of id: PhotoID) -> Int?
    /// Selects the row at `position` and scrolls it into view, behind the viewer.
    func viewerMoved(to position: Int)
    /// Hides or shows the window's header bar (fullscreen).
    func setHeaderBarVisible(_ visible: Bool)
    /// The viewer closed: keyboard focus goes back to the list.
    func viewerClosed(at position: Int)
    func showToast(_ title: String, button: (label: String, action: String)?)
}

/// The photo viewer: a photo large over the dimmed list, in the same window (the seeds' modal
/// popup: the list dims, the photo fades and scales in, a close button and Escape dismiss it).
///
/// It pages through the list (buttons, Left / Right, Home / End, a horizontal swipe), zooms
/// and pans (`CpZoomPicture`), goes fullscreen (F11), shows an info popover, switches between
/// the sepia and the original photo, copies and saves the photo shown. Photos are loaded
/// through `ViewerPipeline` at the size shown (decoded again, larger, when zooming in asks for
/// it); the photo shown loads first, its two neighbours after it, and all of it is cancelled
/// when the viewer moves on or closes.
@MainActor
final class PhotoViewer {
    /// The viewer's widget: an overlay child of the list's area, hidden until opened.
    let root: UnsafeMutablePointer<GtkWidget>
    private unowned let host: any PhotoViewerHost
    private let pipeline: ViewerPipeline
    private let picture: UnsafeMutablePointer<GtkWidget>
    private var zoomPicture: OpaquePointer { OpaquePointer(picture) }
    private let spinner: UnsafeMutablePointer<GtkWidget>
    private let failedBox: UnsafeMutablePointer<GtkWidget>
    private let failedReason: UnsafeMutablePointer<GtkWidget>
    private let titleLabel: UnsafeMutablePointer<GtkWidget>
    private let counterLabel: UnsafeMutablePointer<GtkWidget>
    private let previousButton: UnsafeMutablePointer<GtkWidget>
    private let nextButton: UnsafeMutablePointer<GtkWidget>
    private let fullscreenButton: UnsafeMutablePointer<GtkWidget>
    private let zoomLabel: UnsafeMutablePointer<GtkWidget>
    private let sepiaButton: UnsafeMutablePointer<GtkWidget>
    private let originalButton: UnsafeMutablePointer<GtkWidget>
    private let infoButton: UnsafeMutablePointer<GtkWidget>
    private let info: PhotoInfoPopover
    private var connections: [SignalConnection] = []
    private var animation: ObjectRef<GObject>?
    private var animationDone: SignalConnection?

    /// One photo the viewer has or is loading: the photo shown and its two neighbours.
    private final class Slot {
        let id: PhotoID
        let record: PhotoRecord
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
        init(record: PhotoRecord) {
            id = record.id
            self.record = record
        }
    }
    private var slots: [PhotoID: Slot] = [:]
    /// The position of the photo shown, while open, and the photo.
    private(set) var position: Int?
    private var shownID: PhotoID?
    private(set) var isOpen = false
    private var isClosing = false
    private var showsSepia = true
    private(set) var isFullscreen = false
    /// What the picture shows now (to trace and make a texture only on change).
    private var shownImage: PhotoImage?
    private var shownTexture: ObjectRef<GObject>?
    private var shownState: ViewerImageState?
    private var redecodeTimer: MainLoopSource?
    /// The animation shown and where it is, while the photo shown is animated.
    private var playback: Playback?
    /// Wakes the viewer when the frame shown has had its time; nil while nothing plays (a
    /// still photo, the last play ended, or the viewer is not on screen).
    private var frameTimer: MainLoopSource?

    /// Where an animation is: its frame shown, the plays finished, and the frame changes traced.
    private struct Playback {
        var animation: ViewerAnimation
        var frame = 0
        var playsDone = 0
        var tracedFrames = 0
        var finished: Bool { animation.plays != 0 && playsDone >= animation.plays }
    }

    /// `viewer.frame` is traced for at most this many frame changes per photo shown (and only
    /// during the first two plays), so an animation left playing does not fill the trace.
    static let maxTracedFrames = 100
    private var saveChooser: (object: ObjectRef<GObject>, connection: SignalConnection)?

    /// The entrance animation's length; the exit takes the same.
    static let animationMs: UInt32 = 200

    init(host: any PhotoViewerHost, pipeline: ViewerPipeline) {
        self.host = host
        self.pipeline = pipeline
        Self.installStyle()

        let overlay = gtk_overlay_new()!
        root = overlay
        gtk_widget_add_css_class(root, "photo-viewer")
        gtk_widget_set_visible(root, 0)
        let dim = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_widget_add_css_class(dim, "viewer-dim")
        gtk_overlay_set_child(gtkCast(overlay), dim)

        picture = cp_zoom_picture_new()
        cp_accessible_set_label(OpaquePointer(picture), "Photo", "The photo shown")
        gtk_overlay_add_overlay(gtkCast(overlay), picture)

        spinner = gtk_spinner_new()
        gtk_widget_set_size_request(spinner, 48, 48)
        gtk_widget_set_halign(spinner, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(spinner, GTK_ALIGN_CENTER)
        gtk_widget_set_can_target(spinner, 0)
        gtk_overlay_add_overlay(gtkCast(overlay), spinner)

        // The failed placeholder, large, with the reason and Retry.
        failedBox = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)
        gtk_widget_add_css_class(failedBox, "viewer-failed")
        gtk_widget_set_halign(failedBox, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(failedBox, GTK_ALIGN_CENTER)
        let failedIcon = gtk_image_new_from_icon_name("image-missing-symbolic")!
        gtk_image_set_pixel_size(gtkCast(failedIcon), 128)
        gtk_widget_add_css_class(failedIcon, "dim-label")
        let failedTitle = gtk_label_new("Could Not Load Photo")!
        gtk_widget_add_css_class(failedTitle, "title-1")
        failedReason = gtk_label_new(nil)
        gtk_label_set_wrap(gtkCast(failedReason), 1)
        gtk_label_set_justify(gtkCast(failedReason), GTK_JUSTIFY_CENTER)
        gtk_label_set_max_width_chars(gtkCast(failedReason), 50)
        gtk_label_set_selectable(gtkCast(failedReason), 1)
        let retry = gtk_button_new_with_mnemonic("_Retry")!
        gtk_widget_add_css_class(retry, "pill")
        gtk_widget_add_css_class(retry, "suggested-action")
        gtk_widget_set_halign(retry, GTK_ALIGN_CENTER)
        gtk_widget_set_margin_top(retry, 12)
        for child in [failedIcon, failedTitle, failedReason, retry] { gtk_box_append(gtkCast(failedBox), child) }
        gtk_widget_set_visible(failedBox, 0)
        gtk_overlay_add_overlay(gtkCast(overlay), failedBox)

        // On-screen controls over the photo, in the OSD style.
        let top = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        gtk_widget_set_valign(top, GTK_ALIGN_START)
        gtk_widget_set_margin_start(top, 12); gtk_widget_set_margin_end(top, 12); gtk_widget_set_margin_top(top, 12)
        let titleBox = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_widget_add_css_class(titleBox, "osd")
        gtk_widget_add_css_class(titleBox, "viewer-title")
        gtk_widget_set_valign(titleBox, GTK_ALIGN_CENTER)
        titleLabel = gtk_label_new(nil)
        gtk_label_set_ellipsize(gtkCast(titleLabel), PANGO_ELLIPSIZE_MIDDLE)
        gtk_label_set_max_width_chars(gtkCast(titleLabel), 40)
        gtk_label_set_xalign(gtkCast(titleLabel), 0)
        gtk_widget_add_css_class(titleLabel, "heading")
        counterLabel = gtk_label_new(nil)
        gtk_label_set_xalign(gtkCast(counterLabel), 0)
        gtk_widget_add_css_class(counterLabel, "caption")
        gtk_widget_add_css_class(counterLabel, "dim-label")
        gtk_box_append(gtkCast(titleBox), titleLabel)
        gtk_box_append(gtkCast(titleBox), counterLabel)
        gtk_box_append(gtkCast(top), titleBox)
        let spacer = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
        gtk_widget_set_hexpand(spacer, 1)
        gtk_widget_set_can_target(spacer, 0)
        gtk_box_append(gtkCast(top), spacer)

        let filterBox = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
        gtk_widget_add_css_class(filterBox, "linked")
        gtk_widget_set_valign(filterBox, GTK_ALIGN_CENTER)
        sepiaButton = gtk_toggle_button_new_with_label("Sepia")
        originalButton = gtk_toggle_button_new_with_label("Original")
        gtk_toggle_button_set_group(gtkCast(originalButton), gtkCast(sepiaButton))
        gtk_toggle_button_set_active(gtkCast(sepiaButton), 1)
        for button in [sepiaButton, originalButton] {
            gtk_widget_add_css_class(button, "osd")
            gtk_box_append(gtkCast(filterBox), button)
        }
        gtk_widget_set_tooltip_text(sepiaButton, "Show the sepia photo (S)")
        gtk_widget_set_tooltip_text(originalButton, "Show the original photo (S)")

        info = PhotoInfoPopover()
        infoButton = gtk_menu_button_new()
        gtk_menu_button_set_icon_name(gtkCast(infoButton), "help-about-symbolic")
        gtk_menu_button_set_popover(gtkCast(infoButton), info.popover)
        gtk_widget_set_tooltip_text(infoButton, "Properties (Alt+Return)")
        let buttonsBox = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        gtk_widget_set_valign(buttonsBox, GTK_ALIGN_CENTER)
        gtk_widget_set_margin_start(buttonsBox, 6)
        let copyButton = Self.osdButton("edit-copy-symbolic", tooltip: "Copy (Ctrl+C)")
        let saveButton = Self.osdButton("document-save-as-symbolic", tooltip: "Save As… (Ctrl+S)")
        fullscreenButton = Self.osdButton("view-fullscreen-symbolic", tooltip: "Fullscreen (F11)")
        let closeButton = Self.osdButton("window-close-symbolic", tooltip: "Close (Escape)")
        // The OSD look goes on the menu button's own button: on the menu button it would reach
        // the popover too, and turn it dark.
        if let inner = gtk_widget_get_first_child(infoButton) {
            gtk_widget_add_css_class(inner, "osd")
            gtk_widget_add_css_class(inner, "circular")
        }
        for button in [infoButton, copyButton, saveButton, fullscreenButton, closeButton] {
            gtk_box_append(gtkCast(buttonsBox), button)
        }
        gtk_box_append(gtkCast(top), buttonsBox)
        gtk_overlay_add_overlay(gtkCast(overlay), top)

        previousButton = Self.osdButton("go-previous-symbolic", tooltip: "Previous Photo (Left)")
        nextButton = Self.osdButton("go-next-symbolic", tooltip: "Next Photo (Right)")
        for (button, align) in [(previousButton, GTK_ALIGN_START), (nextButton, GTK_ALIGN_END)] {
            gtk_widget_add_css_class(button, "viewer-nav")
            gtk_widget_set_halign(button, align)
            gtk_widget_set_valign(button, GTK_ALIGN_CENTER)
            gtk_widget_set_margin_start(button, 18)
            gtk_widget_set_margin_end(button, 18)
            gtk_overlay_add_overlay(gtkCast(overlay), button)
        }

        // Bottom: zoom, and the sepia / original switch.
        let bottom = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)!
        gtk_widget_set_halign(bottom, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(bottom, GTK_ALIGN_END)
        gtk_widget_set_margin_bottom(bottom, 18)
        let zoomBox = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
        gtk_widget_add_css_class(zoomBox, "linked")
        let zoomOut = Self.osdButton("zoom-out-symbolic", tooltip: "Zoom Out (−)", circular: false)
        let zoomFit = gtk_button_new()!
        zoomLabel = gtk_label_new("100 %")
        gtk_label_set_width_chars(gtkCast(zoomLabel), 6)
        gtk_button_set_child(gtkCast(zoomFit), zoomLabel)
        gtk_widget_add_css_class(zoomFit, "osd")
        gtk_widget_set_tooltip_text(zoomFit, "Fit to Window (0) or 100 % (1)")
        let zoomIn = Self.osdButton("zoom-in-symbolic", tooltip: "Zoom In (+)", circular: false)
        for button in [zoomOut, zoomFit, zoomIn] { gtk_box_append(gtkCast(zoomBox), button) }
        gtk_box_append(gtkCast(bottom), zoomBox)
        gtk_box_append(gtkCast(bottom), filterBox)
        gtk_overlay_add_overlay(gtkCast(overlay), bottom)

        connect(closeButton, "clicked") { [unowned self] in close() }
        connect(previousButton, "clicked") { [unowned self] in step(-1) }
        connect(nextButton, "clicked") { [unowned self] in step(1) }
        connect(fullscreenButton, "clicked") { [unowned self] in toggleFullscreen() }
        connect(copyButton, "clicked") { [unowned self] in copy() }
        connect(saveButton, "clicked") { [unowned self] in saveAs() }
        connect(zoomIn, "clicked") { [unowned self] in cp_zoom_picture_zoom_by(zoomPicture, Self.zoomStep) }
        connect(zoomOut, "clicked") { [unowned self] in cp_zoom_picture_zoom_by(zoomPicture, 1 / Self.zoomStep) }
        connect(zoomFit, "clicked") { [unowned self] in toggleFitAndActualSize() }
        connect(retry, "clicked") { [unowned self] in retryCurrent() }
        connect(sepiaButton, "toggled") { [unowned self] in
            setSepia(gtk_toggle_button_get_active(gtkCast(sepiaButton)) != 0)
        }
        connections.append(SignalConnection.connect(UnsafeMutableRawPointer(picture), "zoom-changed") { [unowned self] in
            zoomChanged()
        })
        // An animation plays only while the picture is on screen: hiding the window (or the
        // viewer) pauses it on its frame, showing it again goes on from there.
        connections.append(SignalConnection.connect(UnsafeMutableRawPointer(picture), "unmap") { [unowned self] in
            frameTimer = nil
        })
        connections.append(SignalConnection.connect(UnsafeMutableRawPointer(picture), "map") { [unowned self] in
            scheduleNextFrame()
        })
        connections.append(SignalConnection.connect(UnsafeMutableRawPointer(picture), "swipe", int: { [unowned self] step in
            self.step(Int(step))
        }))
        connections.append(SignalConnection.connect(UnsafeMutableRawPointer(picture), "panned") { [unowned self] in
            var x = 0.0, y = 0.0
            cp_zoom_picture_get_center(zoomPicture, &x, &y)
            Trace.shared.emit(.viewerPan(x: x, y: y))
        })
        // Keys, seen by the window before the list behind: only while the viewer is open.
        let keys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE)
        connections.append(SignalConnection.connect(UnsafeMutableRawPointer(keys), "key-pressed", keys: { [unowned self] keyval, _, state in
            isOpen && !isClosing && key(keyval, state: GdkModifierType(state))
        }))
        gtk_widget_add_controller(widget(host.window), keys)
    }

    static let zoomStep = 1.25

    private func connect(_ button: UnsafeMutablePointer<GtkWidget>, _ signal: String, _ body: @escaping () -> Void) {
        connections.append(SignalConnection.connect(UnsafeMutableRawPointer(button), signal, body))
    }

    private static func osdButton(_ icon: String, tooltip: String, circular: Bool = true) -> UnsafeMutablePointer<GtkWidget> {
        let button = gtk_button_new_from_icon_name(icon)!
        gtk_widget_add_css_class(button, "osd")
        if circular { gtk_widget_add_css_class(button, "circular") }
        gtk_widget_set_tooltip_text(button, tooltip)
        return button
    }

    private static var styleInstalled = false

    /// The viewer's few style rules, added once for the display.
    private static func installStyle() {
        guard !styleInstalled, let display = gdk_display_get_default() else { return }
        styleInstalled = true
        let provider = gtk_css_provider_new()!
        gtk_css_provider_load_from_data(provider, """
            .photo-viewer .viewer-dim { background-color: rgba(0, 0, 0, 0.94); }
            .photo-viewer .viewer-title { padding: 6px 14px; border-radius: 12px; }
            .photo-viewer .viewer-nav { min-width: 48px; min-height: 48px; }
            .photo-viewer .viewer-failed { color: white; }
            .photo-viewer zoompicture:focus-visible { outline: none; }
            """, -1)
        gtk_style_context_add_provider_for_display(display, gtkCast(provider), UInt32(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
        g_object_unref(UnsafeMutableRawPointer(provider))
    }

    // MARK: Opening and closing

    /// Opens the viewer on the photo at `position` (or moves to it if already open).
    func open(at position: Int) {
        guard position >= 0, position < host.photoCount else { return }
        if !isOpen || isClosing {
            isOpen = true
            isClosing = false
            gtk_widget_set_visible(root, 1)
            animate(in: true)
            gtk_widget_grab_focus(picture)
        }
        show(position)
    }

    /// Closes the viewer: its work is cancelled, the photo fades out, the list gets the focus.
    func close(animated: Bool = true) {
        guard isOpen, !isClosing else { return }
        if isFullscreen { toggleFullscreen() }
        let closedAt = position
        if let position, let id = current?.id {
            Trace.shared.emit(.viewerClose(row: position, id: id))
        }
        cancelAll()
        stopPlayback()
        gtk_popover_popdown(gtkCast(info.popover))
        isClosing = true
        if animated {
            animate(in: false)
        } else {
            finishClosing()
        }
        if let closedAt { host.viewerClosed(at: closedAt) }
    }

    private func finishClosing() {
        isClosing = false
        isOpen = false
        position = nil
        shownID = nil
        gtk_widget_set_visible(root, 0)
        setShown(nil, state: nil)
        cp_zoom_picture_set_image_size(zoomPicture, 0, 0)
    }

    /// The desktop is short of memory: lets go of the photos loaded ahead (their bytes and
    /// pictures; loads still running are cancelled), keeping only the one shown. The next move
    /// loads its neighbours again.
    func memoryWarning() {
        let shownID = current?.id
        for (id, slot) in slots where id != shownID {
            slot.request?.cancel()
            slots.removeValue(forKey: id)
            Trace.shared.emit(.viewerDropped(row: slot.record.position, id: id))
        }
    }

    /// Cancels every load and forgets every photo (the list changed or the window closes).
    func cancelAll() {
        redecodeTimer = nil
        for slot in slots.values { slot.request?.cancel() }
        slots.removeAll()
    }

    /// Fades and scales in (or out, then hides). libadwaita skips the animation, jumping to its
    /// end, when the desktop turned animations off.
    private func animate(in entering: Bool) {
        if animation == nil {
            let made = cp_zoom_picture_reveal_animation_new(zoomPicture, root, Self.animationMs)!
            let object = ObjectRef<GObject>(taking: UnsafeMutableRawPointer(made).assumingMemoryBound(to: GObject.self))
            animation = object
            animationDone = SignalConnection.connect(UnsafeMutableRawPointer(made), "done") { [unowned self] in
                if isClosing { finishClosing() }
            }
        }
        guard let animation else { return }
        let timed = animation.opaque
        let current = adw_animation_get_value(animation.cast())
        adw_animation_reset(animation.cast())
        // Reversing from where it is, so a close during the entrance does not jump.
        adw_timed_animation_set_value_from(timed, entering ? (current < 1 ? current : 0) : current)
        adw_timed_animation_set_value_to(timed, entering ? 1 : 0)
        adw_animation_play(animation.cast())
    }

    // MARK: Paging

    private var current: Slot? {
        guard let position, let record = host.viewerRecord(at: position) else { return nil }
        return slots[record.id]
    }

    /// Moves by `delta` photos (clamped to the list).
    func step(_ delta: Int) {
        guard let position else { return }
        let target = max(0, min(host.photoCount - 1, position + delta))
        if target != position { show(target) }
    }

    private func show(_ position: Int) {
        guard let record = host.viewerRecord(at: position) else { return }
        let moved = self.position != position || shownID != record.id
        self.position = position
        shownID = record.id
        if moved {
            Trace.shared.emit(.viewerOpen(row: position, id: record.id, name: record.name))
            // New photo: fit, and whatever was drawn goes.
            setShown(nil, state: nil)
            cp_zoom_picture_set_image_size(zoomPicture, 0, 0)
            cp_zoom_picture_fit(zoomPicture)
            redecodeTimer = nil
        }
        // The photo shown and its neighbours; the rest is cancelled.
        let wanted = [position - 1, position, position + 1].filter { $0 >= 0 && $0 < host.photoCount }
        let keep = Set(wanted.compactMap { host.viewerRecord(at: $0)?.id })
        for (id, slot) in slots where !keep.contains(id) {
            slot.request?.cancel()
            slots.removeValue(forKey: id)
        }
        let slot = load(record, urgent: true)
        for neighbour in wanted where neighbour != position {
            if let record = host.viewerRecord(at: neighbour) { _ = load(record, urgent: false) }
        }
        gtk_label_set_text(gtkCast(titleLabel), record.name)
        gtk_label_set_text(gtkCast(counterLabel), "\(position + 1) of \(host.photoCount)")
        gtk_widget_set_sensitive(previousButton, position > 0 ? 1 : 0)
        gtk_widget_set_sensitive(nextButton, position < host.photoCount - 1 ? 1 : 0)
        refresh(slot)
        if moved { host.viewerMoved(to: position) }
    }

    /// Rows came, went or moved (the folder changed, or was sorted): the photo shown stays,
    /// wherever it is now; if it went, the one that took its place is shown.
    func listChanged() {
        guard isOpen, !isClosing, let position else { return }
        if let id = shownID, let now = host.viewerPosition(of: id) {
            self.position = now
            show(now)
        } else if host.photoCount > 0 {
            show(min(position, host.photoCount - 1))
        } else {
            close(animated: false)
        }
    }

    /// The photo `id`'s file was rewritten: what was decoded from it goes, and if it is shown,
    /// it is loaded again (the old picture stays until the new one is ready).
    func photoChanged(_ id: PhotoID) {
        guard let slot = slots.removeValue(forKey: id) else { return }
        slot.request?.cancel()
        if id == shownID, let position { show(position) }
    }

    /// The slot for `record`, loading it if it has nothing and is not loading.
    private func load(_ record: PhotoRecord, urgent: Bool) -> Slot {
        let slot = slots[record.id] ?? Slot(record: record)
        slots[record.id] = slot
        if let request = slot.request, request.isBusy {
            if urgent { request.makeUrgent() }
        } else if slot.picture == nil, slot.failure == nil {
            start(slot, wantedSide: viewerSide(), bytes: nil, urgent: urgent)
        }
        return slot
    }

    private func start(_ slot: Slot, wantedSide: Int, bytes: Data?, urgent: Bool) {
        slot.request?.cancel()
        slot.request = pipeline.load(slot.record, wantedSide: wantedSide, bytes: bytes, urgent: urgent) { [weak self, weak slot] event in
            guard let self, let slot else { return }
            switch event {
            case .decoded(let picture):
                slot.picture = picture
                slot.failure = nil
            case .filtered(let sepia):
                slot.sepia = sepia.image
                slot.sepiaAnimation = sepia.animation
                if slot.wantsLargerDecode { MainLoop.perform { [weak self] in MainActor.assumeIsolated { self?.considerRedecode() } } }
            case .failed(let failure):
                if slot.picture == nil { slot.failure = failure }
            }
            if slot === current { refresh(slot) }
        }
    }

    /// The longest side of the viewer's area in device pixels: what a fitted photo needs at most.
    private func viewerSide() -> Int {
        let area = gtk_widget_get_parent(root) ?? widget(host.window)
        var side = Int(max(gtk_widget_get_width(area), gtk_widget_get_height(area)))
        if side <= 0 { side = Int(max(gtk_widget_get_width(widget(host.window)), gtk_widget_get_height(widget(host.window)))) }
        return max(1, side) * Int(max(1, gtk_widget_get_scale_factor(root)))
    }

    // MARK: Showing the photo

    /// Shows what `slot` has: the picture (sepia or original), the failure, or the spinner.
    private func refresh(_ slot: Slot) {
        let failed = slot.picture == nil && slot.failure != nil
        let loading = slot.picture == nil && !failed
        gtk_widget_set_visible(failedBox, failed ? 1 : 0)
        gtk_widget_set_visible(spinner, loading ? 1 : 0)
        gtk_spinner_set_spinning(gtkCast(spinner), loading ? 1 : 0)
        info.show(name: slot.record.name, address: slot.record.entry.link, url: try? slot.record.entry.resolvedURL(),
                  info: slot.picture?.info)
        if failed, let failure = slot.failure {
            let reason = failure.summary == failure.detail ? failure.summary : failure.summary + "\n" + failure.detail
            gtk_label_set_text(gtkCast(failedReason), reason)
            if shownState != .failed, let position {
                Trace.shared.emit(.viewerStatus(row: position, id: slot.id, text: reason))
            }
            setShown(nil, state: .failed)
            return
        }
        guard let picture = slot.picture else { return }
        cp_zoom_picture_set_image_size(zoomPicture, Int32(picture.info.width), Int32(picture.info.height))
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
                play(animation)
            } else {
                stopPlayback()
                showTexture(of: image)
            }
        }
        shownState = state
        if let state, let position, let id = current?.id {
            Trace.shared.emit(.viewerImage(row: position, id: id, w: image?.width ?? 0, h: image?.height ?? 0, state: state,
                                           frames: playback?.animation.frames.count ?? 0))
        }
    }

    private func showTexture(of image: PhotoImage?) {
        shownTexture = image.map { ObjectRef(takingOpaque: gdk_texture_new_for_pixbuf($0.pixbuf)) }
        cp_zoom_picture_set_paintable(zoomPicture, shownTexture?.opaque)
    }

    // MARK: Animation

    /// Plays `animation` from its first frame; or, when it is the other version (sepia or
    /// original) of the one playing, goes on with it from the same frame and timing.
    private func play(_ animation: ViewerAnimation) {
        if var playback, playback.animation.frames.count == animation.frames.count {
            playback.animation = animation
            self.playback = playback
            showTexture(of: animation.frames[playback.frame])
            return
        }
        playback = Playback(animation: animation)
        showTexture(of: animation.frames[0])
        frameTimer = nil
        scheduleNextFrame()
    }

    private func stopPlayback() {
        playback = nil
        frameTimer = nil
    }

    /// Waits out the frame shown, if something plays, the viewer is on screen and no wait is
    /// already under way. A GLib timeout on the main loop: nothing runs between frames.
    private func scheduleNextFrame() {
        guard frameTimer == nil, let playback, !playback.finished, gtk_widget_get_mapped(picture) != 0 else { return }
        let delay = UInt32(clamping: playback.animation.delays[playback.frame])
        frameTimer = MainLoopSource(.timeout(milliseconds: delay)) { [weak self] in
            MainActor.assumeIsolated { self?.nextFrame() }
            return .remove
        }
    }

    /// Shows the next frame; after the last, the first again, or the last stays when the
    /// animation has played as many times as it says.
    private func nextFrame() {
        frameTimer = nil
        guard var playback else { return }
        var next = playback.frame + 1
        if next == playback.animation.frames.count {
            playback.playsDone += 1
            next = 0
            if playback.finished {
                self.playback = playback
                return
            }
        }
        playback.frame = next
        showTexture(of: playback.animation.frames[next])
        if playback.playsDone < 2, playback.tracedFrames < Self.maxTracedFrames, let position, let id = current?.id {
            playback.tracedFrames += 1
            Trace.shared.emit(.viewerFrame(row: position, id: id, frame: next))
        }
        self.playback = playback
        scheduleNextFrame()
    }

    private func setSepia(_ sepia: Bool) {
        guard sepia != showsSepia else { return }
        showsSepia = sepia
        if let slot = current { refresh(slot) }
    }

    private func retryCurrent() {
        guard let slot = current else { return }
        slot.failure = nil
        slot.picture = nil
        slot.sepia = nil
        slot.sepiaAnimation = nil
        start(slot, wantedSide: viewerSide(), bytes: nil, urgent: true)
        refresh(slot)
    }

    // MARK: Zoom

    private func zoomChanged() {
        guard isOpen, current?.picture != nil else { return }
        let zoom = cp_zoom_picture_get_zoom(zoomPicture)
        Trace.shared.emit(.viewerZoom(level: zoom))
        gtk_label_set_text(gtkCast(zoomLabel), "\(Int((zoom * 100).rounded())) %")
        // Decoding again waits until zooming pauses (a pinch changes the zoom every frame).
        redecodeTimer = MainLoopSource(.timeout(milliseconds: 150)) { [weak self] in
            MainActor.assumeIsolated { self?.considerRedecode() }
            return .remove
        }
    }

    /// Zoomed in past the decoded resolution: decodes again, larger (at least twice as large,
    /// up to the whole image and the pixel limit), from the bytes the viewer already has.
    private func considerRedecode() {
        redecodeTimer = nil
        // An animation is decoded once, at the size shown; zooming in enlarges its frames.
        guard let slot = current, let picture = slot.picture, picture.animation == nil else { return }
        let natural = max(picture.info.width, picture.info.height)
        let decoded = max(picture.original.width, picture.original.height)
        let zoom = cp_zoom_picture_get_zoom(zoomPicture)
        let needed = ViewerLimits.decodeSide(width: picture.info.width, height: picture.info.height,
                                             wanted: Int((Double(natural) * min(zoom, 1)).rounded(.up)))
        guard needed > decoded + decoded / 20 else { return }
        if let request = slot.request, request.isBusy {
            slot.wantsLargerDecode = true
            return
        }
        slot.wantsLargerDecode = false
        let side = ViewerLimits.decodeSide(width: picture.info.width, height: picture.info.height,
                                           wanted: min(natural, max(needed, decoded * 2)))
        start(slot, wantedSide: side, bytes: picture.bytes, urgent: true)
    }

    private func toggleFitAndActualSize() {
        if cp_zoom_picture_is_fit(zoomPicture) != 0, abs(cp_zoom_picture_get_fit_zoom(zoomPicture) - 1) > 1e-6 {
            cp_zoom_picture_set_zoom(zoomPicture, 1, -1, -1)
        } else {
            cp_zoom_picture_fit(zoomPicture)
        }
    }

    // MARK: Fullscreen

    func toggleFullscreen() {
        isFullscreen.toggle()
        host.setHeaderBarVisible(!isFullscreen)
        if isFullscreen { gtk_window_fullscreen(host.window) } else { gtk_window_unfullscreen(host.window) }
        gtk_button_set_icon_name(gtkCast(fullscreenButton), isFullscreen ? "view-restore-symbolic" : "view-fullscreen-symbolic")
        gtk_widget_set_tooltip_text(fullscreenButton, isFullscreen ? "Leave Fullscreen (F11)" : "Fullscreen (F11)")
    }

    // MARK: Keys

    /// Handles a key while the viewer is open; true if it was the viewer's.
    private func key(_ keyval: UInt32, state: GdkModifierType) -> Bool {
        let control = state.rawValue & GDK_CONTROL_MASK.rawValue != 0
        let alt = state.rawValue & GDK_ALT_MASK.rawValue != 0
        switch Int32(bitPattern: keyval) {
        case GDK_KEY_Escape:
            if isFullscreen { toggleFullscreen() } else { close() }
        case GDK_KEY_Left, GDK_KEY_KP_Left, GDK_KEY_Page_Up, GDK_KEY_KP_Page_Up: step(-1)
        case GDK_KEY_Right, GDK_KEY_KP_Right, GDK_KEY_Page_Down, GDK_KEY_KP_Page_Down: step(1)
        case GDK_KEY_Home, GDK_KEY_KP_Home: if let position { step(-position) }
        case GDK_KEY_End, GDK_KEY_KP_End: if let position { step(host.photoCount - 1 - position) }
        case GDK_KEY_plus, GDK_KEY_equal, GDK_KEY_KP_Add: cp_zoom_picture_zoom_by(zoomPicture, Self.zoomStep)
        case GDK_KEY_minus, GDK_KEY_underscore, GDK_KEY_KP_Subtract: cp_zoom_picture_zoom_by(zoomPicture, 1 / Self.zoomStep)
        case GDK_KEY_0, GDK_KEY_KP_0: cp_zoom_picture_fit(zoomPicture)
        case GDK_KEY_1, GDK_KEY_KP_1: cp_zoom_picture_set_zoom(zoomPicture, 1, -1, -1)
        case GDK_KEY_F11: toggleFullscreen()
        case GDK_KEY_c where control: copy()
        case GDK_KEY_s where control, GDK_KEY_S where control: saveAs()
        case GDK_KEY_s, GDK_KEY_S:
            gtk_toggle_button_set_active(gtkCast(showsSepia ? originalButton : sepiaButton), 1)
        case GDK_KEY_Return where alt, GDK_KEY_KP_Enter where alt: gtk_menu_button_popup(gtkCast(infoButton))
        // Keys that would move or activate the list behind the viewer go nowhere.
        case GDK_KEY_Up, GDK_KEY_Down, GDK_KEY_KP_Up, GDK_KEY_KP_Down, GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_space:
            break
        default:
            return false
        }
        return true
    }

    // MARK: Copy and Save As…

    /// The image shown, in the version shown (sepia or original).
    private var shownVersion: (image: PhotoImage, sepia: Bool)? {
        guard let image = shownImage, let state = shownState, state != .failed else { return nil }
        return (image, state == .filtered)
    }

    /// Puts the photo shown on the clipboard as a texture (an animation's frame shown).
    func copy() {
        guard let texture = shownTexture else { return }
        let clipboard = gtk_widget_get_clipboard(root)
        gdk_clipboard_set_texture(clipboard, texture.opaque)
        host.showToast("Photo copied", button: nil)
    }

    /// Asks where to save the photo shown, then saves it at full size in the version shown
    /// (decoded and filtered again off the main thread), as PNG or JPEG by the name's ending.
    func saveAs() {
        guard let slot = current, let picture = slot.picture, let shown = shownVersion else { return }
        let chooser = gtk_file_chooser_native_new("Save Photo As", host.window, GTK_FILE_CHOOSER_ACTION_SAVE, "_Save", "_Cancel")!
        let base = (slot.record.name as NSString).deletingPathExtension
        gtk_file_chooser_set_current_name(chooser, base + (shown.sepia ? " (sepia)" : "") + ".png")
        for (name, pattern) in [("PNG image", "*.png"), ("JPEG image", "*.jpg")] {
            let filter = gtk_file_filter_new()!
            gtk_file_filter_set_name(filter, name)
            gtk_file_filter_add_pattern(filter, pattern)
            if pattern == "*.jpg" { gtk_file_filter_add_pattern(filter, "*.jpeg") }
            gtk_file_chooser_add_filter(chooser, filter)
            g_object_unref(UnsafeMutableRawPointer(filter))
        }
        let object = ObjectRef(takingOpaque: chooser)
        let bytes = picture.bytes, sepia = shown.sepia
        let response = SignalConnection.connect(object.pointer, "response", int: { [unowned self] response in
            var path: String?
            if response == GTK_RESPONSE_ACCEPT.rawValue, let file = gtk_file_chooser_get_file(chooser) {
                if let p = g_file_get_path(file) { path = String(cString: p); g_free(p) }
                g_object_unref(UnsafeMutableRawPointer(file))
            }
            saveChooser = nil
            guard let path else { return }
            let name = (path as NSString).lastPathComponent
            Thread.detachNewThread { [weak self] in
                let result = PhotoSaving.save(bytes: bytes, sepia: sepia, to: path)
                Task { @MainActor in
                    switch result {
                    case .success(let saved):
                        Trace.shared.emit(.viewerSaved(path: path, format: saved.format, w: saved.width, h: saved.height))
                        self?.host.showToast("Saved “\(name)”", button: nil)
                    case .failure(let failure):
                        Trace.shared.emit(.viewerSaveFailed(path: path, error: failure.message))
                        self?.host.showToast("Could not save “\(name)”: \(failure.message)", button: nil)
                    }
                }
            }
        })
        saveChooser = (object, response)
        gtk_native_dialog_show(gtkCast(chooser))
    }

    /// Lets go of everything (the window is closing).
    func shutDown() {
        cancelAll()
        stopPlayback()
        saveChooser = nil
        animationDone = nil
        animation = nil
        connections.removeAll()
    }
}

/// Writes a photo at full size (within the viewer's pixel limit), sepia or not, off the main thread.
enum PhotoSaving {
    /// What was written: the format (`png`, `jpeg`) and the size in pixels.
    struct Saved: Sendable {
        let format: String
        let width: Int
        let height: Int
    }

    /// What went wrong.
    struct Failure: Error {
        let message: String
    }

    /// Writes the photo as PNG, or as JPEG when `path` ends in .jpg or .jpeg.
    nonisolated static func save(bytes: Data, sepia: Bool, to path: String) -> Result<Saved, Failure> {
        let cancellable = Cancellable()
        do throws(PhotoFailure) {
            let info = try ImageInfo.read(bytes)
            let side = ViewerLimits.decodeSide(width: info.width, height: info.height, wanted: 0)
            let copy = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count))! }
            defer { g_bytes_unref(copy) }
            let stream = ObjectRef(taking: g_memory_input_stream_new_from_bytes(copy)!)
            var image = try ImageDecoder.decode(stream, size: .fit(side), cancellable: cancellable)
            if sepia, let filtered = SepiaFilter().apply(to: image) { image = filtered }
            let jpeg = path.lowercased().hasSuffix(".jpg") || path.lowercased().hasSuffix(".jpeg")
            var pixbuf = image.pixbuf
            var flattened: PhotoImage?
            if jpeg, gdk_pixbuf_get_has_alpha(pixbuf) != 0 {
                // JPEG has no transparency: put the picture on white.
                let flat = PhotoImage(taking: gdk_pixbuf_composite_color_simple(
                    pixbuf, Int32(image.width), Int32(image.height), GDK_INTERP_NEAREST, 255, 16, 0xFFFFFF, 0xFFFFFF)!)
                flattened = flat
                pixbuf = flat.pixbuf
            }
            var error: UnsafeMutablePointer<GError>?
            let saved = withExtendedLifetime(flattened) {
                jpeg ? cp_pixbuf_save_jpeg(pixbuf, path, &error) : gdk_pixbuf_savev(pixbuf, path, "png", nil, nil, &error)
            }
            if saved == 0 {
                defer { if let error { g_error_free(error) } }
                return .failure(Failure(message: error.map { String(cString: $0.pointee.message) } ?? "unknown error"))
            }
            return .success(Saved(format: jpeg ? "jpeg" : "png", width: image.width, height: image.height))
        } catch {
            return .failure(Failure(message: error.detail))
        }
    }
}
