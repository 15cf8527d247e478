import CGLib
import Foundation

/// Lets Swift's main actor run inside the GLib main loop.
///
/// `@MainActor` jobs are queued on libdispatch's main queue, which nothing drains while GLib
/// owns the main thread. libdispatch exposes the queue's wake-up descriptor and a drain entry
/// point (the pair CFRunLoop integrates); a GLib fd watch on one calling the other makes
/// `Task { @MainActor in }` and `await MainActor.run {}` execute on the GTK thread.
public enum MainActorLoop {
    /// The watch, kept for the life of the process; touched only on the main thread.
    nonisolated(unsafe) private static var watch: MainLoopSource?

    /// Installs the watch on the default main context. Call once from the main thread,
    /// before the loop runs; later calls do nothing.
    public static func install() {
        precondition(Thread.isMainThread, "MainActorLoop.install() must run on the main thread")
        guard watch == nil else { return }
        let fd = _dispatch_get_main_queue_handle_4CF()
        watch = MainLoopSource(.fileDescriptor(fd, condition: G_IO_IN)) {
            // The descriptor is an eventfd; clear it before draining so a wake-up that arrives
            // during the drain is not lost (the read is non-blocking and may find nothing).
            var counter: UInt64 = 0
            _ = read(fd, &counter, MemoryLayout<UInt64>.size)
            _dispatch_main_queue_callback_4CF(nil)
            return .continue
        }
    }
}
