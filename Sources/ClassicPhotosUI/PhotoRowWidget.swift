import CGLib
import CGtk
import GLibKit
import GtkKit
import PhotoPipeline

/// One row of the photo list: thumbnail (or a symbolic placeholder that follows the style),
/// name, status line (the short reason when the photo failed, with Retry), and a spinner while
/// work is pending. Screen readers hear what `TileSpeech` says.
///
/// GTK 4.8's list view keeps about 200 rows bound and binds them again on every jump, so the
/// row is kept small: the placeholder is the picture's own CSS background (no stack of two
/// widgets), the texts are `LineText`s (their size comes from the font, measured once for all
/// rows, so a new name needs no new measuring of the row, and their layouts are made only for
/// rows drawn), and the spinner and the Retry button are only made for rows that need them.
@MainActor
final class PhotoRowWidget {
    /// Row height in logical pixels, as in the tutorial.
    static let height: Int32 = 80

    let root: Widget<Box>
    /// The thumbnail; with no photo to show, its CSS background is the placeholder icon.
    private let picture: Widget<Picture>
    private let labels: Widget<Box>
    private let title: Widget<LineText>
    private let status: Widget<LineText>
    /// Made the first time the row has work pending.
    private var spinner: Widget<Spinner>?
    /// Made the first time the row shows a failed photo (most rows never do, and a button
    /// is among the costlier widgets to make: GTK makes up to 200 rows at once).
    private var retryButton: Widget<Button>?
    private var retryClicked: SignalConnection?
    /// Asked to load the failed photo shown again.
    var onRetry: ((PhotoID) -> Void)?
    var folderSummary: ((PhotoEntry) -> String?)?
    var photoDetails: ((PhotoID, PhotoEntry) -> String?)?
    private var shownEntry: PhotoEntry?
    /// The photo shown (the one last bound; an unbound row keeps it until it is bound again).
    private(set) var photo: PhotoID?
    /// The picture's current texture, and the image it was made from.
    private var shownTexture: ObjectRef<GObject>?
    private var shownImage: PhotoImage?
    /// The display colours `shownTexture` was made in (see `DisplayColours.generation`).
    private var shownColours = 0

    /// Whether `image` is shown already, in the display's colours as they are now.
    private func isShown(_ image: PhotoImage) -> Bool {
        image === shownImage && shownColours == DisplayColours.shared.generation
    }
    private var shownTooltip: String?
    private var tooltipSource: SignalConnection?
    /// The placeholder's style class ("placeholder" or "missing"), nil while a photo shows.
    private var shownPlaceholder: String?
    private var shownFailed = false
    /// What a screen reader says of the photo shown (set by the list, which knows its place).
    let voice = TileVoice()
    /// The stars, reject and label, beside the name.
    private lazy var marks = MarksSlot(osd: false) { [unowned self] badge in
        badge.root.setMarginEnd(12)
        root.insert(badge.root, after: labels)
    }
    var shownMarks: PhotoMarks { marks.shown }
    /// A video's length, beside the name.
    private lazy var video = VideoBadge(osd: false) { [unowned self] badge in
        badge.setMarginEnd(12)
        root.insert(badge, after: labels)
    }

    init() {
        root = Widget<Box>.make(GTK_ORIENTATION_HORIZONTAL, spacing: 12)
        root.setSizeRequest(width: -1, height: Self.height)
        root.addCSSClass("photo-row")

        picture = Widget<Picture>.make()
        picture.setCanShrink(true)
        picture.setContentFit(GTK_CONTENT_FIT_COVER)
        picture.setSizeRequest(width: Self.height, height: Self.height)
        picture.setVerticalAlign(GTK_ALIGN_CENTER)
        picture.addCSSClass("photo-thumbnail")
        picture.hideFromScreenReaders() // the row says what it shows
        root.append(picture)

        labels = Widget<Box>.make(GTK_ORIENTATION_VERTICAL, spacing: 2)
        labels.setVerticalAlign(GTK_ALIGN_CENTER)
        labels.setHorizontalExpand(true)
        // One line each whatever the text (names are made one line too: see `DisplayText`).
        title = Widget<LineText>.make()
        title.addCSSClass("heading")
        status = Widget<LineText>.make()
        status.addCSSClass("dim-label")
        status.addCSSClass("caption")
        labels.append(title)
        labels.append(status)
        root.append(labels)
        tooltipSource = root.setTooltipSource { [unowned self] in
            // A photo's tooltip says what the index knows of it; a failed one's, what went wrong.
            guard shownTooltip == nil, let photo, let shownEntry, !shownEntry.isFolder else { return shownTooltip }
            return photoDetails?(photo, shownEntry)
        }
    }

