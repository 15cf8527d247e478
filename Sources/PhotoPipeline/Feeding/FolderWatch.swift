import CGLib
import Foundation
import GLibKit

/// Watches one folder with a `GFileMonitor` and reports what happened to its files, a moment
/// after the last of a burst of changes (a copy of a hundred photos is one report).
///
/// The monitor lives on a thread of its own (`FolderWatchThread`), not on the main loop: each
/// `GFileMonitor` is a source of the context it was made on, and GLib visits every source of a
/// context in each of its iterations, so the 2,000 folders of a Pictures tree watched from the
/// main loop took a fifth of the window's time. Bursts reach the main actor as one call each.
@MainActor
final class FolderWatch {
    let folder: URL
    private let monitor: Monitor
    /// Receives each burst of changes, in the order they happened.
    var onChanges: (([FolderChange]) -> Void)?

    /// How long the folder must be quiet before a burst of changes is reported.
    nonisolated static let quietMilliseconds: UInt32 = 150

    /// Told, once the watch has begun, that the folder was changed after `changedSince`: it
    /// may hold files that were made before they could be reported.
    var onChangedBefore: (() -> Void)?

    /// Starts watching `folder` (as soon as the watching thread gets to it). `changedSince`
    /// is when the folder was read (seconds since 1970), if it was.
    init(folder: URL, changedSince: Double? = nil) {
        self.folder = folder
        monitor = Monitor(folder: folder)
        let monitor = monitor
        monitor.report = { [weak self] changes in
            MainLoop.onMainActor { self?.onChanges?(changes) }
        }
        monitor.changedBefore = { [weak self] in
            MainLoop.onMainActor { self?.onChangedBefore?() }
        }
        let delay = AppConfiguration.current.testSwitches.watchDelayMilliseconds
        let due = delay > 0 ? Self.uptime + Double(delay) / 1000 : nil
        FolderWatchThread.shared.perform {
            if let due, due > Self.uptime { Thread.sleep(forTimeInterval: due - Self.uptime) }
            monitor.start(changedSince: changedSince)
        }
    }

    private nonisolated static var uptime: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// Stops watching; nothing more is reported.
    func cancel() {
        onChanges = nil
        onChangedBefore = nil
        let monitor = monitor
        FolderWatchThread.shared.perform { monitor.stop() }
    }

    deinit {
        let monitor = monitor
        FolderWatchThread.shared.perform { monitor.stop() }
    }

    /// The `GFileMonitor` and the changes it has told of since the last report. Made on any
    /// thread; everything else about it happens on the watching thread only.
    private final class Monitor: @unchecked Sendable {
        let folder: URL
        /// Called on the watching thread with each burst (set before `start`).
        var report: (@Sendable ([FolderChange]) -> Void)?
        /// Called on the watching thread if the folder had changed since it was read (set before `start`).
        var changedBefore: (@Sendable () -> Void)?
        private var monitor: ObjectRef<GObject>?
        private var connection: SignalConnection?
        private var pending: [FolderChange] = []
        /// Reports the changes once the folder has been quiet for `quietMilliseconds`.
        private lazy var flush = Debounce(on: FolderWatchThread.shared.context) { [weak self] in
            self?.reportPending()
        }
        private var stopped = false

        init(folder: URL) { self.folder = folder }

        func start(changedSince: Double?) {
            guard !stopped else { return }
            defer { changedBefore = nil }
            // A folder on a share is watched where its backend can (MTP, a camera): others say
            // they cannot, and nothing is reported.
            let file =
                folder.isFileURL
                ? folder.withUnsafeFileSystemRepresentation { ObjectRef(takingOpaque: g_file_new_for_path($0)!) }
                : ObjectRef(takingOpaque: g_file_new_for_uri(folder.absoluteString)!)
            guard let made = g_file_monitor_directory(file.opaque, G_FILE_MONITOR_WATCH_MOVES, nil, nil) else {
                return
            }
            let monitor = ObjectRef<GObject>(takingOpaque: OpaquePointer(made))
            self.monitor = monitor
            connection = SignalConnection.connect(
                monitor.pointer, "changed",
                pointerPointerInt: { [unowned self] file, other, kind in
                    record(file: file, other: other, kind: GFileMonitorEvent(rawValue: UInt32(bitPattern: kind)))
                })
            // Watched from now on; what was made, taken away or renamed in it between its reading
            // and now changed its time. A local folder only: a share's times are its server's.
            guard let changedSince, folder.isFileURL else { return }
            var status = stat()
            guard stat(folder.path, &status) == 0 else { return }
            let modified = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
            // File times come from a clock that may lag the system's by a tick (4 ms at most
            // here); a folder changed just before its reading is read again, which is harmless.
            if modified >= changedSince - 0.05 { changedBefore?() }
        }

        func stop() {
            stopped = true
            changedBefore = nil
            connection = nil
            flush.cancel()
            pending = []
            report = nil
            if let monitor { g_file_monitor_cancel(monitor.cast(GFileMonitor.self)) }
            monitor = nil
        }

        private func record(file: UnsafeMutableRawPointer?, other: UnsafeMutableRawPointer?, kind: GFileMonitorEvent) {
            guard let path = Self.path(file) else { return }
            switch kind {
            case G_FILE_MONITOR_EVENT_CREATED, G_FILE_MONITOR_EVENT_MOVED_IN: pending.append(.created(path))
            case G_FILE_MONITOR_EVENT_DELETED, G_FILE_MONITOR_EVENT_MOVED_OUT: pending.append(.deleted(path))
            case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT: pending.append(.changed(path))
            case G_FILE_MONITOR_EVENT_RENAMED:
                guard let to = Self.path(other) else {
                    pending.append(.deleted(path))
                    break
                }
                pending.append(.renamed(from: path, to: to))
            default: return
            }
            flush.schedule(afterMilliseconds: FolderWatch.quietMilliseconds)
        }

        private func reportPending() {
            let changes = pending
            pending = []
            if !changes.isEmpty { report?(changes) }
        }

        /// The file's path, or its address where it has none (on a share).
        private static func path(_ file: UnsafeMutableRawPointer?) -> String? {
            guard let file, let path = g_file_get_path(OpaquePointer(file)) ?? g_file_get_uri(OpaquePointer(file))
            else { return nil }
            defer { g_free(path) }
            return String(cString: path)
        }
    }
}

/// The thread the app's folder monitors live on: it runs a GLib main context of its own, the
/// thread-default context there, so that monitors made on it attach to it.
final class FolderWatchThread: Sendable {
    static let shared = FolderWatchThread()

    /// The thread's context.
    nonisolated(unsafe) let context: OpaquePointer

    private init() {
        context = g_main_context_new()
        nonisolated(unsafe) let context = context
        let thread = Thread {
            g_main_context_push_thread_default(context)
            let loop = g_main_loop_new(context, 0)
            g_main_loop_run(loop)
        }
        thread.name = "classic:watch"
        thread.start()
    }

    /// Runs `body` on the thread, after what was asked of it before.
    func perform(_ body: @escaping @Sendable () -> Void) {
        MainLoop.perform(on: context, body)
    }
}
