import CGLib
import CGtk
import GLibKit
import PhotoPipeline

/// One row of the photo list: thumbnail (or a symbolic placeholder that follows the style),
/// name, status line (the short reason when the photo failed, with Retry), and a spinner while
/// work is pending. Screen readers hear the name and the state.
@MainActor
final class PhotoRowWidget {
    /// Row height in logical pixels, as in the tutorial.
    static let height: Int32 = 80

    let root: UnsafeMutablePointer<GtkWidget>
    /// The thumbnail, or the placeholder icon in its place.
    private let thumbnail: OpaquePointer
    private let picture: UnsafeMutablePointer<GtkWidget>
    private let placeholderIcon: UnsafeMutablePointer<GtkWidget>
    private let title: UnsafeMutablePointer<GtkWidget>
    private let status: UnsafeMutablePointer<GtkWidget>
    private let spinner: UnsafeMutablePointer<GtkWidget>
    /// Made the first time the row shows a failed photo (most rows never do, and a button
    /// is among the costlier widgets to make: GTK makes up to 200 rows at once).
    private var retryButton: UnsafeMutablePointer<GtkWidget>?
    private var retryClicked: SignalConnection?
    /// Asked to load the failed photo shown again.
    var onRetry: ((PhotoID) -> Void)?
    /// The photo shown (the one last bound; an unbound row keeps it until it is bound again).
    private(set) var photo: PhotoID?
    /// The picture's current texture, and the image it was made from.
    private var shownTexture: ObjectRef<GObject>?
    private var shownImage: PhotoImage?
    private var shownTooltip: String?
    private var shownIcon: String?
    private var shownAccessible: (name: String, state: String)?

    init() {
        root = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)
        gtk_widget_set_size_request(root, -1, Self.height)
        gtk_widget_add_css_class(root, "photo-row")

        picture = gtk_picture_new()
        gtk_picture_set_can_shrink(gtkCast(picture), 1)
        gtk_picture_set_content_fit(gtkCast(picture), GTK_CONTENT_FIT_COVER)
        gtk_widget_add_css_class(picture, "photo-thumbnail")
        placeholderIcon = gtk_image_new()
        gtk_image_set_pixel_size(gtkCast(placeholderIcon), 32)
        gtk_widget_add_css_class(placeholderIcon, "dim-label")
        thumbnail = OpaquePointer(gtk_stack_new()!)
        gtk_widget_set_size_request(widget(thumbnail), Self.height, Self.height)
        gtk_widget_set_valign(widget(thumbnail), GTK_ALIGN_CENTER)
        gtk_stack_add_named(thumbnail, placeholderIcon, "icon")
        gtk_stack_add_named(thumbnail, picture, "picture")
        gtk_box_append(gtkCast(root), widget(thumbnail))

