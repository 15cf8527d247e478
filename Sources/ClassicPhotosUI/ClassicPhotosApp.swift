import CGLib
import CGtk
import Foundation
import GLibKit
import PhotoPipeline

/// The GtkApplication: command line, trace, signals, and the main window's life.
@MainActor
public final class ClassicPhotosApp {
    private let app: ObjectRef<GtkApplication>
    private var window: PhotoListWindow?
    private var connections: [SignalConnection] = []
    private let sources: [any PhotoSource]
    private let watchdog = StallWatchdog()
    private var quitSignals: [MainLoopSource] = []

    /// Runs the app; returns the process exit status.
    public static func main(arguments: [String]) -> Int32 {
        // A launcher may hand these down blocked (a libdispatch thread's mask, say); the app
        // quits cleanly on them, so make sure they arrive. Threads started later inherit this.
        var quitSignals = sigset_t()
        sigemptyset(&quitSignals)
        sigaddset(&quitSignals, SIGTERM)
        sigaddset(&quitSignals, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &quitSignals, nil)
        let options: CommandLineOptions
        switch CommandLineOptions.parse(Array(arguments.dropFirst())) {
        case .run(let parsed): options = parsed
        case .exit(let status, let message):
            FileHandle(fileDescriptor: status == 0 ? 1 : 2).write(Data((message + "\n").utf8))
            return status
        }
        if let path = options.tracePath ?? ProcessInfo.processInfo.environment["CLASSIC_PHOTOS_TRACE"], !path.isEmpty {
            if !Trace.shared.open(path: path) {
                FileHandle.standardError.write(Data("classic-photos: cannot write the trace to \(path)\n".utf8))
                return 1
            }
        }
        Trace.shared.emit(.appStart(version: AppInfo.version))
        MainLoop.claimCurrentThread()
        MainActorLoop.install()
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        var sources = options.sources.map { PhotoSources.source(for: $0, relativeTo: here) }
        if sources.isEmpty, let bundled = AppResources.bundledList {
            sources = [PhotoSources.source(for: bundled.path, relativeTo: here)]
        }
        let app = ClassicPhotosApp(sources: sources)
        let status = app.run(programName: arguments.first ?? "classic-photos")
        Trace.shared.emit(.appQuit)
        Trace.shared.flush()
        return status
    }

    init(sources: [any PhotoSource]) {
        self.sources = sources
        g_set_application_name(AppInfo.displayName)
        // Each process shows its own list; single-instance handling can come with the launcher.
        app = ObjectRef(taking: gtk_application_new(AppInfo.applicationID, G_APPLICATION_NON_UNIQUE)!)
        connections.append(SignalConnection.connect(app.pointer, "activate") { [unowned self] in activate() })
        installQuitSignals()
    }

    private func run(programName: String) -> Int32 {
        var argv: [UnsafeMutablePointer<CChar>?] = [strdup(programName), nil]
        defer { free(argv[0]) }
        let status = g_application_run(gtkCast(app.pointer), 1, &argv)
        watchdog.stop()
        // The window (and its operation queues) stays allocated until the process exits:
        // operations still running hold on to their queues.
        connections.removeAll()
        return status
    }

    private func activate() {
        if let window {
            gtk_window_present(window.window)
            return
        }
        let window = PhotoListWindow(application: app.pointer)
        self.window = window
        gtk_window_present(window.window)
        // Start-up (GTK init, first layout) happens before the loop turns; watch from here on.
        if Trace.shared.isEnabled { MainLoop.perform(priority: G_PRIORITY_LOW) { [watchdog] in watchdog.start() } }
        if !sources.isEmpty {
            window.open(sources)
        } else {
            window.showError(title: "Oops!", message: "The bundled photo list could not be found. Set CLASSIC_PHOTOS_DATADIR to the app's data folder, or pass a list to open.", retry: nil)
        }
        addShortcuts()
    }

    private func addShortcuts() {
        let quit = ObjectRef(takingOpaque: g_simple_action_new("quit", nil)!)
        connections.append(SignalConnection.connect(quit.pointer, "activate", pointer: { [unowned self] _ in
            self.quit()
        }))
        g_action_map_add_action(OpaquePointer(app.pointer), quit.opaque)
        "<Control>q".withCString { accel in
            let accels: [UnsafePointer<CChar>?] = [accel, nil]
            gtk_application_set_accels_for_action(app.pointer, "app.quit", accels)
        }
    }

    /// SIGTERM and SIGINT quit through the main loop, so the trace ends with `app.quit`.
    private func installQuitSignals() {
        quitSignals = [SIGTERM, SIGINT].map { signal in
            MainLoopSource(.unixSignal(signal)) { [weak self] in
                // Unix signal sources are attached to the default context: the main thread.
                MainActor.assumeIsolated { self?.quit() }
                return .continue // a second signal while quitting does the same
            }
        }
    }

    /// Closes the window (cancelling its work) and ends the main loop.
    func quit() {
        window?.close()
        g_application_quit(gtkCast(app.pointer))
    }
}

/// What the command line asked for.
struct CommandLineOptions {
    var sources: [String] = []
    var tracePath: String?

    enum Outcome {
        case run(CommandLineOptions)
        case exit(Int32, String)
    }

    static let usage = """
        Usage: classic-photos [--trace PATH] [SOURCE…]

        Shows photos in a scrolling list, each downloaded and turned sepia as it scrolls into
        view. A SOURCE is any of:
          FOLDER         the pictures directly inside it, in file-manager order
          PICTURE        the pictures of its folder, with that one selected
          LIST           a property list of photo name → image address (a path or an
                         http(s):// address); relative addresses resolve against the list
        Several sources show as one list, in the order given. With none, the bundled
        sample photos open.

          --trace PATH   write a JSON Lines trace of what the app does to PATH
                         (also: CLASSIC_PHOTOS_TRACE=PATH)
          --version      print the version
          -h, --help     print this help
        """

    static func parse(_ arguments: [String]) -> Outcome {
        var options = CommandLineOptions()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help": return .exit(0, usage)
            case "--version": return .exit(0, "classic-photos \(AppInfo.version)")
            case "--trace":
                guard let path = rest.popFirst() else { return .exit(2, "classic-photos: --trace needs a file path\n\n\(usage)") }
                options.tracePath = path
            case _ where argument.hasPrefix("--trace="):
                options.tracePath = String(argument.dropFirst("--trace=".count))
            case _ where argument.hasPrefix("-") && argument != "-":
                return .exit(2, "classic-photos: unknown option \(argument)\n\n\(usage)")
            case "--":
                options.sources += rest
                rest = []
            default:
                options.sources.append(argument)
            }
        }
        return .run(options)
    }
}
