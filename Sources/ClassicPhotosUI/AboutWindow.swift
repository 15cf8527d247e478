import CGtk
import PhotoPipeline

/// The About window (libadwaita's): name, version, what the app is, credits and licence.
@MainActor
enum AboutWindow {
    static func present(over parent: UnsafeMutablePointer<GtkWindow>?) {
        let about = adw_about_window_new()!
        let window = OpaquePointer(about)
        adw_about_window_set_application_name(window, AppInfo.displayName)
        adw_about_window_set_application_icon(window, AppInfo.applicationID)
        adw_about_window_set_version(window, AppInfo.version)
        adw_about_window_set_developer_name(window, "The Classic Photos authors")
        adw_about_window_set_comments(
            window,
            """
            A photo list that loads and turns sepia only the photos you look at, in background \
            operation queues, and stays smooth however slow the network is. The ClassicPhotos app \
            of the NSOperation tutorials, rebuilt for the GNOME desktop.
            """)
        adw_about_window_set_website(window, "https://github.com/classicphotos/ClassicPhotos")
        adw_about_window_set_issue_url(window, "https://github.com/classicphotos/ClassicPhotos/issues")
        adw_about_window_set_license_type(window, GTK_LICENSE_MIT_X11)
        adw_about_window_set_copyright(window, "© 2026 The Classic Photos authors")
        adw_about_window_set_debug_info(window, troubleshooting)
        adw_about_window_set_debug_info_filename(window, "classic-photos-troubleshooting.txt")
        if let parent { gtk_window_set_transient_for(gtkCast(about), parent) }
        gtk_window_set_modal(gtkCast(about), 1)
        gtk_window_present(gtkCast(about))
    }

    /// The Troubleshooting page: versions, and how pictures are decoded (confined or not).
    static var troubleshooting: String {
        let pool = DecoderPool.shared
        let counts = pool.counts
        return """
            \(AppInfo.displayName) \(AppInfo.version)
            GTK \(gtk_get_major_version()).\(gtk_get_minor_version()).\(gtk_get_micro_version()), \
            libadwaita \(adw_get_major_version()).\(adw_get_minor_version()).\(adw_get_micro_version())

            Decoding
            \(pool.confinementDescription)
            Helpers: at most \(pool.maxHelpers) at once, each decode within \(Int(pool.deadlineSeconds)) s; \
            \(counts.started) started, \(counts.crashed) crashed or killed since launch.
            """
    }
}
