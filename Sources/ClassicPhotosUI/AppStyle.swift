import CGtk

/// The few styles the app adds to libadwaita's, loaded once for the display.
@MainActor
enum AppStyle {
    private static var installed = false

    static let css = """
        /* Something that can be dropped hovers over the window: an accent frame over its content
           (an outline is drawn above the children, so the list does not hide it). */
        .drop-target:drop(active) {
          outline: 3px solid alpha(@accent_bg_color, 0.8);
          outline-offset: -3px;
        }

        /* A row's thumbnail with no photo to show: a symbolic icon in the text colour, dimmed,
           drawn as the picture's background (see PhotoRowWidget). */
        .photo-thumbnail.placeholder, .photo-thumbnail.missing {
          background-size: 32px 32px;
          background-position: center;
          background-repeat: no-repeat;
          opacity: 0.55;
        }
        .photo-thumbnail.placeholder { background-image: -gtk-icontheme("image-x-generic-symbolic"); }
        .photo-thumbnail.missing { background-image: -gtk-icontheme("image-missing-symbolic"); }
        """

    static func install() {
        guard !installed, let display = gdk_display_get_default() else { return }
        installed = true
        let provider = gtk_css_provider_new()!
        gtk_css_provider_load_from_data(provider, css, -1)
        gtk_style_context_add_provider_for_display(display, OpaquePointer(provider), UInt32(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
        g_object_unref(UnsafeMutableRawPointer(provider))
    }
}
