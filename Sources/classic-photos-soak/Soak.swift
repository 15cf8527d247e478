import Foundation
import PhotoPipeline
import TestSupport

/// A step went wrong: what, where, and how to see it again.
struct SoakFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Drives the real app under Xvfb with a seeded sequence of what people do, checking after
/// every step that it is alive and said nothing critical, that its memory stays bounded, and
/// every few steps that each photo on screen reached its final state.
final class Soak {
    private let options: Options
    private let fixtures: Fixtures
    private let display: XvfbDisplay
    private let environment: [String: String]
    private var generator: SplitMix64
    private var scene = Scene(source: .folder)
    private var app: AppSession!
    private var watch: Watch!
    private var errorsSeen = 0
    /// Keys go to a dialog of the app's (Open Location's) rather than its window.
    private var typingInDialog = false
    private(set) var step = 0
    private var stallsBefore = 0
    private var ioBefore = 0
    /// Disk work on the main thread, each where it was seen (the app's function).
    private(set) var ioOnMain: [String] = []
    private(set) var stalls: [Double] = []
    private(set) var peakResidentMB = 0
    private(set) var settleChecks = 0
    private(set) var launches = 0

    /// Steps between two checks that the photos on screen reached their final state.
    private static let settleEvery = 12

    init(options: Options, fixtures: Fixtures) throws {
        self.options = options
        self.fixtures = fixtures
        generator = SplitMix64(state: options.seed)
        display = try XvfbDisplay(width: 1400, height: 1000)
        environment = try Self.settings(in: fixtures.home).merging([
            "XDG_RUNTIME_DIR": fixtures.runtime.path,
            "XDG_DATA_HOME": fixtures.home.appendingPathComponent("data").path,
            "XDG_CACHE_HOME": fixtures.home.appendingPathComponent("cache").path,
            "DBUS_SESSION_BUS_ADDRESS": fixtures.bus.address,
        ]) { $1 }
    }

    /// Settings of the run's own (a keyfile), the window 1200 × 850 to begin with.
    private static func settings(in home: URL) throws -> [String: String] {
        let schemas = home.appendingPathComponent("schemas")
        try FileManager.default.createDirectory(at: schemas, withIntermediateDirectories: true)
        let compiled = try TestSupport.run(
            URL(fileURLWithPath: "/usr/bin/glib-compile-schemas"),
            ["--strict", "--targetdir=\(schemas.path)", Products.packageRoot.appendingPathComponent("data").path])
        guard compiled.status == 0 else { throw SoakFailure("the settings schema: \(compiled.stderr)") }
        let environment = [
            "GSETTINGS_SCHEMA_DIR": schemas.path, "GSETTINGS_BACKEND": "keyfile",
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
        ]
        for (key, value) in [("window-width", "1200"), ("window-height", "850")] {
            _ = try TestSupport.run(
                URL(fileURLWithPath: "/usr/bin/gsettings"), ["set", AppInfo.applicationID, key, value],
                environment: environment, timeout: 30)
        }
        return environment
    }

    // MARK: The run

    /// Runs until the time is up (or the step asked for); throws the first failure.
    func run() throws {
        let start = Date()
        let pace = 1 / options.rate
        try launch(.folder)
        var paced = Date()
        // A replay runs to its step, however long that takes.
        while options.steps.map({ step < $0 }) ?? (Date().timeIntervalSince(start) < options.seconds) {
            step += 1
            let began = Date()
            let action = scene.nextAction(using: &generator)
            say(String(format: "step %4d  %6.1f s  ", step, began.timeIntervalSince(start)) + "\(action)")
            try perform(action)
            try check(action)
            if step % Self.settleEvery == 0 { try settle(action) }
            // The rate is kept on average: after a long step (60 photos trashed and put back)
            // the next ones come quicker, up to twice as fast, as a person catching up would.
            // No more than 30 s are made up (not a minute's wait for photos on screen).
            let now = Date()
            var behind = now.timeIntervalSince(paced) - Double(step) * pace
            if behind > 30 {
                paced += behind - 30
                behind = 30
            }
            let wait = max(-behind, pace / 2 - now.timeIntervalSince(began))
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
        }
        try settle(nil)
        try quit()
    }

    // MARK: Actions

