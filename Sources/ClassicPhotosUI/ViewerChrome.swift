import CGLib
import CGtk
import GLibKit

/// The photo viewer's widgets: the dimmed backdrop, the zoomable picture, the spinner and the
/// failed placeholder, and the on-screen controls in the OSD style (title and counter, info,
/// copy, save, fullscreen and close at the top; previous and next at the sides; zoom and the
/// sepia / original switch at the bottom). Buttons report `ViewerCommand`s; what is shown is
/// set through the methods here.
@MainActor
final class ViewerChrome {
    /// An overlay child of the list's area, hidden until the viewer opens.
    let root: UnsafeMutablePointer<GtkWidget>
    /// The photo, zoomed and panned; its entrance fades `root` in.
    let zooming: ZoomingPicture
    let picture: UnsafeMutablePointer<GtkWidget>
    let info = PhotoInfoPopover()
    /// Receives what the buttons ask for.
    var onCommand: ((ViewerCommand) -> Void)?
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
    private var connections: [SignalConnection] = []

    init() {
        Self.installStyle()
        let overlay = gtk_overlay_new()!
        root = overlay
        gtk_widget_add_css_class(root, "photo-viewer")
        gtk_widget_set_visible(root, 0)
        let dim = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_widget_add_css_class(dim, "viewer-dim")
        gtk_overlay_set_child(gtkCast(overlay), dim)

        zooming = ZoomingPicture(fading: overlay)
        picture = zooming.widget
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

        // Top: the title and counter, then the buttons.
        let top = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        gtk_widget_set_valign(top, GTK_ALIGN_START)
        gtk_widget_set_margin_start(top, 12)
        gtk_widget_set_margin_end(top, 12)
        gtk_widget_set_margin_top(top, 12)
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

        let commands: [(UnsafeMutablePointer<GtkWidget>, ViewerCommand)] = [
            (closeButton, .close), (previousButton, .step(-1)), (nextButton, .step(1)),
            (fullscreenButton, .fullscreen), (copyButton, .copy), (saveButton, .saveAs),
            (zoomIn, .zoomIn), (zoomOut, .zoomOut), (zoomFit, .toggleFit), (retry, .retry),
        ]
        for (button, command) in commands {
            connections.append(SignalConnection.connect(UnsafeMutableRawPointer(button), "clicked") { [unowned self] in
                onCommand?(command)
            })
        }
        connections.append(SignalConnection.connect(UnsafeMutableRawPointer(sepiaButton), "toggled") { [unowned self] in
            onCommand?(.sepia(gtk_toggle_button_get_active(gtkCast(sepiaButton)) != 0))
        })
    }

    // MARK: What is shown

    /// The photo's name, where it is in the list, and which way the list goes on.
    func showPlace(name: String, position: Int, count: Int) {
        gtk_label_set_text(gtkCast(titleLabel), name)
        gtk_label_set_text(gtkCast(counterLabel), "\(position + 1) of \(count)")
        gtk_widget_set_sensitive(previousButton, position > 0 ? 1 : 0)
        gtk_widget_set_sensitive(nextButton, position < count - 1 ? 1 : 0)
    }

    /// The spinner while loading, or the failed placeholder with `failure`'s reason.
    func showProgress(loading: Bool, failure: String?) {
        gtk_widget_set_visible(failedBox, failure != nil ? 1 : 0)
        if let failure { gtk_label_set_text(gtkCast(failedReason), failure) }
        gtk_widget_set_visible(spinner, loading ? 1 : 0)
        gtk_spinner_set_spinning(gtkCast(spinner), loading ? 1 : 0)
    }

    func showZoom(_ zoom: Double) {
        gtk_label_set_text(gtkCast(zoomLabel), "\(Int((zoom * 100).rounded())) %")
    }

    func showFullscreen(_ fullscreen: Bool) {
        gtk_button_set_icon_name(gtkCast(fullscreenButton), fullscreen ? "view-restore-symbolic" : "view-fullscreen-symbolic")
        gtk_widget_set_tooltip_text(fullscreenButton, fullscreen ? "Leave Fullscreen (F11)" : "Fullscreen (F11)")
    }

    /// Switches the sepia / original buttons (which then report `.sepia`).
    func selectSepia(_ sepia: Bool) {
        gtk_toggle_button_set_active(gtkCast(sepia ? sepiaButton : originalButton), 1)
    }

    func popUpProperties() { gtk_menu_button_popup(gtkCast(infoButton)) }
    func popDownProperties() { gtk_popover_popdown(gtkCast(info.popover)) }

    // MARK: Building

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
}
