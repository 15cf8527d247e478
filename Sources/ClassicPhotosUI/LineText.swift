import CGLib
import CLineText
import GLibKit
import GtkKit

/// One line of text for list rows and grid cells (`CpLineText`, the app's own widget in C):
/// as tall as its font's line, ellipsized at the end, its layout made only once it is drawn.
/// GTK makes and measures up to 200 rows at a time; a GtkInscription cost most of each.
enum LineText: WidgetKind { static var type: GType { cp_line_text_get_type() } }

extension Handle where Kind == LineText {
    /// A new line with no text.
    static func make() -> Self { Self(made: cp_line_text_new()) }

    /// Sets the text (the same text again changes nothing).
    func setText(_ text: String) { cp_line_text_set_text(widget, text) }

    var text: String { String(cString: cp_line_text_get_text(widget)) }
}

extension Handle where Kind == LineText {
    /// Centres the text and cuts it in the middle when it does not fit (a grid cell's name).
    func centre() { cp_line_text_set_layout(widget, 0.5, PANGO_ELLIPSIZE_MIDDLE) }
}
