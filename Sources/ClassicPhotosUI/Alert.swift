import CGtk
import GLibKit

/// The error alert ("Oops!", as in the tutorial when its list fails to load): a modal
/// libadwaita message dialog with the reason, Close and, when it can help, Retry.
@MainActor
final class Alert {
    private var response: SignalConnection?

    init(
        parent: UnsafeMutablePointer<GtkWindow>, title: String, message: String, retryable: Bool,
        completion: @escaping (_ retried: Bool) -> Void
    ) {
        let dialog = adw_message_dialog_new(parent, title, message)!
        let messageDialog: UnsafeMutablePointer<AdwMessageDialog> = gtkCast(dialog)
        adw_message_dialog_add_response(messageDialog, "close", "_Close")
        if retryable {
            adw_message_dialog_add_response(messageDialog, "retry", "_Retry")
            adw_message_dialog_set_response_appearance(messageDialog, "retry", ADW_RESPONSE_SUGGESTED)
            adw_message_dialog_set_default_response(messageDialog, "retry")
        }
        adw_message_dialog_set_close_response(messageDialog, "close")
        response = SignalConnection.connect(
            UnsafeMutableRawPointer(dialog), "response",
            pointer: { [unowned self] id in
                response = nil
                completion(id.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } == "retry")
            })
        gtk_window_present(gtkCast(dialog))
    }
}