    private func launch(_ source: Action.Source) throws {
        let arguments: [String] =
            switch source {
            case .folder: [fixtures.folder.path]
            case .tree: ["--recursive", fixtures.tree.path]
            case .list: [fixtures.listAddress(photos: options.photos)]
            case .share: [fixtures.shareAddress]
            }
        let executable = Products.packageRoot.appendingPathComponent(".build/\(options.configuration)/classic-photos")
        app = try AppSession(executable: executable, arguments: arguments, environment: environment, display: display)
        watch = Watch(path: app.tracePath)
        errorsSeen = 0
        stallsBefore = 0
        ioBefore = 0
        launches += 1
        scene = Scene(source: source, grid: scene.grid, recursive: scene.recursive)
        try waitFor("the window shown and its source read", seconds: 120) { !$0.loading && $0.sourcesStarted > 0 }
    }

    private func quit() throws {
        try key("ctrl+q")
        // Under Xvfb no window manager hands the keyboard back to the window once a dialog has
        // gone; a key pressed as one closes can be lost. Pressed again, as a person would.
        if app.waitForExit(timeout: 10) == nil {
            say("            Ctrl+Q went unanswered for 10 s: pressed again")
            try key("ctrl+q")
        }
        guard let status = app.waitForExit(timeout: 30) else {
            throw SoakFailure("the app did not quit within 30 s; its threads:\n\(threads())")
        }
        guard status == 0 else { throw SoakFailure("the app quit with status \(status)") }
        app = nil
    }

    private func perform(_ action: Action) throws {
        switch action {
        case .wheel(let notches):
            try pointAt(fraction: 0.5)
            try xdotool(["click", "--repeat", "\(abs(notches))", "--delay", "25", notches > 0 ? "5" : "4"])
        case .keys(let keys): try key(keys)
        case .scrollbar(let fraction):
            let window = try app.windowGeometry()
            let x = window.x + window.width - 5
            let top = window.y + AppSession.headerHeight + 8, bottom = window.y + window.height - 8
            let y = top + Int(Double(bottom - top) * fraction)
            try xdotool([
                "mousemove", "\(x)", "\(y)", "mousedown", "1", "mousemove", "\(x)", "\(y + 3)", "mouseup", "1",
            ])
        case .view(let grid):
            try key(grid ? "ctrl+2" : "ctrl+1")
            scene.grid = grid
        case .zoomCells(let keys): try key(keys)
        case .mark(let keys):
            try key(keys)
            try waitForBatch()
        case .resize(let width, let height):
            if let window = try mainWindow() { try xdotool(["windowsize", window, "\(width)", "\(height)"]) }
        case .sort(let keys):
            // A moment for each menu to open: a letter pressed before the submenu is open would
            // choose the main menu's item of that letter.
            try key(["F10"] + keys.split(separator: " ").map(String.init), delay: 400)
        case .selectAllOrNone(let all): try key(all ? "ctrl+a" : "ctrl+shift+a")
        case .filter(let item):
            // A moment for the menu to open before its item's letter.
            try key(item == "Escape" ? ["Escape"] : ["ctrl+shift+f", item], delay: 300)
        case .trashAndUndo(let rows, let all):
            try click(fraction: 0.5)
            // As fast as a held key repeats (30 a second).
            try key(all ? ["ctrl+a"] : Array(repeating: "shift+Down", count: rows), delay: 33)
            try key("Delete")
            try waitForBatch()
            try key("ctrl+z")
            try waitForBatch()
        case .rotate:
            if !scene.viewerOpen { try click(fraction: 0.6) }
            try key("ctrl+r")
            try waitForBatch()
            try key("ctrl+shift+r")
            try waitForBatch()
        case .edit(let keys, let save):
            let begun = watch.editsBegun, ended = watch.editsEnded
            try key("e")
            // A photo not loaded yet, or not a JPEG, opens no editor (a toast says why).
            try waitFor("the editor open", seconds: 2, failing: false) { $0.editsBegun > begun }
            guard watch.editsBegun > begun else { break }
            try key(keys)
            if save {
                try key("ctrl+s")
                // Nothing changed is nothing to save (a toast says so): the editor stays open.
                try waitFor("the edit saved", seconds: 10, failing: false) { $0.editsEnded > ended }
                if watch.editsEnded > ended {
                    try key("ctrl+z")
                    break
                }
            }
            try key("ctrl+r")
            try key("Escape")
        case .openViewer(let fraction):
            let started = watch.sourcesStarted
            try click(fraction: fraction, double: true)
            // A double click beside the last cells (a short folder) opens nothing.
            try waitFor("the viewer or a sub-folder opened", seconds: 2, failing: false) {
                $0.viewerOpen || $0.sourcesStarted > started
            }
            scene.viewerOpen = watch.viewerOpen
            if watch.sourcesStarted > started { scene.inSubfolder = true }
        case .page(let keys): try key(keys)
        case .hold(let key, let seconds):
            try xdotool(["keydown", key, "sleep", String(format: "%.2f", seconds), "keyup", key])
            scene.viewerOpen = watch.viewerOpen
        case .compare(let count, let keys):
            try click(fraction: 0.5)
            let next = scene.grid ? "shift+Right" : "shift+Down"
            try key(Array(repeating: next, count: count - 1) + ["c"], delay: 60)
            // Rows below the click may be sub-folders or missing (a short list): nothing opens.
            try waitFor("the compare view opened", seconds: 2, failing: false) { $0.compareOpen }
            guard watch.compareOpen else { break }
            try key(keys, delay: 120)
            try waitForBatch()
            try key("Escape")
            try waitFor("the compare view closed after Escape", seconds: 10) { !$0.compareOpen }
        case .slideshow:
            try key("F5")
            Thread.sleep(forTimeInterval: 1.5)
            try key("Escape")
        case .closeViewer:
            try key("Escape")
            try waitFor("the viewer closed after Escape", seconds: 10) { !$0.viewerOpen }
            scene.viewerOpen = watch.viewerOpen
        case .intoSubfolder:
            let started = watch.sourcesStarted
            try key("Home", "Return")
            // The first row may be a photo (no sub-folders, or all of them shown): it opens.
            try waitFor("the sub-folder or the viewer opened", seconds: 2, failing: false) {
                $0.sourcesStarted > started || $0.viewerOpen
            }
            scene.inSubfolder = watch.sourcesStarted > started
            scene.viewerOpen = watch.viewerOpen
        case .back:
            try key("alt+Left")
            scene.inSubfolder = false
        case .reload: try key("F5")
        case .includeSubfolders:
            try key(["F10", "f"], delay: 400)
            scene.recursive.toggle()
        case .open(let source):
            switch source {
            case .folder, .tree:
                try settle(action)
                try quit()
                try launch(source)
            case .list, .share:
                let address = source == .list ? fixtures.listAddress(photos: options.photos) : fixtures.shareAddress
                try key("ctrl+l")
                Thread.sleep(forTimeInterval: 0.4)
                typingInDialog = true
                defer { typingInDialog = false }
                try xdotool(["type", "--delay", "2", address])
                try key("Return")
                scene = Scene(source: source, grid: scene.grid, recursive: scene.recursive)
            }
        case .filesChange(let add, let remove):
            fixtures.addPhotos(add)
            fixtures.removeAdded(remove)
        }
    }

