import CGLib
import CGtk
import Foundation
import GLibKit

// The application: making and running it, its actions and shortcuts, the command lines and
// files it is handed, and the versions of the toolkit it runs on.

extension Handle where Kind == Application {
    /// A new libadwaita application (`AdwApplication`), as the reference that keeps it alive.
    public static func make(id: String, flags: GApplicationFlags) -> ObjectRef<GObject> {
        ObjectRef(takingOpaque: OpaquePointer(adw_application_new(id, flags)!))
    }

    /// Runs the application with the command line `arguments` until it quits; returns the
    /// process exit status.
    public func run(_ arguments: [String]) -> Int32 {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        return g_application_run(pointer(), Int32(arguments.count), &argv)
    }

    public func quit() { g_application_quit(pointer()) }

    /// Adds `action` to the application's actions (`app.` and its name).
    public func addAction(_ action: ObjectRef<GObject>) { g_action_map_add_action(opaque, action.opaque) }

    /// Sets the shortcuts of `action` (a detailed action name, such as `app.quit`).
    public func setAccelerators(_ accelerators: [String], for action: String) {
        let copies = accelerators.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var list: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
        gtk_application_set_accels_for_action(pointer(), action, &list)
    }

    /// Connects `body` to "command-line": a command line, this process's own or one a second
    /// launch handed over, with its arguments (the program's name first) and the directory it
    /// was given in; `body` returns the exit status for it.
    public func onCommandLine(_ body: @escaping ([String], String?) -> Int32) -> SignalConnection {
        SignalConnection.connect(
            raw, "command-line",
            pointerReturningInt: { line in
                let line = line!.assumingMemoryBound(to: GApplicationCommandLine.self)
                var count: Int32 = 0
                let argv = g_application_command_line_get_arguments(line, &count)
                defer { g_strfreev(argv) }
                let arguments = (0..<Int(count)).compactMap { argv?[$0].map { String(cString: $0) } }
                return body(arguments, g_application_command_line_get_cwd(line).map { String(cString: $0) })
            })
    }

    /// Connects `body` to "open", with the addresses of the files to open.
    public func onOpen(_ body: @escaping ([String]) -> Void) -> SignalConnection {
        SignalConnection.connect(
            raw, "open",
            pointerIntPointer: { files, count, _ in
                let files = files!.assumingMemoryBound(to: OpaquePointer?.self)
                body(
                    (0..<Int(count)).compactMap { index -> String? in
                        guard let file = files[index], let uri = g_file_get_uri(file) else { return nil }
                        defer { g_free(uri) }
                        return String(cString: uri)
                    })
            })
    }
}

/// The GTK and libadwaita the app runs on.
public enum Toolkit {
    /// Their versions, as "GTK 4.8.3, libadwaita 1.2.2".
    public static var versions: String {
        "GTK \(gtk_get_major_version()).\(gtk_get_minor_version()).\(gtk_get_micro_version()), "
            + "libadwaita \(adw_get_major_version()).\(adw_get_minor_version()).\(adw_get_micro_version())"
    }
}

/// An action with a true-or-false state, shown as a check item in a menu (`win.` or `app.`
/// and its name, once added to a window or the application).
public enum ToggleAction {
    /// The action, and its connection (kept for as long as the action acts): `body` gets each
    /// state asked for, which the action then takes.
    public static func make(
        _ name: String, _ initial: Bool, _ body: @escaping (Bool) -> Void
    ) -> (action: ObjectRef<GObject>, connection: SignalConnection) {
        let action = ObjectRef(
            takingOpaque: g_simple_action_new_stateful(name, nil, g_variant_new_boolean(initial ? 1 : 0))!)
        let connection = SignalConnection.connect(
            action.pointer, "change-state",
            pointer: { [action] value in
                guard let value else { return }
                body(g_variant_get_boolean(OpaquePointer(value)) != 0)
                g_simple_action_set_state(action.opaque, OpaquePointer(value))
            })
        return (action, connection)
    }
}

/// An action with a text state, shown as radio items in a menu (one item for each text it may
/// take, its target).
public enum ChoiceAction {
    /// The action, and its connection (kept for as long as the action acts): `body` applies
    /// each text asked for and says whether it was taken (the action then takes it as its state).
    public static func make(
        _ name: String, _ initial: String, _ body: @escaping (String) -> Bool
    ) -> (action: ObjectRef<GObject>, connection: SignalConnection) {
        // The type's text must live until the action has copied the type.
        let action = "s".withCString { type in
            ObjectRef(
                takingOpaque: g_simple_action_new_stateful(
                    name, g_variant_type_checked_(type), g_variant_new_string(initial))!)
        }
        let connection = SignalConnection.connect(
            action.pointer, "change-state",
            pointer: { [action] value in
                guard let value, let text = g_variant_get_string(OpaquePointer(value), nil) else { return }
                if body(String(cString: text)) { g_simple_action_set_state(action.opaque, OpaquePointer(value)) }
            })
        return (action, connection)
    }

    /// Sets the state of `action` (one `make` made) to `text` without applying it.
    public static func setState(_ action: ObjectRef<GObject>, _ text: String) {
        g_simple_action_set_state(action.opaque, g_variant_new_string(text))
    }
}

extension ToggleAction {
    /// Sets the state of `action` (one `make` made) without applying it.
    public static func setState(_ action: ObjectRef<GObject>, _ on: Bool) {
        g_simple_action_set_state(action.opaque, g_variant_new_boolean(on ? 1 : 0))
    }
}
