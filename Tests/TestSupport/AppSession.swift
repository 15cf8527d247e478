import Foundation
import GLibKit
import PhotoPipeline

/// A private Xvfb server; stopped on deinit.
public final class XvfbDisplay: @unchecked Sendable {
    public let name: String
    private let process: Process

    /// Display numbers handed out in this process; parallel tests must never share one.
    private static let allocated = Locked<Set<Int>>([])

    public init(width: Int = 1024, height: Int = 900) throws {
        var started: (Int, Process)?
        for candidate in (200 + Int(getpid() % 300))..<1000 where started == nil {
            let free = Self.allocated.withLock { used -> Bool in
                guard !used.contains(candidate), !Self.isTaken(candidate) else { return false }
                used.insert(candidate)
                return true
            }
            guard free else { continue }
            let xvfb = Process()
            xvfb.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
            xvfb.arguments = [":\(candidate)", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-noreset"]
            xvfb.standardOutput = FileHandle.nullDevice
            xvfb.standardError = FileHandle.nullDevice
            try xvfb.run()
            // Ours only if our server is the one that came up (another process may race us).
            let deadline = Date().addingTimeInterval(10)
            while xvfb.isRunning, !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(candidate)"),
                Date() < deadline
            {
                usleep(20_000)
            }
            usleep(100_000)
            if xvfb.isRunning, FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(candidate)") {
                started = (candidate, xvfb)
            } else {
                kill(xvfb.processIdentifier, SIGKILL)
            }
        }
        guard let (number, xvfb) = started else { throw AppSessionError.noDisplay }
        name = ":\(number)"
        process = xvfb
    }

    deinit {
        // SIGKILL: a child of a test process may inherit a mask that blocks SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        // Killed, the server leaves its lock and socket behind (unless another server already
        // took the number over).
        let number = Int(name.dropFirst()) ?? -1
        let lock = try? String(contentsOfFile: "/tmp/.X\(number)-lock", encoding: .utf8)
        if Int32(lock?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") == process.processIdentifier {
            Self.removeFiles(of: number)
        }
    }

    /// Whether display `number` is in use: its lock file names a live process, or its socket
    /// exists without a lock. A lock left by a server that died is cleared (Xvfb would do the
    /// same) so that killed servers do not use up the display numbers.
    private static func isTaken(_ number: Int) -> Bool {
        let lock = "/tmp/.X\(number)-lock"
        guard let text = try? String(contentsOfFile: lock, encoding: .utf8) else {
            return FileManager.default.fileExists(atPath: lock)
                || FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)")
        }
        guard let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0 else { return true }
        if kill(pid, 0) == 0 || errno != ESRCH { return true }
        removeFiles(of: number)
        return false
    }

    private static func removeFiles(of number: Int) {
        guard number >= 0 else { return }
        unlink("/tmp/.X\(number)-lock")
        unlink("/tmp/.X11-unix/X\(number)")
    }

    /// What a GTK program needs to run on this display as the tests run it.
    public var gtkEnvironment: [String: String] {
        [
            "DISPLAY": name,
            "GDK_BACKEND": "x11",
            "GTK_A11Y": "none",
            "NO_AT_BRIDGE": "1",
            // libadwaita asks the settings portal for the desktop's style as the app starts,
            // waiting up to 25 s for an answer: on a test's own bus the portal is started for
            // it, and now and then (next to a GVfs share) never answers. The style tests set it
            // with ADW_DEBUG_COLOR_SCHEME.
            "ADW_DISABLE_PORTAL": "1",
            // No GPU under Xvfb: GTK's GL renderer would run on Mesa's software rasteriser and
            // compete with the photo work for the two cores; cairo is GTK's own CPU renderer.
            "GSK_RENDERER": ProcessInfo.processInfo.environment["GSK_RENDERER"] ?? "cairo",
        ]
    }
}

public enum AppSessionError: Error {
    case noDisplay
    case timeout(String)
}

/// One run of the app with its trace.
///
/// Runs the real `classic-photos` binary on a private X display (Xvfb) with a trace, and drives
/// it as a person would: xdotool for the wheel, the scrollbar and the keyboard, `import` for
/// screenshots.
public final class AppSession: @unchecked Sendable {
    public let display: XvfbDisplay
    public let tracePath: String
    private let process: Process
    private let collector: OutputCollector
    /// The cache folder made for this session (removed with it), if the test named none.
    private let ownCache: String?

    /// Starts `classic-photos [source]` with a trace on its own display. The app needs no
    /// D-Bus session (GApplication runs alone without one), and none is started here: a bus
    /// daemon started by a test would inherit the test's blocked SIGTERM and outlive it.
    public convenience init(source: String? = nil, environment: [String: String] = [:]) throws {
        try self.init(arguments: source.map { [$0] } ?? [], environment: environment)
    }