        let labels = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2)!
        gtk_widget_set_valign(labels, GTK_ALIGN_CENTER)
        gtk_widget_set_hexpand(labels, 1)
        title = gtk_label_new(nil)
        gtk_label_set_xalign(gtkCast(title), 0)
        gtk_label_set_ellipsize(gtkCast(title), PANGO_ELLIPSIZE_END)
        // One line whatever the text (names are made one line too: see `DisplayText`).
        gtk_label_set_single_line_mode(gtkCast(title), 1)
        gtk_widget_add_css_class(title, "heading")
        status = gtk_label_new(nil)
        gtk_label_set_xalign(gtkCast(status), 0)
        gtk_label_set_ellipsize(gtkCast(status), PANGO_ELLIPSIZE_END)
        gtk_label_set_single_line_mode(gtkCast(status), 1)
        gtk_widget_add_css_class(status, "dim-label")
        gtk_widget_add_css_class(status, "caption")
        gtk_box_append(gtkCast(labels), title)
        gtk_box_append(gtkCast(labels), status)
        gtk_box_append(gtkCast(root), labels)

        spinner = gtk_spinner_new()
        gtk_widget_set_valign(spinner, GTK_ALIGN_CENTER)
        gtk_widget_set_margin_end(spinner, 12)
        gtk_box_append(gtkCast(root), spinner)
    }

    /// Shows or hides the Retry button, making it when first needed.
    private func setRetryVisible(_ visible: Bool) {
        if visible, retryButton == nil {
            let button = gtk_button_new_from_icon_name("view-refresh-symbolic")!
            gtk_widget_set_valign(button, GTK_ALIGN_CENTER)
            gtk_widget_add_css_class(button, "flat")
            gtk_widget_add_css_class(button, "circular")
            gtk_widget_set_tooltip_text(button, "Retry")
            gtk_box_insert_child_after(gtkCast(root), button, gtk_widget_get_prev_sibling(spinner))
            retryClicked = SignalConnection.connect(UnsafeMutableRawPointer(button), "clicked") { [unowned self] in
                if let photo { onRetry?(photo) }
            }
            retryButton = button
        }
        if let retryButton { gtk_widget_set_visible(retryButton, visible ? 1 : 0) }
    }

    /// Shows the photo as `snapshot` has it; returns the status line shown.
    @discardableResult
    func show(_ snapshot: PhotoSnapshot) -> String {
        photo = snapshot.id
        let (state, image, working) = (snapshot.state, snapshot.image, snapshot.isBusy)
        let statusLine = Self.statusText(state, working: working, failure: snapshot.failure)
        // Names are shown through `DisplayText`: one line, no control or bidi characters.
        let name = snapshot.displayName
        gtk_label_set_text(gtkCast(title), name)
        gtk_label_set_text(gtkCast(status), statusLine)
        setTooltip(state == .failed ? DisplayText.line(snapshot.failure?.detail ?? "Failed to load", limit: 1000) : nil)
        if state == .failed { gtk_widget_add_css_class(status, "error") } else { gtk_widget_remove_css_class(status, "error") }
        setRetryVisible(state == .failed)
        if state == .failed {
            setPlaceholder("image-missing-symbolic")
        } else if let image {
            // A texture is made once per image: rows are re-shown far more often than their
            // image changes, and each new texture would be uploaded again.
            setPicture(image === shownImage ? shownTexture : ObjectRef(takingOpaque: gdk_texture_new_for_pixbuf(image.pixbuf)),
                       of: image)
        } else {
            setPlaceholder("image-x-generic-symbolic")
        }
        gtk_widget_set_visible(spinner, working ? 1 : 0)
        gtk_spinner_set_spinning(gtkCast(spinner), working ? 1 : 0)
        let accessible = (name, Self.accessibleState(state, failure: snapshot.failure))
        if shownAccessible.map({ $0 != accessible }) ?? true {
            shownAccessible = accessible
            cp_accessible_set_label(OpaquePointer(root), accessible.0, accessible.1)
            gtk_picture_set_alternative_text(gtkCast(picture), name)
        }
        return statusLine
    }

    /// Sets the tooltip only when it changes: GTK queries the display for tooltips on every
    /// set, even of nothing over nothing, which cost about 0.2 ms a row, most of a row's bind.
    private func setTooltip(_ text: String?) {
        guard text != shownTooltip else { return }
        shownTooltip = text
        gtk_widget_set_tooltip_text(root, text)
    }

    private func setPicture(_ texture: ObjectRef<GObject>?, of image: PhotoImage?) {
        if shownIcon != nil {
            shownIcon = nil
            gtk_stack_set_visible_child_name(thumbnail, "picture")
        }
        guard texture !== shownTexture else { return }
        shownTexture = texture
        shownImage = image
        gtk_picture_set_paintable(gtkCast(picture), texture.map { OpaquePointer($0.pointer) })
    }

    /// Shows a symbolic icon where the thumbnail goes; it takes the style's colours.
    private func setPlaceholder(_ icon: String) {
        setPicture(nil, of: nil)
        guard icon != shownIcon else { return }
        shownIcon = icon
        gtk_image_set_from_icon_name(gtkCast(placeholderIcon), icon)
        gtk_stack_set_visible_child_name(thumbnail, "icon")
    }

    private static func statusText(_ state: PhotoState, working: Bool, failure: PhotoFailure?) -> String {
        switch state {
        case .new: working ? "Downloading…" : "Waiting"
        case .downloaded: working ? "Applying sepia…" : "Downloaded"
        case .filtered: "Sepia"
        case .failed: failure?.summary ?? "Failed to load"
        }
    }

    /// What a screen reader says after the name.
    private static func accessibleState(_ state: PhotoState, failure: PhotoFailure?) -> String {
        switch state {
        case .new: "loading"
        case .downloaded: "downloaded"
        case .filtered: "sepia"
        case .failed: "failed: " + (failure?.summary ?? "could not be loaded")
        }
    }
}
