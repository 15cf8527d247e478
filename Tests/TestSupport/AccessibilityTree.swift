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
    /// ("GtkImage", "AdwGizmo", which GTK 4.8 falls back to), without a mnemonic's underscore
    /// ("_Save Save", GTK 4.8's name for a button labelled "_Save").
    public var hasOwnName: Bool {
        !name.isEmpty && !name.hasPrefix("_") && !name.contains(" _")
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
        try press(Array(repeating: key, count: presses), pid: pid, busAddress: busAddress, display: display)
    }

    /// Presses `keys` one after the other, each once the focus event of the one before has
    /// come (or two seconds have passed), and returns what has the focus after each.
    public static func press(
        _ keys: [String], pid: Int32, busAddress: String, display: String
    ) throws -> [(role: String, name: String, description: String)?] {
        let output = try python(
            tabbing, arguments: [String(pid), display] + keys, busAddress: busAddress, timeout: 120)
        return output.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return fields.count == 3 ? (fields[0], fields[1], fields[2]) : nil
        }
    }

    /// Where the first object of the app's with `role` and `name` is, in its window (GTK 4.8
    /// gives no place on the screen): x, y, width and height; nil where there is none.
    public static func extents(
        pid: Int32, busAddress: String, role: String, name: String
    ) throws -> (x: Int, y: Int, width: Int, height: Int)? {
        let numbers = try python(locating, arguments: [String(pid), role, name], busAddress: busAddress)
            .split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return numbers.count == 4 ? (numbers[0], numbers[1], numbers[2], numbers[3]) : nil
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

    /// Finds an object by role and name and prints where it is in its window.
    private static let locating = """
        import sys
        import pyatspi

        pid, role, name = int(sys.argv[1]), sys.argv[2], sys.argv[3]

        def find(accessible):
            if accessible.getRoleName() == role and accessible.name == name:
                return accessible
            for i in range(accessible.childCount):
                child = accessible.getChildAtIndex(i)
                found = find(child) if child is not None else None
                if found is not None:
                    return found
            return None

        for app in pyatspi.Registry.getDesktop(0):
            if app is not None and app.get_process_id() == pid:
                found = find(app)
                if found is not None:
                    print(*found.queryComponent().getExtents(pyatspi.WINDOW_COORDS))
                sys.exit(0)
        sys.exit("no application with process " + str(pid))
        """

    /// Listens for focus events and presses the key again as each comes.
    private static let tabbing = """
        import subprocess, sys
        import pyatspi
        from gi.repository import GLib

        pid, display, keys = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
        seen = []
        state = {"pressed": 0, "timer": None}

        def press():
            if state["pressed"] >= len(keys):
                pyatspi.Registry.stop()
                return False
            key = keys[state["pressed"]]
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
    public func app(
        source: String, environment: [String: String] = [:], display: XvfbDisplay? = nil
    ) throws -> AppSession {
        try AppSession(
            executable: Products.executable("classic-photos"), arguments: [source],
            environment: environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 },
            unsetting: ["GTK_A11Y", "NO_AT_BRIDGE"], display: display)
    }

    public func tree(of app: AppSession) throws -> AccessibleNode {
        try AccessibilityTree.read(pid: app.processIdentifier, busAddress: bus.address)
    }

    /// Clicks the middle of `app`'s object with `role` and `name`, as a person pointing at it
    /// does; whether there was one to click.
    public func click(_ app: AppSession, role: String, name: String) throws -> Bool {
        guard
            let place = try AccessibilityTree.extents(
                pid: app.processIdentifier, busAddress: bus.address, role: role, name: name),
            place.width > 0, place.height > 0
        else { return false }
        let window = try app.windowGeometry()
        _ = try app.xdotool([
            "mousemove", "\(window.x + place.x + place.width / 2)", "\(window.y + place.y + place.height / 2)", "click",
            "1",
        ])
        return true
    }
}