    /// Starts `classic-photos ARGUMENTS…` with a trace on its own display (or `display`).
    /// With `separateInstance` (the default) it runs as a process of its own even where another
    /// instance already runs on the same D-Bus session.
    public convenience init(
        arguments: [String], environment: [String: String] = [:], separateInstance: Bool = true,
        display: XvfbDisplay? = nil
    ) throws {
        try self.init(
            executable: Products.executable("classic-photos"), arguments: arguments, environment: environment,
            separateInstance: separateInstance, display: display)
    }

    /// Starts a build of the app (this package's, or an installed copy) with a trace on its own
    /// display (or `display`). `unsetting` names variables of the test's own environment the app
    /// must not see. Settings are kept in memory only, so nothing a person's installed copy
    /// remembers changes what a test sees.
    public init(
        executable: URL, arguments: [String] = [], environment: [String: String] = [:],
        unsetting: Set<String> = [], separateInstance: Bool = true, display: XvfbDisplay? = nil
    ) throws {
        self.display = try display ?? XvfbDisplay()
        tracePath = NSTemporaryDirectory() + "classic-photos-trace-\(UUID().uuidString).jsonl"
        process = Process()
        process.executableURL = executable
        process.arguments = ["--trace", tracePath] + (separateInstance ? ["--new-instance"] : []) + arguments
        var env = ProcessInfo.processInfo.environment.merging(self.display.gtkEnvironment) { $1 }
        env["GSETTINGS_BACKEND"] = "memory"
        // A GLib or GTK CRITICAL is a bug, not noise: it aborts the app, and the test fails.
        env["G_DEBUG"] = "fatal-criticals"
        // A cache of its own (the shared thumbnail cache is written to), unless a test names one.
        let cache = NSTemporaryDirectory() + "classic-photos-cache-\(UUID().uuidString)"
        env["XDG_CACHE_HOME"] = cache
        env.removeValue(forKey: "WAYLAND_DISPLAY")
        env = env.merging(environment) { $1 }
        for name in unsetting { env.removeValue(forKey: name) }
        ownCache = env["XDG_CACHE_HOME"] == cache ? cache : nil
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        collector = OutputCollector(out: out, err: err)
    }

    /// What the app has written to its standard error so far.
    public var errorOutput: String { collector.errorSoFar }

    /// The app's process id (for reading its memory from /proc).
    public var processIdentifier: Int32 { process.processIdentifier }