    // MARK: Checks

    /// After every step: the app is alive, printed no warning or critical, and its memory is
    /// within bounds; stalls are counted.
    private func check(_ action: Action) throws {
        guard app.waitForExit(timeout: 0) == nil else {
            throw SoakFailure("the app exited (status \(app.waitForExit(timeout: 1) ?? -1))")
        }
        let lines = app.errorOutput.split(separator: "\n")
        let new = lines.dropFirst(errorsSeen)
        errorsSeen = lines.count
        if let bad = new.first(where: Self.isWarning) { throw SoakFailure("the app printed: \(bad)") }
        if let resident = app.residentBytes {
            peakResidentMB = max(peakResidentMB, resident >> 20)
            if resident >> 20 > options.maxResidentMB {
                throw SoakFailure("resident memory \(resident >> 20) MB, over \(options.maxResidentMB) MB")
            }
        }
        watch.update()
        for stall in watch.stalls.dropFirst(stallsBefore) {
            stalls.append(stall.ms)
            say(String(format: "            stall of %.0f ms", stall.ms))
        }
        stallsBefore = watch.stalls.count
        for io in watch.ioOnMain.dropFirst(ioBefore) {
            ioOnMain.append(io)
            say("            disk work on the main thread: \(io)")
        }
        ioBefore = watch.ioOnMain.count
    }

    /// A GLib or GTK warning or critical, or a Swift runtime error.
    private static func isWarning(_ line: Substring) -> Bool {
        line.contains("-WARNING **") || line.contains("-CRITICAL **") || line.contains("-ERROR **")
            || line.contains(":ERROR:") || line.contains("Fatal error") || line.contains("Bail out!")
    }

    /// Waits until the app is at rest (no source loading, no batch running, no scroll) and
    /// every photo on screen reached its final state; over a minute is a failure.
    private func settle(_ action: Action?) throws {
        guard !scene.viewerOpen else { return }
        settleChecks += 1
        try waitFor("every photo on screen in its final state", seconds: 60) { watch in
            !watch.loading && watch.batchesRunning == 0 && !watch.scrolling && watch.unfinishedOnScreen?.isEmpty ?? true
        }
    }

