import CGLib
import CGtk
import GLibKit
import GtkKit
import PhotoPipeline

/// What the list's rows and the grid's cells have in common: a widget that shows one photo's
/// snapshot and asks for a failed photo to be tried again.
@MainActor
protocol PhotoTile: AnyObject {
    var root: Widget<Box> { get }
    /// The photo shown (the one last bound; an unbound tile keeps it until bound again).
    var photo: PhotoID? { get }
    var onRetry: ((PhotoID) -> Void)? { get set }
    /// What a sub-folder holds, in words, once known ("3 folders, 12 photos").
    var folderSummary: ((PhotoEntry) -> String?)? { get set }
    /// What the index knows of a photo, in words ("4000 × 3000 · Canon EOS R6 · …"), asked for
    /// when its tooltip shows.
    var photoDetails: ((PhotoID, PhotoEntry) -> String?)? { get set }
    /// Shows the photo as `snapshot` has it; returns the status line (the short reason of a
    /// failed photo, which the trace records).
    @discardableResult func show(_ snapshot: PhotoSnapshot) -> String
    /// The marks shown (none for a folder, or before any were read).
    var shownMarks: PhotoMarks { get }
    /// What a screen reader says of it.
    var voice: TileVoice { get }
}

extension PhotoRowWidget: PhotoTile {}

/// One cell of the photo grid: the whole photo, fitted into a square (docs/views.md says why),
/// its name beneath, and for a failed photo the placeholder with the short reason and Retry in
/// the square, and the whole story in the tooltip.
///
/// While a photo is decoded again for a larger cell, the cell keeps showing the smaller picture
/// it had, drawn larger, until the new one arrives.
@MainActor
final class PhotoGridCell: PhotoTile {
    /// The side of the square, in logical pixels: from 96 to 384, in steps.
    static let sizes: [Int32] = [96, 128, 160, 192, 256, 320, 384]
    static let defaultSize: Int32 = 160
    /// Space around the square and the name, inside the cell.
    static let padding: Int32 = 6
    /// The smallest width a cell takes, for a square of `side`: the grid has as many columns
    /// as there are such widths in its own.
    static func width(for side: Int32) -> Int32 { side + 2 * padding }

    let root: Widget<Box>
    private let square: Widget<Overlay>
    private let picture: Widget<Picture>
    private let title: Widget<LineText>
    private let reason: Widget<LineText>
    private var spinner: Widget<Spinner>?
    private var retryButton: Widget<Button>?
    private var retryClicked: SignalConnection?
    var onRetry: ((PhotoID) -> Void)?
    var folderSummary: ((PhotoEntry) -> String?)?
    private(set) var photo: PhotoID?
    private var shownTexture: ObjectRef<GObject>?
    private var shownImage: PhotoImage?
    /// The display colours `shownTexture` was made in (see `DisplayColours.generation`).
    private var shownColours = 0

    /// Whether `image` is shown already, in the display's colours as they are now.
    private func isShown(_ image: PhotoImage) -> Bool {
        image === shownImage && shownColours == DisplayColours.shared.generation
    }
    private var shownTooltip: String?
    private var shownEntry: PhotoEntry?
    var photoDetails: ((PhotoID, PhotoEntry) -> String?)?
    private var tooltipSource: SignalConnection?
    private var shownPlaceholder: String?
    private var shownFailed = false
    /// What a screen reader says of the photo shown (set by the list, which knows its place).
    let voice = TileVoice()
    private var side: Int32 = 0
    /// The stars, reject and label over the picture's lower corner.
    private lazy var marks = MarksSlot(osd: true) { [unowned self] badge in
        badge.root.setHorizontalAlign(GTK_ALIGN_START)
        badge.root.setVerticalAlign(GTK_ALIGN_END)
        badge.root.setMargin(6)
        badge.root.canTarget = false
        square.addOverlay(badge.root)
    }
    var shownMarks: PhotoMarks { marks.shown }
    /// A video's length over the picture's lower right corner.
    private lazy var video = VideoBadge(osd: true) { [unowned self] badge in
        badge.setHorizontalAlign(GTK_ALIGN_END)
        badge.setMargin(6)
        square.addOverlay(badge)
    }

    init(side: Int32) {
        root = Widget<Box>.make(GTK_ORIENTATION_VERTICAL, spacing: 4)
        root.addCSSClass("photo-cell")
        root.setMargin(Self.padding)
        root.setHorizontalAlign(GTK_ALIGN_CENTER)

        picture = Widget<Picture>.make()
        picture.setCanShrink(true)
        picture.setContentFit(GTK_CONTENT_FIT_CONTAIN)
        picture.addCSSClass("photo-thumbnail")
        picture.hideFromScreenReaders() // the cell says what it shows
        square = Widget<Overlay>.make()
        square.setChild(picture)
        square.setHorizontalAlign(GTK_ALIGN_CENTER)
        square.addCSSClass("photo-square")
        root.append(square)

        title = Self.line()
        root.append(title)
        // The short reason of a failure, in the square under the placeholder, so that every
        // cell is as tall as the others.
        reason = Self.line()
        reason.addCSSClass("caption")
        reason.addCSSClass("error")
        reason.setVerticalAlign(GTK_ALIGN_END)
        reason.setMargin(8)
        reason.isVisible = false
        square.addOverlay(reason)
        setSide(side)
        tooltipSource = root.setTooltipSource { [unowned self] in
            guard let shownTooltip, !shownFailed, let photo, let shownEntry,
                let details = photoDetails?(photo, shownEntry)
            else { return shownTooltip }
            return shownTooltip + "\n" + details
        }
    }

