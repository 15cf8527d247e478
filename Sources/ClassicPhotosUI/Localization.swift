import CGLib
import Foundation
import PhotoPipeline

/// The app's message catalogue: every word a person sees is looked up here, through glibc's
/// gettext, in the `classic-photos` text domain.
enum Localization {
    static let domain = MessageCatalogue.domain

    /// Takes the user's language and formats from the environment (`LANGUAGE`, `LC_ALL`,
    /// `LC_MESSAGES`, `LANG`, …) and binds the text domain to the app's compiled catalogues.
    /// Runs first thing in `main`, before any text is made.
    static func setUp(_ configuration: AppConfiguration) {
        setlocale(LC_ALL, "")
        if let directory = localeDirectory(configuration.localeDirectory) {
            bindtextdomain(domain, directory.path)
        }
        bind_textdomain_codeset(domain, "UTF-8")
        // GtkBuilder files without a domain of their own (and GtkApplication's help overlay)
        // translate in the default one.
        textdomain(domain)
    }

    /// Where the compiled catalogues (`<language>/LC_MESSAGES/classic-photos.mo`) are:
    /// `given` (the configuration's, `$CLASSIC_PHOTOS_LOCALEDIR`); the installed `../share/locale`
    /// beside the binary (as the data folder is found); or, run from a SwiftPM build, the
    /// catalogues the build compiled from `po/` (the `CompileCatalogues` plugin). Nil: gettext's
    /// own default folder.
    private static func localeDirectory(_ given: String?) -> URL? {
        if let given { return URL(fileURLWithPath: given) }
        let installed = AppResources.executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/locale")
        if holdsCatalogues(installed) { return installed }
        let built = URL(fileURLWithPath: BuiltCatalogues.directory)
        if holdsCatalogues(built) { return built }
        return nil
    }

    /// Whether `folder` holds a catalogue of the app's in any language.
    private static func holdsCatalogues(_ folder: URL) -> Bool {
        let languages = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return languages.contains { language in
            FileManager.default.fileExists(
                atPath: folder.appendingPathComponent("\(language)/LC_MESSAGES/\(domain).mo").path)
        }
    }

    /// `count` with the locale's digit grouping ("10,000"; "10.000" in German).
    static func number(_ count: Int) -> String {
        MessageCatalogue.number(count)
    }

    /// `value` with `places` decimals (one unless told), in the locale's way ("12.2"; "12,2"
    /// in German).
    static func decimal(_ value: Double, places: Int = 1) -> String {
        var buffer = [CChar](repeating: 0, count: 48)
        _ = withVaList([Int32(places), value]) { vsnprintf(&buffer, buffer.count, "%.*f", $0) }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// A size in bytes the way the desktop says it ("3.2 MB"; "3,2 MB" in German): GLib's.
    static func size(_ bytes: Int) -> String {
        let text = g_format_size(guint64(max(0, bytes)))!
        defer { g_free(text) }
        return String(cString: text)
    }
}

/// The translation of `message` in the user's language (the message itself where there is none).
func tr(_ message: String) -> String {
    MessageCatalogue.translate(message)
}

/// The translation of a message that depends on a count, with the language's plural rule
/// ("1 photo", "2 photos"). The result is a format; fill in the count with `String(format:)`.
func ntr(_ singular: String, _ plural: String, _ count: Int) -> String {
    MessageCatalogue.translate(singular, plural, count: count)
}
