import CGtk
import GLibKit
import PhotoPipeline

/// One row of the photo list: thumbnail, name, status line (with the short reason when the
/// photo failed) and a spinner while work is pending.
@MainActor
final class PhotoRowWidget {
    /// Row height in logical pixels, as in the tutorial.
    static let height: Int32 = 80

    let root: UnsafeMutablePointer<GtkWidget>
    private let picture: UnsafeMutablePointer<GtkWidget>
    private let title: UnsafeMutablePointer<GtkWidget>
    private let status: UnsafeMutablePointer<GtkWidget>
    private let spinner: UnsafeMutablePointer<GtkWidget>
    /// The photo shown, until `clear()`.
    private(set) var photo: PhotoID?
    /// The picture's current texture, and the image it was made from (nil for the bundled ones).
    private var shownTexture: ObjectRef<GObject>?
    private var shownImage: PhotoImage?
    private var shownTooltip: String?

    init() {
        root = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)
        gtk_widget_set_size_request(root, -1, Self.height)
        gtk_widget_add_css_class(root, "photo-row")

        picture = gtk_picture_new()
        gtk_widget_set_size_request(picture, Self.height, Self.height)
        gtk_picture_set_can_shrink(gtkCast(picture), 1)
        gtk_picture_set_content_fit(gtkCast(picture), GTK_CONTENT_FIT_COVER)
        gtk_widget_set_valign(picture, GTK_ALIGN_CENTER)
        gtk_widget_add_css_class(picture, "photo-thumbnail")
        gtk_box_append(gtkCast(root), picture)

        let labels = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2)!
        gtk_widget_set_valign(labels, GTK_ALIGN_CENTER)
        gtk_widget_set_hexpand(labels, 1)
        title = gtk_label_new(nil)
        gtk_label_set_xalign(gtkCast(title), 0)
        gtk_label_set_ellipsize(gtkCast(title), PANGO_ELLIPSIZE_END)
        gtk_widget_add_css_class(title, "heading")
        status = gtk_label_new(nil)
        gtk_label_set_xalign(gtkCast(status), 0)
        gtk_label_set_ellipsize(gtkCast(status), PANGO_ELLIPSIZE_END)
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

    /// Shows the photo as `snapshot` has it; returns the status line shown.
    @discardableResult
    func show(_ snapshot: PhotoSnapshot, placeholder: ObjectRef<GObject>?, failed: ObjectRef<GObject>?) -> String {
        photo = snapshot.id
        let (state, image, working) = (snapshot.state, snapshot.image, snapshot.isBusy)
        let statusLine = Self.statusText(state, working: working, failure: snapshot.failure)
        gtk_label_set_text(gtkCast(title), snapshot.name)
        gtk_label_set_text(gtkCast(status), statusLine)
        setTooltip(state == .failed ? snapshot.failure?.detail ?? "Failed to load" : nil)
        if state == .failed { gtk_widget_add_css_class(status, "error") } else { gtk_widget_remove_css_class(status, "error") }
        if state == .failed {
            setPicture(failed, of: nil)
        } else if let image {
            // A texture is made once per image: rows are re-shown far more often than their
            // image changes, and each new texture would be uploaded again.
            setPicture(image === shownImage ? shownTexture : ObjectRef(takingOpaque: gdk_texture_new_for_pixbuf(image.pixbuf)),
                       of: image)
        } else {
            setPicture(placeholder, of: nil)
        }
        gtk_widget_set_visible(spinner, working ? 1 : 0)
        gtk_spinner_set_spinning(gtkCast(spinner), working ? 1 : 0)
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
        guard texture !== shownTexture else { return }
        shownTexture = texture
        shownImage = image
        gtk_picture_set_paintable(gtkCast(picture), texture.map { OpaquePointer($0.pointer) })
    }

    private static func statusText(_ state: PhotoState, working: Bool, failure: PhotoFailure?) -> String {
        switch state {
        case .new: working ? "Downloading…" : "Waiting"
        case .downloaded: working ? "Applying sepia…" : "Downloaded"
        case .filtered: "Sepia"
        case .failed: failure?.summary ?? "Failed to load"
        }
    }

    /// Forgets the row (the widget is about to be reused or destroyed).
    func clear() {
        photo = nil
        setPicture(nil, of: nil)
        gtk_label_set_text(gtkCast(title), nil)
        gtk_label_set_text(gtkCast(status), nil)
        setTooltip(nil)
        gtk_widget_set_visible(spinner, 0)
        gtk_spinner_set_spinning(gtkCast(spinner), 0)
    }
}