    /// Shows or hides the Retry button, making it when first needed.
    private func setRetryVisible(_ visible: Bool) {
        if visible, retryButton == nil {
            let button = Widget<Button>.make(iconName: "view-refresh-symbolic")
            button.setVerticalAlign(GTK_ALIGN_CENTER)
            button.addCSSClass("flat")
            button.addCSSClass("circular")
            button.setTooltip(tr("Retry"))
            button.setAccessibleName(tr("Retry"))
            root.insert(button, after: labels)
            retryClicked = button.connect("clicked") { [unowned self] in
                if let photo { onRetry?(photo) }
            }
            retryButton = button
        }
        if retryButton?.isVisible != visible { retryButton?.isVisible = visible }
    }

    /// Shows or hides the spinner, making it (last in the row) when first needed.
    private func setWorking(_ working: Bool) {
        if working, spinner == nil {
            let made = Widget<Spinner>.make()
            made.setVerticalAlign(GTK_ALIGN_CENTER)
            made.setMarginEnd(12)
            root.append(made)
            spinner = made
        }
        guard let spinner else { return }
        spinner.isVisible = working
        spinner.isSpinning = working
    }

    /// Shows the photo as `snapshot` has it; returns the status line shown.
    @discardableResult
    func show(_ snapshot: PhotoSnapshot) -> String {
        photo = snapshot.id
        shownEntry = snapshot.entry
        if snapshot.entry.isFolder { return showFolder(snapshot) }
        let (state, image, working) = (snapshot.state, snapshot.image, snapshot.isBusy)
        let statusLine = Self.statusText(state, working: working, failure: snapshot.failure)
        // Names are shown through `DisplayText`: one line, no control or bidi characters.
        let name = snapshot.displayName
        // (A line does nothing when the text is the one it shows.)
        title.setText(name)
        // A photo of a folder shown with everything beneath it says which folder it is in.
        status.setText(
            snapshot.entry.subfolder.map { String(format: tr("%1$@ · %2$@"), DisplayText.line(String($0)), statusLine) }
                ?? statusLine)
        setTooltip(
            state == .failed ? DisplayText.line(snapshot.failure?.detail ?? tr("Failed to load"), limit: 1000) : nil)
        if (state == .failed) != shownFailed {
            shownFailed = state == .failed
            if shownFailed {
                status.addCSSClass("error")
            } else {
                status.removeCSSClass("error")
            }
        }
        // Retry only where trying again may help (not for a format nothing here reads).
        setRetryVisible(state == .failed && snapshot.failure?.retryHelps ?? true)
        if state == .failed {
            setPlaceholder("missing")
        } else if let image {
            // A texture is made once per image: rows are re-shown far more often than their
            // image changes, and each new texture would be uploaded again.
            setPicture(
                isShown(image) ? shownTexture : DisplayColours.shared.texture(for: image),
                of: image)
        } else {
            setPlaceholder("placeholder")
        }
        setWorking(working)
        let marks = snapshot.marks ?? .none
        self.marks.show(marks, on: root)
        let seconds = state == .failed ? nil : image?.videoSeconds
        let live = !(state == .failed) && image?.isMotion == true
        video.show(seconds: seconds, live: live)
        return statusLine
    }

    /// A sub-folder: the folder icon, its name, and "Folder"; its path as the tooltip.
    private func showFolder(_ snapshot: PhotoSnapshot) -> String {
        let name = snapshot.displayName
        title.setText(name)
        let summary = folderSummary?(snapshot.entry)
        status.setText(summary ?? tr("Folder"))
        setTooltip(FolderItem.path(of: snapshot.entry))
        marks.show(.none, on: root)
        if shownFailed {
            shownFailed = false
            status.removeCSSClass("error")
            setRetryVisible(false)
        }
        setPlaceholder("folder")
        setWorking(false)
        video.show(seconds: nil)
        return ""
    }

    /// The tooltip's text from now on, asked for when it shows (see `setTooltipSource`): setting
    /// it on the widget at every bind cost most of a bind.
    private func setTooltip(_ text: String?) {
        shownTooltip = text
    }

    private func setPicture(_ texture: ObjectRef<GObject>?, of image: PhotoImage?) {
        if let shownPlaceholder {
            self.shownPlaceholder = nil
            picture.removeCSSClass(shownPlaceholder)
        }
        guard texture !== shownTexture else { return }
        shownTexture = texture
        shownImage = image
        shownColours = DisplayColours.shared.generation
        picture.setPaintable(texture)
    }

    /// Shows a symbolic icon where the thumbnail goes, drawn as the picture's CSS background
    /// (see `data/resources/style.css`): "placeholder" (a picture to come) or "missing" (it failed). It takes
    /// the style's colours.
    private func setPlaceholder(_ style: String) {
        guard style != shownPlaceholder else { return } // and so no texture either
        setPicture(nil, of: nil)
        shownPlaceholder = style
        picture.addCSSClass(style)
    }

    static func statusText(_ state: PhotoState, working: Bool, failure: PhotoFailure?) -> String {
        switch state {
        case .new: working ? tr("Downloading…") : tr("Waiting")
        case .downloaded: working ? tr("Applying sepia…") : tr("Downloaded")
        case .filtered: tr("Sepia")
        case .failed: failure?.localizedSummary ?? tr("Failed to load")
        }
    }
}