    /// One line, centred, cut in the middle when it is too long (a name's end tells photos apart).
    private static func line() -> Widget<LineText> {
        let text = Widget<LineText>.make()
        text.centre()
        return text
    }

    /// Makes the square `side` logical pixels wide and high.
    func setSide(_ side: Int32) {
        guard side != self.side else { return }
        self.side = side
        square.setSizeRequest(width: side, height: side)
        fitPicture(shownImage)
        title.setSizeRequest(width: side, height: -1)
    }

    @discardableResult
    func show(_ snapshot: PhotoSnapshot) -> String {
        let samePhoto = photo == snapshot.id
        photo = snapshot.id
        shownEntry = snapshot.entry
        if snapshot.entry.isFolder { return showFolder(snapshot) }
        let (state, image, working) = (snapshot.state, snapshot.image, snapshot.isBusy)
        let failed = state == .failed
        let statusLine = PhotoRowWidget.statusText(state, working: working, failure: snapshot.failure)
        let name = snapshot.displayName
        title.setText(name)
        reason.setText(failed ? statusLine : "")
        // A photo of a folder shown with everything beneath it says which folder it is in.
        let place = snapshot.entry.subfolder.map {
            "\(name)\n" + String(format: tr("In %@"), DisplayText.line(String($0)))
        }
        setTooltip(
            failed ? DisplayText.line(snapshot.failure?.detail ?? tr("Failed to load"), limit: 1000) : place ?? name)
        if failed != shownFailed {
            shownFailed = failed
            reason.isVisible = failed
        }
        // Retry only where trying again may help (not for a format nothing here reads).
        setRetryVisible(failed && snapshot.failure?.retryHelps ?? true)
        if failed {
            setPlaceholder("missing")
        } else if let image {
            setPicture(isShown(image) ? shownTexture : DisplayColours.shared.texture(for: image), of: image)
        } else if !(samePhoto && state == .new && shownTexture != nil) {
            // A photo decoded again for a larger cell keeps its smaller picture until then.
            setPlaceholder("placeholder")
        }
        setWorking(working)
        let marks = snapshot.marks ?? .none
        self.marks.show(marks, on: root)
        let seconds = failed ? nil : image?.videoSeconds
        let live = !(failed) && image?.isMotion == true
        video.show(seconds: seconds, live: live)
        return statusLine
    }

    /// A sub-folder: the folder icon in the square, its name beneath, its path as the tooltip.
    private func showFolder(_ snapshot: PhotoSnapshot) -> String {
        let name = snapshot.displayName
        title.setText(name)
        let summary = folderSummary?(snapshot.entry)
        setTooltip(FolderItem.path(of: snapshot.entry) + (summary.map { "\n" + $0 } ?? ""))
        if shownFailed {
            shownFailed = false
            reason.isVisible = false
            setRetryVisible(false)
        }
        setPlaceholder("folder")
        setWorking(false)
        marks.show(.none, on: root)
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
        fitPicture(image)
    }

    /// Gives the picture exactly the photo's shape within the square (margins take the rest),
    /// so the selection frames the photo and not the empty bands beside it; a placeholder
    /// takes the whole square.
    private func fitPicture(_ image: PhotoImage?) {
        guard let image, image.width > 0, image.height > 0 else {
            picture.setMargins(horizontal: 0, vertical: 0)
            return
        }
        let (width, height) = ImageDecoder.scaledSize(
            width: image.width * Int(side), height: image.height * Int(side), for: .fit(Int(side)))
        picture.setMargins(horizontal: Int32((Int(side) - width) / 2), vertical: Int32((Int(side) - height) / 2))
    }

    private func setPlaceholder(_ style: String) {
        guard style != shownPlaceholder else { return }
        setPicture(nil, of: nil)
        shownPlaceholder = style
        picture.addCSSClass(style)
    }

    /// Retry, over the square's upper right corner, made the first time a photo fails.
    private func setRetryVisible(_ visible: Bool) {
        if visible, retryButton == nil {
            let button = Widget<Button>.make(iconName: "view-refresh-symbolic")
            button.setHorizontalAlign(GTK_ALIGN_END)
            button.setVerticalAlign(GTK_ALIGN_START)
            button.setMargin(6)
            button.addCSSClass("circular")
            button.addCSSClass("osd")
            button.setTooltip(tr("Retry"))
            button.setAccessibleName(tr("Retry"))
            square.addOverlay(button)
            retryClicked = button.connect("clicked") { [unowned self] in
                if let photo { onRetry?(photo) }
            }
            retryButton = button
        }
        if retryButton?.isVisible != visible { retryButton?.isVisible = visible }
    }

    /// A spinner over the square's centre while work is pending, made when first needed.
    private func setWorking(_ working: Bool) {
        if working, spinner == nil {
            let made = Widget<Spinner>.make()
            made.setHorizontalAlign(GTK_ALIGN_CENTER)
            made.setVerticalAlign(GTK_ALIGN_CENTER)
            square.addOverlay(made)
            spinner = made
        }
        guard let spinner else { return }
        spinner.isVisible = working
        spinner.isSpinning = working
    }
}

/// What the views show of a sub-folder.
enum FolderItem {
    /// The folder's path, for its tooltip.
    static func path(of entry: PhotoEntry) -> String {
        (try? entry.resolvedURL()).map { $0.path } ?? entry.name
    }
}
