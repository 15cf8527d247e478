import CGLib
import CGtk
import GLibKit
import GtkKit
import PhotoPipeline

/// The photo viewer's widgets: the dimmed backdrop, the zoomable picture, the spinner and the
/// failed placeholder, and the on-screen controls in the OSD style (title and counter, the
/// details panel's switch, copy, save, fullscreen and close at the top; previous and next at the sides; zoom and the
/// sepia / original switch at the bottom), from `ui/viewer.ui`. Buttons report
/// `ViewerCommand`s; what is shown is set through the methods here.
@MainActor
final class ViewerChrome {
    /// An overlay child of the list's area, hidden until the viewer opens.
    let root: Widget<Overlay>
    /// The photo, zoomed and panned; its entrance fades `root` in.
    let zooming: ZoomingPicture
    let picture: Widget<ZoomPicture>
    /// A video, over the picture while one is shown.
    let video = ViewerVideo()
    /// Receives what the buttons ask for.
    var onCommand: ((ViewerCommand) -> Void)?
    private let ui = UIFile("viewer")
    private let spinner: Widget<Spinner>
    private let failed: Widget<Box>
    private let failedReason: Widget<Label>
    private let titleLabel: Widget<Label>
    private let counterLabel: Widget<Label>
    /// The photo's stars, reject and label, after the counter.
    private let marks = MarksBadge(osd: false, wordy: true)
    private let previousButton: Widget<Button>
    private let nextButton: Widget<Button>
    private let fullscreenButton: Widget<Button>
    private let zoomLabel: Widget<Label>
    private let zoomButton: Widget<Button>
    /// What a screen reader hears of the photo after its name: its alt text, caption or date,
    /// where known (`describe`), and its place in the list.
    private var spoken: (name: String, words: String?, place: String) = ("", nil, "")
    private let sepiaButton: Widget<ToggleButton>
    private let originalButton: Widget<ToggleButton>
    /// The photo menu (rotate, trash, open with, slideshow, …), and the controls the
    /// slideshow hides.
    private let menuButton: Widget<MenuButton>
    private let topControls: Widget<Box>
    private let bottomControls: Widget<Box>
    private var connections: [SignalConnection] = []

    init() {
        root = ui.widget("root")
        zooming = ZoomingPicture(fading: root)
        picture = zooming.widget
        let pictureAndVideo = Widget<Overlay>.make()
        pictureAndVideo.setChild(picture)
        pictureAndVideo.addOverlay(video.widget)
        ui.widget("picture-slot", as: Bin.self).setChild(pictureAndVideo)
        spinner = ui.widget("spinner")
        failed = ui.widget("failed")
        failedReason = ui.widget("failed-reason")
        titleLabel = ui.widget("title")
        counterLabel = ui.widget("counter")
        ui.widget("place-line", as: Box.self).append(marks.root)
        marks.show(.none)
        previousButton = ui.widget("previous")
        nextButton = ui.widget("next")
        fullscreenButton = ui.widget("fullscreen")
        zoomLabel = ui.widget("zoom-level")
        zoomButton = ui.widget("zoom-fit")
        sepiaButton = ui.widget("sepia")
        originalButton = ui.widget("original")
        menuButton = ui.widget("more")
        topControls = ui.widget("top-controls")
        bottomControls = ui.widget("bottom-controls")
        if let inner = menuButton.innerButton {
            inner.addCSSClass("osd")
            inner.addCSSClass("circular")
        }
        let commands: [(String, ViewerCommand)] = [
            ("close", .close), ("previous", .step(-1)), ("next", .step(1)), ("fullscreen", .fullscreen),
            ("edit", .edit), ("copy", .copy), ("save", .saveAs), ("zoom-in", .zoomIn), ("zoom-out", .zoomOut),
            ("zoom-fit", .toggleFit), ("retry", .retry),
        ]
        for (id, command) in commands {
            connections.append(
                ui.widget(id, as: Button.self).connect("clicked") { [unowned self] in onCommand?(command) })
        }
        connections.append(
            sepiaButton.connect("toggled") { [unowned self] in onCommand?(.sepia(sepiaButton.isActive)) })
    }

    // MARK: What is shown

    /// The photo's name, where it is in the list, and which way the list goes on.
    func showPlace(name: String, position: Int, count: Int) {
        titleLabel.setText(name)
        counterLabel.setText(
            String(format: tr("%1$@ of %2$@"), Localization.number(position + 1), Localization.number(count)))
        if spoken.name != name { spoken.words = nil }
        spoken.name = name
        spoken.place = String(
            format: tr("photo %1$@ of %2$@"), Localization.number(position + 1), Localization.number(count))
        speak()
        previousButton.isSensitive = position > 0
        nextButton.isSensitive = position < count - 1
    }

    /// "Live", after the counter, for a motion photo; made for the first one shown.
    private var liveBadge: Widget<Label>?

    /// Says whether the photo shown is a motion photo.
    func showLive(_ live: Bool) {
        if live, liveBadge == nil {
            let badge = Widget<Label>.make(tr("Live"))
            badge.addCSSClass("live-badge")
            badge.setTooltip(tr("A motion photo: Space plays its clip again"))
            ui.widget("place-line", as: Box.self).append(badge)
            liveBadge = badge
        }
        liveBadge?.isVisible = live
    }

    /// The photo's marks (none: nothing shown).
    func showMarks(_ shown: PhotoMarks) { marks.show(shown) }

    /// The spinner while loading, or the failed placeholder with `failure`'s reason.
    func showProgress(loading: Bool, failure: String?) {
        failed.isVisible = failure != nil
        if let failure { failedReason.setText(failure) }
        spinner.isVisible = loading
        spinner.isSpinning = loading
    }

    /// Says what the photo shown is, in words, to a screen reader: its alt text where it has
    /// one, else its caption, else when it was taken (nil: only its name and place).
    func describe(_ words: String?) {
        spoken.words = words
        speak()
    }

    private func speak() {
        picture.setAccessibleLabel(
            spoken.name, description: [spoken.words, spoken.place].compactMap { $0 }.joined(separator: ", "))
    }

    func showZoom(_ zoom: Double) {
        let level = String(format: tr("%d %%"), Int((zoom * 100).rounded()))
        zoomLabel.setText(level)
        zoomButton.setAccessibleName(String(format: tr("Zoom %@"), level))
    }

    func showFullscreen(_ fullscreen: Bool) {
        fullscreenButton.setIconName(fullscreen ? "view-restore-symbolic" : "view-fullscreen-symbolic")
        fullscreenButton.setTooltip(fullscreen ? tr("Leave Fullscreen (F11)") : tr("Fullscreen (F11)"))
        fullscreenButton.setAccessibleName(fullscreen ? tr("Leave Fullscreen") : tr("Fullscreen"))
    }

    /// Switches the sepia / original buttons (which then report `.sepia`).
    func selectSepia(_ sepia: Bool) {
        (sepia ? sepiaButton : originalButton).isActive = true
    }

    /// A video shown has its own controls at the bottom, in place of the zoom and the sepia.
    func showVideo(_ isVideo: Bool) {
        videoShown = isVideo
        bottomControls.isVisible = controlsShown && !videoShown
    }
    private var videoShown = false
    private var controlsShown = true

    /// Shows or hides the on-screen controls (the slideshow hides them).
    func showControls(_ shown: Bool) {
        controlsShown = shown
        topControls.isVisible = shown
        bottomControls.isVisible = shown && !videoShown
        previousButton.isVisible = shown
        nextButton.isVisible = shown
        if !shown { menuButton.popDown() }
    }
}
