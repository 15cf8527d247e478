import CGtk
import GLibKit

/// A modal error alert with the reason, a Close button and, when it can help, Retry.
@MainActor
final class Alert {
    private var response: SignalConnection?

    static let retryResponse: Int32 = 1

    init(parent: UnsafeMutablePointer<GtkWindow>, title: String, message: String, retryable: Bool,
         completion: @escaping (_ retried: Bool) -> Void) {
        let dialog = cp_message_dialog_new(parent, GTK_MESSAGE_ERROR, GTK_BUTTONS_NONE, title, message)!
        let dialogPointer: UnsafeMutablePointer<GtkDialog> = gtkCast(dialog)
        gtk_dialog_add_button(dialogPointer, "_Close", GTK_RESPONSE_CLOSE.rawValue)
        if retryable {
            gtk_dialog_add_button(dialogPointer, "_Retry", Self.retryResponse)
            gtk_dialog_set_default_response(dialogPointer, Self.retryResponse)
        }
        response = SignalConnection.connect(dialog, "response", int: { [unowned self] id in
            response = nil
            gtk_window_destroy(gtkCast(dialog))
            completion(id == Self.retryResponse)
        })
        gtk_window_present(gtkCast(dialog))
    }
}
