import CGtk
import GLibKit
import GtkKit

/// The error alert ("Oops!", as in the tutorial when its list fails to load): a modal
/// libadwaita message dialog with the reason, Close and, when it can help, Retry
/// (`ui/alert.ui`).
@MainActor
final class Alert {
    private var response: SignalConnection?

    init(
        parent: Widget<ApplicationWindow>, title: String, message: String, retryable: Bool,
        completion: @escaping (_ retried: Bool) -> Void
    ) {
        let id = retryable ? "retry-alert" : "alert"
        let dialog = UIFile("alert", only: [id]).widget(id, as: MessageDialog.self)
        dialog.setTransientFor(parent)
        dialog.setHeading(title)
        dialog.setBody(message)
        response = dialog.onResponse { [unowned self] id in
            response = nil
            completion(id == "retry")
        }
        dialog.present()
    }
}
