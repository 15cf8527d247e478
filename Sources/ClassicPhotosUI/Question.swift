import CGtk
import GLibKit
import GtkKit

/// A question with a way back and one action (libadwaita's message dialog), the way back what
/// Escape chooses, and the default unless the action loses nothing.
@MainActor
enum Question {
    /// Presents the question over `parent`; `answered` is told whether the action was chosen.
    /// What it returns keeps the dialog and its handler: hold it until the answer comes.
    /// An action that loses nothing may be the default (`actionIsDefault`), chosen by Enter.
    static func ask(
        parent: Widget<ApplicationWindow>, heading: String, body: String, back: String, action: String,
        destructive: Bool, actionIsDefault: Bool = false, answered: @escaping (Bool) -> Void
    ) -> (owner: AnyObject, connections: [SignalConnection]) {
        let dialog = Widget<MessageDialog>.make(parent: parent, heading: heading, body: body)
        dialog.addResponse("back", label: back)
        dialog.addResponse(
            "go", label: action, appearance: destructive ? ADW_RESPONSE_DESTRUCTIVE : ADW_RESPONSE_SUGGESTED)
        dialog.setDefaultResponse(actionIsDefault && !destructive ? "go" : "back")
        dialog.setCloseResponse("back")
        dialog.setModal(true)
        let holder = dialog.retained()
        let response = dialog.onResponse { chosen in answered(chosen == "go") }
        dialog.present()
        return (holder, [response])
    }
}
