import CGLib
import Foundation
import GLibKit
import PhotoPipeline

/// Watches one folder with a `GFileMonitor` and reports what happened to its files, a moment
/// after the last of a burst of changes (a copy of a hundred photos is one report).
@MainActor
final class FolderWatch {
    let folder: URL
    private let monitor: ObjectRef<GObject>
    private var connection: SignalConnection?
    private var pending: [FolderChange] = []
    private var flush: MainLoopSource?
    /// Receives each burst of changes, in the order they happened.
    var onChanges: (([FolderChange]) -> Void)?

    /// How long the folder must be quiet before a burst of changes is reported.
    static let quietMilliseconds: UInt32 = 150

    /// Starts watching `folder`; nil if GIO cannot watch it.
    init?(folder: URL) {
        self.folder = folder
        let file = folder.withUnsafeFileSystemRepresentation { ObjectRef(takingOpaque: g_file_new_for_path($0)!) }
        guard let made = g_file_monitor_directory(file.opaque, G_FILE_MONITOR_WATCH_MOVES, nil, nil) else { return nil }
        monitor = ObjectRef(takingOpaque: OpaquePointer(made))
        connection = SignalConnection.connect(
            monitor.pointer, "changed",
            pointerPointerInt: { [unowned self] file, other, kind in
                record(file: file, other: other, kind: GFileMonitorEvent(rawValue: UInt32(bitPattern: kind)))
            })
    }

    /// Stops watching; nothing more is reported.
    func cancel() {
        connection = nil
        flush = nil
        pending = []
        g_file_monitor_cancel(monitor.cast(GFileMonitor.self))
    }

    private func record(file: UnsafeMutableRawPointer?, other: UnsafeMutableRawPointer?, kind: GFileMonitorEvent) {
        guard let path = Self.path(file) else { return }
        switch kind {
        case G_FILE_MONITOR_EVENT_CREATED, G_FILE_MONITOR_EVENT_MOVED_IN: pending.append(.created(path))
        case G_FILE_MONITOR_EVENT_DELETED, G_FILE_MONITOR_EVENT_MOVED_OUT: pending.append(.deleted(path))
        case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT: pending.append(.changed(path))
        case G_FILE_MONITOR_EVENT_RENAMED:
            guard let to = Self.path(other) else { pending.append(.deleted(path)); break }
            pending.append(.renamed(from: path, to: to))
        default: return
        }
        flush = MainLoopSource.onMainActor(.timeout(milliseconds: Self.quietMilliseconds)) { [weak self] in
            self?.report()
            return .remove
        }
    }

    private func report() {
        flush = nil
        let changes = pending
        pending = []
        if !changes.isEmpty { onChanges?(changes) }
    }

    private static func path(_ file: UnsafeMutableRawPointer?) -> String? {
        guard let file, let path = g_file_get_path(OpaquePointer(file)) else { return nil }
        defer { g_free(path) }
        return String(cString: path)
    }
}
