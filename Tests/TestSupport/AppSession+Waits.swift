import Foundation
import PhotoPipeline

/// Waits for what a test checks on screen, instead of sleeping for a while and hoping: a frame
/// painted, the keyboard focus on a window, the screen showing what is looked for.
extension AppSession {
    /// The environment for a session whose trace has every frame the main window paints
    /// (`frame.painted`), for `waitForFrame(after:)`.
    public static let tracingFrames = ["CLASSIC_PHOTOS_TRACE_FRAMES": "1"]

    /// The environment for a session with GTK's animations off (`gtk-enable-animations`, in a
    /// `settings.ini` of the tests' own, found through `XDG_CONFIG_DIRS`). A menu then slides to
    /// its submenu, and a dialog appears or goes, at once: keys sent one after another reach
    /// what the ones before them opened, in order, with no wait between them. (With animations,
    /// a mnemonic sent while the main menu slides to its submenu may reach the wrong page.)
    public static let withoutAnimations: [String: String] = {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "classic-photos-tests-gtk-settings")
        let settings = folder.appendingPathComponent("gtk-4.0/settings.ini")
        try? FileManager.default.createDirectory(
            at: settings.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? Data("[Settings]\ngtk-enable-animations=false\n".utf8).write(to: settings, options: .atomic)
        let system = ProcessInfo.processInfo.environment["XDG_CONFIG_DIRS"] ?? "/etc/xdg"
        return ["XDG_CONFIG_DIRS": folder.path + ":" + system]
    }()

    /// Waits for the main window to paint a frame after trace time `t` (the session must trace
    /// frames: `tracingFrames`). A frame painted after an event of the main loop shows what that
    /// event changed, and GTK has sent the X server all it asked for until then.
    @discardableResult
    public func waitForFrame(after t: Double, timeout: Double = 30) throws -> TraceRecord {
        let events = try waitFor("a frame painted after \(t) s", timeout: timeout) { events in
            events.contains { $0.event.name == .framePainted && $0.t > t }
        }
        return events.first { $0.event.name == .framePainted && $0.t > t }!
    }

    /// The X window with the keyboard focus now: its id and its name ("" for none).
    public func focusedWindow() -> (id: String, name: String) {
        let id = ((try? xdotool(["getwindowfocus"])) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !id.isEmpty else { return ("", "") }
        let name = ((try? xdotool(["getwindowname", id])) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return (id, name)
    }

    /// The id of the display's root window, as xdotool gives window ids (in decimal). With no
    /// window manager, the focus goes back to it when a focused window closes, and the keyboard
    /// then goes to the window under the pointer.
    public var rootWindow: String {
        let info =
            (try? run(URL(fileURLWithPath: "/usr/bin/xwininfo"), ["-root"], environment: ["DISPLAY": display.name])
                .stdout) ?? ""
        guard let range = info.range(of: #"0x[0-9a-f]+"#, options: .regularExpression),
            let id = UInt(info[range].dropFirst(2), radix: 16)
        else { return "" }
        return String(id)
    }

    /// Waits until the window with the keyboard focus is one `condition` accepts (without a
    /// window manager, a window the app presents takes the focus itself, a moment later).
    @discardableResult
    public func waitForFocus(
        _ what: String, timeout: Double = 20, _ condition: (_ id: String, _ name: String) -> Bool
    ) throws -> (id: String, name: String) {
        let deadline = Date().addingTimeInterval(timeout)
        var focused = focusedWindow()
        while !condition(focused.id, focused.name) {
            guard Date() < deadline else {
                throw AppSessionError.timeout("\(what): the focus is on “\(focused.name)” (\(focused.id))")
            }
            usleep(50_000)
            focused = focusedWindow()
        }
        return focused
    }

    /// GTK's double-click time (`gtk-double-click-time`: 400 ms where no settings daemon says
    /// otherwise, as on the tests' displays). GTK counts a press that comes within it of the one
    /// before (on the same widget) as the next of a series, two making a double-click; under
    /// Xvfb it does so wherever the pointer is (its distance rule is for mice, and xdotool's
    /// pointer is not one to GDK). A drag ends a series at once.
    public static let doubleClickSeconds = 0.4

    /// Waits until GTK's double-click time has passed since `last`, when the app was seen to
    /// have taken the last press, and a little more: the next press then begins a series of
    /// its own. GTK says nothing when a series ends, so this waits for the time itself.
    public static func pastDoubleClickTime(since last: Date) {
        let left = last.addingTimeInterval(doubleClickSeconds + 0.2).timeIntervalSinceNow
        if left > 0 { Thread.sleep(forTimeInterval: left) }
    }

    /// The ids of the app's windows on screen now whose name matches `name` (a regular
    /// expression, as xdotool takes it), its menus and popovers among them.
    public func visibleWindows(named name: String = "") -> [String] {
        let found = (try? xdotool(["search", "--onlyvisible", "--name", name])) ?? ""
        return found.split(separator: "\n").map(String.init)
    }

    /// Takes screenshots until `condition` holds on one (it gets the screenshot's path), or
    /// `timeout` seconds have passed. `path` keeps the last screenshot there.
    public func waitForScreenshot(
        timeout: Double = 15, keeping path: String? = nil, until condition: (_ path: String) throws -> Bool
    ) throws {
        let shot = path ?? NSTemporaryDirectory() + "classic-photos-screen-\(UUID().uuidString).png"
        defer { if path == nil { try? FileManager.default.removeItem(atPath: shot) } }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            try screenshot(to: shot)
            if try condition(shot) || Date() > deadline { return }
            usleep(100_000)
        }
    }

    /// Takes screenshots until what `region` of the screen shows satisfies `condition`, or
    /// `timeout` seconds have passed; what the last one showed. The test then checks it, with
    /// its message. `path` keeps the last screenshot there.
    public func waitForScreen(
        region: (x: Int, y: Int, width: Int, height: Int)? = nil, timeout: Double = 15, keeping path: String? = nil,
        until condition: (ScreenshotStats) -> Bool
    ) throws -> ScreenshotStats {
        var last: ScreenshotStats?
        try waitForScreenshot(timeout: timeout, keeping: path) { shot in
            let stats = try ScreenshotStats(path: shot, region: region)
            last = stats
            return condition(stats)
        }
        return last!
    }
}
