import CGLib
import Foundation

/// The app's message catalogue: every word a person sees is looked up here, through glibc's
/// gettext, in the `classic-photos` text domain.
enum Localization {
    static let domain = "classic-photos"
}

/// The translation of `message` in the user's language (the message itself where there is none).
func tr(_ message: String) -> String {
    // Without a translation gettext hands back the pointer it was given: read it while the
    // C string made from `message` still lives.
    message.withCString { String(cString: g_dgettext(Localization.domain, $0)) }
}

/// The translation of a message that depends on a count, with the language's plural rule
/// ("1 photo", "2 photos"). The result is a format; fill in the count with `String(format:)`.
func ntr(_ singular: String, _ plural: String, _ count: Int) -> String {
    singular.withCString { one in
        plural.withCString { many in
            String(cString: g_dngettext(Localization.domain, one, many, UInt(max(0, count))))
        }
    }
}