    /// The app's resident memory now, in bytes (VmRSS), or nil once it has exited.
    public var residentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kB = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kB * 1024
    }

    /// The most resident memory the app has had (VmHWM), in bytes, or nil once it has exited.
    public var peakResidentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kB = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kB * 1024
    }

    deinit {
        if process.isRunning {
            killWithChildren()
            process.waitUntilExit()
        }
        if ProcessInfo.processInfo.environment["CLASSIC_PHOTOS_KEEP_TRACE"] == nil {
            try? FileManager.default.removeItem(atPath: tracePath)
        }
        if let ownCache { try? FileManager.default.removeItem(atPath: ownCache) }
    }

    // MARK: Trace

    /// Every event written so far (lines that do not decode, such as one still being
    /// written, are left out).
    public func events() -> [TraceRecord] {
        TraceRecord.records(atPath: tracePath)
    }

    /// Waits until `condition` holds on the events so far (polling the trace file).
    @discardableResult
    public func waitFor(
        _ what: String, timeout: Double = 30, _ condition: ([TraceRecord]) -> Bool
    ) throws -> [TraceRecord] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let all = events()
            if condition(all) { return all }
            if Date() > deadline || !process.isRunning {
                let running = process.isRunning
                // Where a hung app's main thread is, before it is killed.
                let stack = running ? mainThreadStack() : ""
                if running { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
                let err = collector.finish(waitingAtMost: 5).1.suffix(2000)
                let status = running ? "killed" : "exited with \(process.terminationStatus)"
                throw AppSessionError.timeout(
                    "\(what) (app \(status)); \(Self.summary(of: events())); stderr: \(err)\(stack)")
            }
            usleep(50_000)
        }
    }

    /// The app's main thread's stack as gdb reads it (attached for a moment), for a test that
    /// timed out; empty where gdb is missing or cannot attach.
    private func mainThreadStack() -> String {
        let gdb = URL(fileURLWithPath: "/usr/bin/gdb")
        guard FileManager.default.isExecutableFile(atPath: gdb.path),
            let result = try? run(
                gdb, ["-p", "\(process.processIdentifier)", "-batch", "-ex", "thread 1", "-ex", "bt 30"], timeout: 60)
        else { return "" }
        let frames = result.stdout.split(separator: "\n").filter { $0.hasPrefix("#") }
        return frames.isEmpty ? "" : "; main thread:\n" + frames.joined(separator: "\n")
    }

    /// Waits for the first event named `name`.
    @discardableResult
    public func waitFor(event name: TraceEvent.Name, timeout: Double = 30) throws -> TraceRecord {
        let all = try waitFor("event \(name)", timeout: timeout) { $0.contains { $0.event.name == name } }
        return all.first { $0.event.name == name }!
    }

    /// What a test that timed out needs to know of the trace: how many events, each row's
    /// latest state, every failure and the last few events' names.
    public static func summary(of events: [TraceRecord]) -> String {
        let states = rowStates(events).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.rawValue)" }
        let failures = events.compactMap { record -> String? in
            guard case .opFail(let kind, let row, _, let error, _) = record.event else { return nil }
            return "\(kind.rawValue) row \(row) at \(record.t): \(error)"
        }
        let last = events.suffix(12).map { "\($0.event.name?.rawValue ?? "?")@\($0.t)" }
        return "trace: \(events.count) events; rows {\(states.joined(separator: ", "))}; "
            + "failures [\(failures.joined(separator: "; "))]; last [\(last.joined(separator: " "))]"
    }

    /// The visible row ranges traced so far (`view.visible` and `scroll.end`), oldest first.
    public static func visibleRanges(_ events: [TraceRecord]) -> [ClosedRange<Int>] {
        events.compactMap(\.event.visibleRows)
    }

    /// The latest state traced for each row.
    public static func rowStates(_ events: [TraceRecord]) -> [Int: PhotoState] {
        var states: [Int: PhotoState] = [:]
        for case .rowState(let row, _, let state) in events.map(\.event) { states[row] = state }
        return states
    }

    // MARK: Input and output

    /// Runs xdotool on this display.
    @discardableResult
    public func xdotool(_ arguments: [String]) throws -> String {
        try run(
            URL(fileURLWithPath: "/usr/bin/xdotool"), arguments, environment: ["DISPLAY": display.name], timeout: 60
        ).stdout
    }

    /// The app window's geometry on screen (x, y, width, height).
    /// The list's header bar height, in pixels: rows start below it.
    public static let headerHeight = 47

    /// Where row `row` of the list is on screen (rows are 80 pixels high under the header bar).
    public func rowPoint(_ row: Int) throws -> (x: Int, y: Int) {
        let window = try windowGeometry()
        return (window.x + window.width / 2, window.y + Self.headerHeight + 80 * row + 40)
    }

    /// Double-clicks row `row` of the list, which opens its photo in the viewer (a single click
    /// selects it).
    public func clickRow(_ row: Int) throws {
        let point = try rowPoint(row)
        _ = try xdotool(["mousemove", "\(point.x)", "\(point.y)", "click", "--repeat", "2", "--delay", "80", "1"])
    }

    /// Writes the picture another program would paste from the clipboard (as PNG) to `path`,
    /// once the clipboard offers one (within 5 s); what the clipboard offered, and how xclip did.
    public func pastePicture(to path: String) throws -> (targets: String, pasted: ProcessResult) {
        let environment = ["DISPLAY": display.name]
        var targets = ""
        for _ in 0..<50 where !targets.contains("image/png") {
            usleep(100_000)
            targets =
                (try? run(
                    URL(fileURLWithPath: "/usr/bin/xclip"), ["-selection", "clipboard", "-t", "TARGETS", "-o"],
                    environment: environment, timeout: 10
                ).stdout) ?? ""
        }
        let pasted = try run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "xclip -selection clipboard -t image/png -o > '\(path)'"],
            environment: environment, timeout: 20)
        return (targets, pasted)
    }

    public func windowGeometry() throws -> (x: Int, y: Int, width: Int, height: Int) {
        let ids = try xdotool(["search", "--sync", "--onlyvisible", "--name", "Classic Photos"]).split(separator: "\n")
        guard let id = ids.first.map(String.init) else { throw AppSessionError.timeout("no window") }
        let info = try xdotool(["getwindowgeometry", "--shell", id])
        var values: [String: Int] = [:]
        for line in info.split(separator: "\n") {
            let parts = line.split(separator: "=")
            if parts.count == 2 { values[String(parts[0])] = Int(parts[1]) }
        }
        return (values["X"] ?? 0, values["Y"] ?? 0, values["WIDTH"] ?? 0, values["HEIGHT"] ?? 0)
    }

    /// A PNG of the whole screen.
    public func screenshot(to path: String) throws {
        let result = try run(
            URL(fileURLWithPath: "/usr/bin/import"), ["-display", display.name, "-window", "root", path],
            environment: ["DISPLAY": display.name], timeout: 30)
        if result.status != 0 { throw AppSessionError.timeout("screenshot failed: \(result.stderr)") }
    }

    // MARK: Ending

    /// Waits up to `timeout` seconds for the app to exit by itself; its exit status, or nil if it
    /// is still running.
    public func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        guard !process.isRunning else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Sends SIGTERM and waits for the app to exit; returns its exit status.
    public func terminate(timeout: Double = 10) -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            // It did not quit: kill it so the test ends (and fails on the status).
            killWithChildren()
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    private func killWithChildren() {
        Self.children(of: process.processIdentifier).forEach { kill($0, SIGKILL) }
        kill(process.processIdentifier, SIGKILL)
    }

    /// Process ids whose parent is `parent`, read from /proc.
    public static func children(of parent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == parent
        }
    }
}
