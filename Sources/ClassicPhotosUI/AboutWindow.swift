import CGtk
import GtkKit
import PhotoPipeline

/// The About window (libadwaita's): name, version, what the app is, credits and licence.
@MainActor
enum AboutWindow {
    static func present(over parent: Widget<ApplicationWindow>?) {
        let about = Widget<About>.make()
        about.setApplicationName(AppInfo.displayName)
        about.setApplicationIcon(AppInfo.applicationID)
        about.setVersion(AppInfo.version)
        about.setDeveloperName(tr("The Classic Photos authors"))
        about.setComments(
            tr(
                "A photo list that loads and turns sepia only the photos you look at, in background operation queues, and stays smooth however slow the network is. The ClassicPhotos app of the NSOperation tutorials, rebuilt for the GNOME desktop."
            ))
        about.setWebsite("https://github.com/classicphotos/ClassicPhotos")
        about.setIssueURL("https://github.com/classicphotos/ClassicPhotos/issues")
        about.setLicenseType(GTK_LICENSE_MIT_X11)
        about.setCopyright(tr("© 2026 The Classic Photos authors"))
        let text = troubleshooting
        about.setDebugInfo(text, filename: "classic-photos-troubleshooting.txt")
        if let parent { about.setTransientFor(parent) }
        about.setModal(true)
        about.present()
        Trace.shared.emit(.aboutShown(text: text))
    }

    /// The Troubleshooting page: versions, and how pictures are decoded (confined or not).
    static var troubleshooting: String {
        let pool = DecoderPool.shared
        let counts = pool.counts
        return """
            \(AppInfo.displayName) \(AppInfo.version)
            \(Toolkit.versions)

            Decoding
            \(pool.confinementDescription)
            Helpers: at most \(pool.maxHelpers) at once, each decode within \(Int(pool.deadlineSeconds)) s; \
            \(counts.started) started, \(counts.crashed) crashed or killed since launch.

            Colours
            Pictures are turned into sRGB from their own colour profiles as they are decoded.
            \(DisplayColours.shared.troubleshooting)
            """
    }
}
