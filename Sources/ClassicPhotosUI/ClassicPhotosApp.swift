import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The application: one instance per desktop session (a second `classic-photos SOURCE` hands
/// its sources to the running one, which opens them in a new window), the command line, the
/// trace, quit signals, app-wide actions, and the windows' lives.
@MainActor
public final class ClassicPhotosApp {
    /// The AdwApplication: the reference that keeps it alive, and a handle on it.
    private let application: ObjectRef<GObject>
    private let app: Handle<Application>
    private var windows: [PhotoListWindow] = []
    private var connections: [SignalConnection] = []
    private let watchdog = StallWatchdog()
    private var quitSignals: [MainLoopSource] = []
    private let settings = AppSettings()
    /// All of the app's HTTP, with the disk cache of downloaded photos, shared by every window.
    private let http: HTTPClient
    /// What the environment asked for, read once as the process started.
    private let configuration: AppConfiguration

    /// Runs the app; returns the process exit status.
    public static func main(arguments: [String]) -> Int32 {
        LogFilter.install()
        let configuration = AppConfiguration.current
        Localization.setUp(configuration)
        leaveGLAloneUnderCairo()
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
        if let path = options.tracePath ?? configuration.tracePath, !path.isEmpty {
            if !Trace.shared.open(path: path) {
                FileHandle.standardError.write(Data("classic-photos: cannot write the trace to \(path)\n".utf8))
                return 1
            }
        }
        Trace.shared.emit(.appStart(version: AppInfo.version))
        MainLoop.claimCurrentThread()
        MainActorLoop.install()
        let app = ClassicPhotosApp(separateInstance: options.separateInstance, configuration: configuration)
        // GApplication sees only what it handles itself: the sources (handed to the running
        // instance, if there is one, with --recursive) and --gapplication-service (D-Bus activation).
        let forwarded =
            [arguments.first ?? "classic-photos"] + (options.service ? ["--gapplication-service"] : [])
            + (options.recursive ? ["--recursive"] : [])
            + (options.sources.isEmpty ? [] : ["--"] + options.sources)
        let status = app.run(forwarded)
        app.http.close() // aborts what is left and writes the disk cache's index
        Trace.shared.emit(.appQuit)
        Trace.shared.flush()
        return status
    }

    /// GDK 4.8 on X11 loads the system's OpenGL driver as it opens the display, to choose a
    /// visual that GL can draw to, even when the cairo renderer has been chosen
    /// (`GSK_RENDERER=cairo`) and nothing will ever draw with GL. With Mesa's software driver
    /// that is 59 MB of resident memory held for nothing (its LLVM alone is 43 MB), so when
    /// cairo is the renderer GDK is told to leave GL alone. Any other choice, and the default
    /// (GL where it works), is left as it is. Runs before anything reads the environment.
    private static func leaveGLAloneUnderCairo() {
        guard let renderer = getenv("GSK_RENDERER").map({ String(cString: $0) }), renderer == "cairo" else { return }
        let flags = getenv("GDK_DEBUG").map { String(cString: $0) } ?? ""
        guard !flags.split(separator: ",").contains("gl-disable") else { return }
        setenv("GDK_DEBUG", flags.isEmpty ? "gl-disable" : flags + ",gl-disable", 1)
    }

    init(separateInstance: Bool, configuration: AppConfiguration) {
        self.configuration = configuration
        g_set_application_name(AppInfo.displayName)
        http = HTTPClient(
            silenceSeconds: settings.limits.silenceSeconds, cacheDirectory: HTTPClient.standardCacheDirectory)
        var flags = GApplicationFlags(G_APPLICATION_HANDLES_COMMAND_LINE.rawValue | G_APPLICATION_HANDLES_OPEN.rawValue)
        if separateInstance { flags = GApplicationFlags(flags.rawValue | G_APPLICATION_NON_UNIQUE.rawValue) }
        // Before the application starts: it looks for its style sheet and help overlay there.
        AppResourceBundle.register()
        application = Handle<Application>.make(id: AppInfo.applicationID, flags: flags)
        app = Handle(application)
        connections.append(app.connect("startup") { [unowned self] in startup() })
        connections.append(
            app.connect("activate") { [unowned self] in
                _ = newWindow(with: [])
            })
        connections.append(
            app.onCommandLine { [unowned self] arguments, directory in
                commandLine(arguments, directory: directory)
            })
        connections.append(
            app.onOpen { [unowned self] uris in
                _ = newWindow(with: uris.map { PhotoSources.source(for: $0) })
            })
        installQuitSignals()
    }

    private func run(_ arguments: [String]) -> Int32 {
        let status = app.run(arguments)
        watchdog.stop()
        // The windows (and their operation queues) stay allocated until the process exits:
        // operations still running hold on to their queues.
        connections.removeAll()
        return status
    }

    // MARK: Instances and windows

    /// A command line, this process's own or one handed over by a second launch: its sources
    /// open in a new window (none: the last sources, or the bundled photos).
    private func commandLine(_ arguments: [String], directory: String?) -> Int32 {
        let cwd =
            directory.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        guard case .run(let options) = CommandLineOptions.parse(Array(arguments.dropFirst())) else { return 2 }
        _ = newWindow(
            with: options.sources.map { PhotoSources.source(for: $0, relativeTo: cwd) },
            includingSubfolders: options.recursive ? true : nil)
        return 0
    }

    /// Opens a window on `sources`; with none, on the last sources shown, or the bundled photos.
    /// `includingSubfolders` overrides the setting for this window (`--recursive`).
    @discardableResult
    func newWindow(with sources: [any PhotoSource], includingSubfolders: Bool? = nil) -> PhotoListWindow {
        let window = PhotoListWindow(application: app, settings: settings, http: http)
        if let includingSubfolders { window.includeSubfolders = includingSubfolders }
        windows.append(window)
        window.onClosed = { [unowned self, unowned window] in windows.removeAll { $0 === window } }
        window.window.present()
        if windows.count == 1, Trace.shared.isEnabled {
            // Start-up (GTK init, first layout) happens before the loop turns; watch from here on.
            MainLoop.perform(priority: G_PRIORITY_LOW) { [watchdog] in watchdog.start() }
        }
        var sources = sources
        if sources.isEmpty { sources = settings.lastSources.map { PhotoSources.source(for: $0) } }
        if sources.isEmpty, let bundled = AppResources.bundledList(configuration) {
            sources = [PhotoSources.source(for: bundled)]
        }
        if sources.isEmpty {
            window.showError(title: StatusText.alertTitle, message: StatusText.noBundledList, retry: nil)
        } else {
            window.open(sources)
        }
        return window
    }

    // MARK: Actions

    private func startup() {
        // Where pictures are decoded, said once when it is less confined than it should be.
        DecoderPool.shared.reportConfinementOnce()
        DecoderPool.shared.prepare()
        addAction("quit", accelerators: ["<Control>q"]) { [unowned self] in quit() }
        addAction("clear-cache") { [unowned self] in clearCache() }
        addAction("about") { [unowned self] in AboutWindow.present(over: windows.last?.window) }
        DisplayColours.shared.start(enabled: settings.useDisplayProfile)
        addToggle("use-display-profile", settings.useDisplayProfile) { [unowned self] on in
            settings.useDisplayProfile = on
            DisplayColours.shared.setEnabled(on)
        }
        ViewerVideo.playsClipsWhenShown = settings.playsMotionPhotos
        addToggle("play-motion-photos", settings.playsMotionPhotos) { [unowned self] on in
            settings.playsMotionPhotos = on
            ViewerVideo.playsClipsWhenShown = on
        }
        PhotoActions.writesMarksIntoPhotos = settings.writesMarksIntoPhotos
        addToggle("write-marks-into-photos", settings.writesMarksIntoPhotos) { [unowned self] on in
            settings.writesMarksIntoPhotos = on
            PhotoActions.writesMarksIntoPhotos = on
        }
        for (action, accelerators) in PhotoListWindow.acceleratorsByAction + PhotoActions.acceleratorsByAction
            + WindowFilter.acceleratorsByAction + WindowSearch.acceleratorsByAction
            + WindowDetails.acceleratorsByAction
        {
            app.setAccelerators(accelerators, for: action)
        }
    }

    /// An application action with a true-or-false state (a check item in the menu).
    private func addToggle(_ name: String, _ initial: Bool, _ body: @escaping (Bool) -> Void) {
        let (action, connection) = ToggleAction.make(name, initial, body)
        connections.append(connection)
        app.addAction(action)
    }

    private func addAction(_ name: String, accelerators: [String] = [], _ body: @escaping () -> Void) {
        let action = ObjectRef(takingOpaque: g_simple_action_new(name, nil)!)
        connections.append(SignalConnection.connect(action.pointer, "activate", pointer: { _ in body() }))
        app.addAction(action)
        if !accelerators.isEmpty { app.setAccelerators(accelerators, for: "app." + name) }
    }

    /// Empties the disk cache of downloaded photos and the app's thumbnails of web photos
    /// (off the main thread: it deletes a file per photo), then says so in the newest window.
    /// The desktop's shared thumbnails of local pictures stay: they are not the app's alone.
    private func clearCache() {
        let http = http
        Thread.detachNewThread {
            let thumbnails = ThumbnailCache.remote.directory
            var freed = http.cacheSize + DiskUsage.bytes(under: thumbnails)
            http.clearCache()
            try? FileManager.default.removeItem(at: thumbnails)
            // The dates taken the app remembers go too (read again from the photos when needed).
            freed += PhotoIndex.shared?.clear() ?? 0
            MainLoop.onMainActor { [weak self] in
                Trace.shared.emit(.cacheCleared(bytes: freed))
                self?.windows.last?.showToast(
                    freed > 0
                        ? String(format: tr("Cache cleared: %@ freed"), Localization.size(freed))
                        : tr("The cache was already empty"))
            }
        }
    }

    /// SIGTERM and SIGINT quit through the main loop, so the trace ends with `app.quit`.
    private func installQuitSignals() {
        quitSignals = [SIGTERM, SIGINT].map { signal in
            MainLoopSource.onMainActor(.unixSignal(signal)) { [weak self] in
                self?.quit()
                return .continue // a second signal while quitting does the same
            }
        }
    }

    /// Closes every window (cancelling their work) and ends the main loop.
    func quit() {
        for window in windows { window.close() }
        app.quit()
    }
}

/// What the command line asked for.
struct CommandLineOptions {
    var sources: [String] = []
    var tracePath: String?
    /// Run as a process of its own even if the app is already running (tests).
    var separateInstance = false
    /// Folders show every picture beneath them (`--recursive`).
    var recursive = false
    /// Started by D-Bus activation (the launcher), not from a command line.
    var service = false

    enum Outcome {
        case run(CommandLineOptions)
        case exit(Int32, String)
    }

    /// What `--help` prints: one message, so a translation can keep its columns aligned.
    static var usage: String {
        tr(
            "Usage: classic-photos [--trace PATH] [--recursive] [--new-instance] [SOURCE…]\n\nShows photos in a scrolling list, each downloaded and turned sepia as it scrolls into\nview. A SOURCE is any of:\n  FOLDER         the pictures directly inside it, in file-manager order\n  PICTURE        the pictures of its folder, with that one selected\n  LIST           a property list of photo name → image address (a path or an\n                 http(s):// address); relative addresses resolve against the list\nA FOLDER or PICTURE may be an address on a network share or device (smb://,\nsftp://, dav://, ftp://, …), mounted if it is not yet.\nSeveral sources show as one list, in the order given. With none, the last sources\nshown open again (the bundled sample photos the first time). If Classic Photos is\nalready running, the sources open in a new window of that instance.\n\n  --trace PATH   write a JSON Lines trace of what the app does to PATH\n                 (also: CLASSIC_PHOTOS_TRACE=PATH)\n  --recursive    show every picture beneath a FOLDER, sub-folders included\n  --new-instance run separately from an instance that is already running\n  --version      print the version\n  -h, --help     print this help"
        )
    }

    static func parse(_ arguments: [String]) -> Outcome {
        var options = CommandLineOptions()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help": return .exit(0, usage)
            case "--version": return .exit(0, "classic-photos \(AppInfo.version)")
            case "--trace":
                guard let path = rest.popFirst() else {
                    return .exit(2, tr("classic-photos: --trace needs a file path") + "\n\n" + usage)
                }
                options.tracePath = path
            case "--new-instance": options.separateInstance = true
            case "--recursive", "-r": options.recursive = true
            case "--gapplication-service": options.service = true
            case _ where argument.hasPrefix("--trace="):
                options.tracePath = String(argument.dropFirst("--trace=".count))
            case _ where argument.hasPrefix("-") && argument != "-":
                return .exit(2, String(format: tr("classic-photos: unknown option %@"), argument) + "\n\n" + usage)
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