    /// Waits for the work a key began on the photos selected to end (nothing, when nothing
    /// was selected, or nothing began within a few seconds: a folder was).
    private func waitForBatch() throws {
        let started = watch.batchesStarted
        let asked = Date()
        try waitFor("work on the photos selected began", seconds: 3, failing: false) { watch in
            // The selection's trace comes before the key's work; a moment for it to come.
            watch.batchesStarted > started
                || (!scene.viewerOpen && watch.selected == 0 && Date().timeIntervalSince(asked) > 0.3)
        }
        try waitFor("the work on many photos ended", seconds: 180) { $0.batchesRunning == 0 }
    }

    /// Polls the trace until `condition` holds; throws after `seconds` unless `failing` is false.
    private func waitFor(
        _ what: String, seconds: Double, failing: Bool = true, _ condition: (Watch) -> Bool
    ) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            watch.update()
            if condition(watch) { return }
            guard app.waitForExit(timeout: 0) == nil else {
                throw SoakFailure("the app exited while waiting for \(what)")
            }
            if Date() > deadline {
                guard failing else { return }
                let unfinished =
                    watch.unfinishedOnScreen.map { "\($0.count) unfinished on screen: \($0.prefix(8))" } ?? ""
                throw SoakFailure(
                    "\(what): not within \(Int(seconds)) s (loading \(watch.loading), batches \(watch.batchesRunning), scrolling \(watch.scrolling); \(unfinished))"
                )
            }
            usleep(50_000)
        }
    }

    /// Where each of the app's threads is (gdb), for a hang.
    private func threads() -> String {
        let gdb = URL(fileURLWithPath: "/usr/bin/gdb")
        guard FileManager.default.isExecutableFile(atPath: gdb.path),
            let result = try? TestSupport.run(
                gdb, ["-p", "\(app.processIdentifier)", "-batch", "-ex", "thread apply all bt 25"], timeout: 60)
        else { return "(gdb is not installed)" }
        return result.stdout.split(separator: "\n").filter { $0.hasPrefix("#") || $0.hasPrefix("Thread") }
            .joined(separator: "\n")
    }

    /// After a failure: a screenshot of the display, and the app's trace, kept in the run's folder.
    func keepEvidence() -> String {
        let shot = fixtures.top.appendingPathComponent("failure.png").path
        try? app?.screenshot(to: shot)
        if let trace = app?.tracePath {
            try? FileManager.default.copyItem(
                atPath: trace, toPath: fixtures.top.appendingPathComponent("trace.jsonl").path)
        }
        if let errors = app?.errorOutput {
            try? Data(errors.utf8).write(to: fixtures.top.appendingPathComponent("stderr.txt"))
            say("soak: what the app printed last:\n" + errors.split(separator: "\n").suffix(25).joined(separator: "\n"))
        }
        fixtures.keep = true
        return fixtures.top.path
    }

    // MARK: Input

    @discardableResult
    private func xdotool(_ arguments: [String]) throws -> String { try app.xdotool(arguments) }

    private func key(_ keys: String...) throws { try key(keys) }

    /// Presses `keys` in the app's window (or, while `typingInDialog`, the dialog it opened):
    /// with no window manager, as under Xvfb, nothing gives the keyboard back to the window
    /// when a menu or a dialog closes, so it is given to the window first, as a person's click
    /// on it would.
    private func key(_ keys: [String], delay: Int = 60) throws {
        if !typingInDialog, let main = try mainWindow() { try xdotool(["windowfocus", "--sync", main]) }
        try xdotool(["key", "--delay", "\(delay)"] + keys)
    }

    /// The app's main window (the one named as the app is).
    private func mainWindow() throws -> String? {
        try xdotool(["search", "--onlyvisible", "--pid", "\(app.processIdentifier)", "--name", "Classic Photos"])
            .split(separator: "\n").first.map(String.init)
    }

    /// Moves the pointer over the view, `fraction` of the way down it.
    private func pointAt(fraction: Double) throws {
        let window = try app.windowGeometry()
        let top = window.y + AppSession.headerHeight
        try xdotool([
            "mousemove", "\(window.x + window.width / 2)",
            "\(top + Int(Double(window.height - AppSession.headerHeight) * fraction))",
        ])
    }

    private func click(fraction: Double, double: Bool = false) throws {
        try pointAt(fraction: fraction)
        try xdotool(["click", "--repeat", double ? "2" : "1", "--delay", "80", "1"])
    }
}
