import CGLib
import Foundation

/// The app's text domain, as the pipeline sees it: its values say what happened as typed data
/// (a failed photo's `PhotoFailure.Kind`, say), and their words are made where they are shown,
/// in the user's language, or in English for traces and tests. The app binds the domain at start.
public enum MessageCatalogue {
    public static let domain = "classic-photos"

    /// A language words are made in: the user's, from the catalogue, or English as the sources
    /// write it (the trace's).
    public struct Language: Sendable {
        /// The translation of a message into this language.
        public let translate: @Sendable (String) -> String

        /// A language translated by `translate` (a test's, from a `.po` file).
        public init(translate: @escaping @Sendable (String) -> String) {
            self.translate = translate
        }

        public static let user = Language { MessageCatalogue.translate($0) }
        public static let english = Language { $0 }
    }

    /// The translation of `message` in the user's language (the message itself where there is none).
    /// gettext hands back the very pointer it was given when it has no translation, which for
    /// a Swift string is valid only during the call: that case is told apart inside it.
    public static func translate(_ message: String) -> String {
        message.withCString { id in
            guard let translated = g_dgettext(domain, id), translated != id else { return message }
            return String(cString: translated)
        }
    }

    /// The translation of a message that depends on `count`, with the language's plural rule.
    public static func translate(_ singular: String, _ plural: String, count: Int) -> String {
        singular.withCString { one in
            plural.withCString { many in
                let translated = g_dngettext(domain, one, many, UInt(max(0, count)))
                if translated == nil || translated == one { return singular }
                if translated == many { return plural }
                return String(cString: translated!)
            }
        }
    }

    /// `count` with the locale's digit grouping ("10,000"; "10.000" in German), through the C
    /// library's `'` flag, which follows `LC_NUMERIC` once the app has called `setlocale`.
    public static func number(_ count: Int) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        _ = withVaList([count]) { vsnprintf(&buffer, buffer.count, "%'ld", $0) }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

/// Marks `message` for translation without translating it (gettext's `N_`): the text stays
/// English where it is made (it may be made in a decoder helper, which has no catalogue), and is
/// looked up in the catalogue where it is shown.
func translatable(_ message: String) -> String { message }
