import Foundation

/// One object of an app's accessibility tree as a screen reader sees it over AT-SPI.
public struct AccessibleNode: Decodable, Sendable {
    public let role: String
    public let name: String
    public let description: String
    public let states: [String]
    public let children: [AccessibleNode]

    /// GTK 4.8 says "showing" of its windows only: "visible" is set on a widget shown (as
    /// `gtk_widget_set_visible` has it), whether or not its parent is.
    public var isVisible: Bool { states.contains("visible") || states.contains("showing") }
    public var isFocusable: Bool { states.contains("focusable") }
    public var isFocused: Bool { states.contains("focused") }

    /// This node and every node beneath it, depth first.
    public var all: [AccessibleNode] { [self] + children.flatMap(\.all) }

    /// This node and every node beneath it that a person can see: visible, in a visible parent
    /// (a window's own node counts as visible).
    public var shown: [AccessibleNode] {
        guard isVisible || role == "application" else { return [] }
        return [self] + children.flatMap(\.shown)
    }

    /// Whether the name is one a person can understand: not empty, not a widget class's
    /// ("GtkImage", "AdwGizmo", which GTK 4.8 falls back to).
    public var hasOwnName: Bool {
        !name.isEmpty
            && !(name.count > 3 && ["Gtk", "Adw"].contains(String(name.prefix(3)))
                && name.dropFirst(3).first?.isUppercase == true && !name.contains(" "))
    }
}

/// Reads the accessibility tree of a running app through the accessibility bus (at-spi2-core,
/// started by the session bus the app runs on) with pyatspi, as Orca does. Needs the app
/// started with accessibility on (see `AccessibilityBus`).
public enum AccessibilityTree {
    /// The tree of the app whose process is `pid`, read over the session bus at `busAddress`.
    public static func read(pid: Int32, busAddress: String) throws -> AccessibleNode {
        let output = try python(dump, arguments: [String(pid)], busAddress: busAddress)
        return try JSONDecoder().decode(AccessibleNode.self, from: Data(output.utf8))
    }

    /// Presses Tab (xdotool on `display`) `presses` times, and returns the name, role and
    /// description of what has the focus after each press, as the screen reader is told by the
    /// focus events (nil where no focus event came within two seconds).
    public static func tabThrough(
        pid: Int32, busAddress: String, display: String, presses: Int, key: String = "Tab"
    ) throws -> [(role: String, name: String, description: String)?] {
        let output = try python(
            tabbing, arguments: [String(pid), display, String(presses), key], busAddress: busAddress, timeout: 120)
        return output.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return fields.count == 3 ? (fields[0], fields[1], fields[2]) : nil
        }
    }

    private static func python(
        _ script: String, arguments: [String], busAddress: String, timeout: TimeInterval = 60
    ) throws -> String {
        let file = NSTemporaryDirectory() + "classic-photos-atspi-\(UUID().uuidString).py"
        try script.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try run(
            URL(fileURLWithPath: "/usr/bin/python3"), [file] + arguments,
            environment: ["DBUS_SESSION_BUS_ADDRESS": busAddress, "NO_AT_BRIDGE": "1"], timeout: timeout)
        guard result.status == 0, !result.timedOut else {
            throw AccessibilityTreeError("pyatspi failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }

    /// Finds the app by its process id and prints its tree as JSON.
    private static let dump = """
        import json, sys
        import pyatspi

        def node(accessible, depth):
            states = [pyatspi.stateToString(s) for s in accessible.getState().getStates()]
            children = []
            if depth < 80:
                for i in range(accessible.childCount):
                    child = accessible.getChildAtIndex(i)
                    if child is not None:
                        children.append(node(child, depth + 1))
            return {"role": accessible.getRoleName(), "name": accessible.name or "",
                    "description": accessible.description or "", "states": states, "children": children}

        pid = int(sys.argv[1])
        for app in pyatspi.Registry.getDesktop(0):
            if app is not None and app.get_process_id() == pid:
                print(json.dumps(node(app, 0)))
                sys.exit(0)
        sys.exit("no application with process " + str(pid) + " on the accessibility bus")
        """

    /// Listens for focus events and presses the key again as each comes.
    private static let tabbing = """
        import subprocess, sys
        import pyatspi
        from gi.repository import GLib

        pid, display, presses, key = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
        seen = []
        state = {"pressed": 0, "timer": None}

        def press():
            if state["pressed"] >= presses:
                pyatspi.Registry.stop()
                return False
            state["pressed"] += 1
            subprocess.run(["xdotool", "key", key], env={"DISPLAY": display}, check=True)
            state["timer"] = GLib.timeout_add(2000, missed)
            return False

        def missed():
            seen.append(None)
            state["timer"] = None
            press()
            return False

        def focused(event):
            if not event.detail1 or event.source is None or state["timer"] is None:
                return
            try:
                if event.source.getApplication().get_process_id() != pid:
                    return
            except Exception:
                return
            GLib.source_remove(state["timer"])
            state["timer"] = None
            source = event.source
            seen.append((source.getRoleName(), source.name or "", source.description or ""))
            GLib.timeout_add(150, press)

        pyatspi.Registry.registerEventListener(focused, "object:state-changed:focused")
        GLib.timeout_add(300, press)
        pyatspi.Registry.start()
        for item in seen:
            print("-" if item is None else "\\t".join(part.replace("\\t", " ").replace("\\n", " ") for part in item))
        """
}

public struct AccessibilityTreeError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// What an app needs to be seen by screen readers in a test: a session bus of the test's own
/// (which starts the accessibility bus as the app asks for it), and GTK's accessibility left on.
public final class AccessibilityBus: Sendable {
    public let bus: PrivateBus

    public init() throws { bus = try PrivateBus() }

    /// Starts the app on `source` with accessibility on.
    public func app(source: String, environment: [String: String] = [:]) throws -> AppSession {
        try AppSession(
            executable: Products.executable("classic-photos"), arguments: [source],
            environment: environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 },
            unsetting: ["GTK_A11Y", "NO_AT_BRIDGE"])
    }

    public func tree(of app: AppSession) throws -> AccessibleNode {
        try AccessibilityTree.read(pid: app.processIdentifier, busAddress: bus.address)
    }
}
