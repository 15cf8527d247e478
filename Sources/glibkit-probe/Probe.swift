import CGLib
import CGtk
import ClassicPhotosUI
import Foundation
import GLibKit
import PhotoPipeline
import Synchronization

/// Runs GLibKit's main-loop scenarios in a process whose real main thread loops GLib,
/// as the app's does, and prints one JSON object of measurements for the tests to check.
@main
struct Probe {
    /// Two warnings in GVFS's domain through the app's log writer: one about a connection
    /// cancelled, one about a connection that failed.
    static func logWarnings() -> [String: Any] {
        LogFilter.install()
        let messages = [
            "The peer-to-peer connection failed: Error while getting peer-to-peer dbus connection: Operation was cancelled. Falling back to the session bus.",
            "The peer-to-peer connection failed: Permission denied. Falling back to the session bus.",
        ]
        for message in messages {
            "GLIB_DOMAIN".withCString { domainKey in
                "MESSAGE".withCString { messageKey in
                    "GVFS".withCString { domain in
                        message.withCString { text in
                            let fields = [
                                GLogField(key: domainKey, value: domain, length: -1),
                                GLogField(key: messageKey, value: text, length: -1),
                            ]
                            g_log_structured_array(G_LOG_LEVEL_WARNING, fields, 2)
                        }
                    }
                }
            }
        }
        return ["logged": messages.count]
    }

    @MainActor static func main() {
        let scenario = CommandLine.arguments.dropFirst().first ?? ""
        MainLoop.claimCurrentThread()
        MainActorLoop.install()
        let result: [String: Any]
        switch scenario {
        case "marshal": result = marshal(threads: 8, callsPerThread: 1250)
        case "ordered": result = orderedHops(threads: 8, callsPerThread: 1250)
        case "wait": result = waitUntilDone()
        case "mainactor": result = mainActorHops(threads: 8, tasksPerThread: 125)
        case "wakeup": result = wakeup(pings: 40)
        case "log": result = logWarnings()
        case "window": result = windowLifecycle()
        case "drag-source": dragSource(uris: Array(CommandLine.arguments.dropFirst(2)))
        case "drag-source-broken-portal":
            dragSource(uris: Array(CommandLine.arguments.dropFirst(2)), throughBrokenPortal: true)
        case "edit-save":
            let arguments = Array(CommandLine.arguments.dropFirst(2))
            editSave(path: arguments.first ?? "", mode: EditSaving.Mode(rawValue: arguments.last ?? "") ?? .copy)
        default:
            FileHandle.standardError.write(
                Data(
                    "usage: glibkit-probe marshal|wait|mainactor|wakeup|log|window|drag-source[-broken-portal] URI…|edit-save PATH copy|replace\n"
                        .utf8))
            exit(2)
        }
        guard let json = try? JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]) else {
            FileHandle.standardError.write(Data("the result is not JSON: \(result)\n".utf8))
            exit(1)
        }
        print(String(decoding: json, as: UTF8.self))
    }

    /// Saves the photo at `path` turned a quarter turn, as the editor does, again and again
    /// until killed (the tests kill it at random moments), a line for each save.
    static func editSave(path: String, mode: EditSaving.Mode) -> Never {
        for count in 1... {
            if case .failure(let failure) = EditSaving.save(
                path, edit: PhotoEdit(turn: PictureTurn(quarterTurns: 1)), mode: mode)
            {
                FileHandle.standardError.write(Data("edit-save: \(failure.message)\n".utf8))
                exit(1)
            }
            FileHandle.standardOutput.write(Data("saved \(count)\n".utf8))
        }
        exit(0)
    }

    /// Runs the default main context until `done` returns true or `seconds` pass.
    static func loop(seconds: Double, until done: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !done() {
            if Date() > deadline { return false }
            if g_main_context_iteration(nil, 0) == 0 { usleep(200) }
        }
        return true
    }

    /// Many threads queue calls without waiting; all must arrive on the main thread in each
    /// thread's own order.
    static func marshal(threads: Int, callsPerThread: Int) -> [String: Any] {
        final class Tally: @unchecked Sendable {
            var next = [Int](repeating: 0, count: 64)
            var arrived = 0, offMain = 0, outOfOrder = 0
        }
        let tally = Tally() // touched only on the main thread
        for t in 0..<threads {
            Thread.detachNewThread {
                for i in 0..<callsPerThread {
                    MainLoop.perform {
                        if !Thread.isMainThread || !MainLoop.isMainThread { tally.offMain += 1 }
                        if tally.next[t] != i { tally.outOfOrder += 1 }
                        tally.next[t] = i + 1
                        tally.arrived += 1
                    }
                }
            }
        }
        let finished = loop(seconds: 30) { tally.arrived == threads * callsPerThread }
        return [
            "finished": finished, "expected": threads * callsPerThread, "arrived": tally.arrived,
            "offMain": tally.offMain, "outOfOrder": tally.outOfOrder,
        ]
    }

    /// `MainLoop.onMainActor` from many threads at once: each call takes a ticket and is
    /// queued under one lock, so the tickets give the order the calls were made across all
    /// threads; they must run on the main actor in exactly that order.
    static func orderedHops(threads: Int, callsPerThread: Int) -> [String: Any] {
        final class Tally: @unchecked Sendable {
            var expected = 0, arrived = 0, offMain = 0, outOfOrder = 0
        }
        let tally = Tally() // touched only on the main thread
        let ticket = Locked(0)
        for _ in 0..<threads {
            Thread.detachNewThread {
                for _ in 0..<callsPerThread {
                    ticket.withLock { next in
                        let mine = next
                        next += 1
                        MainLoop.onMainActor {
                            if !MainLoop.isMainThread { tally.offMain += 1 }
                            if tally.expected != mine { tally.outOfOrder += 1 }
                            tally.expected = mine + 1
                            tally.arrived += 1
                        }
                    }
                }
            }
        }
        let finished = loop(seconds: 30) { tally.arrived == threads * callsPerThread }
        return [
            "finished": finished, "arrived": tally.arrived, "offMain": tally.offMain, "outOfOrder": tally.outOfOrder,
        ]
    }

    /// The real main window, filled with the bundled list and then destroyed: every GObject
    /// it made is finalized and every signal closure box freed.
    @MainActor static func windowLifecycle() -> [String: Any] {
        gtk_init()
        let baseline = SignalConnection.liveClosureCount
        let gtkApp = gtk_application_new("io.github.classicphotos.LeakProbe", G_APPLICATION_NON_UNIQUE)!
        let app = GObjectCast.upcast(UnsafeMutableRawPointer(gtkApp), to: GApplication.self)
        g_application_register(app, nil, nil)
        let watches: [String: FinalizationWatch]
        var rowsBound = 0
        do {
            let window = WindowDiagnostics(application: gtkApp)
            watches = window.watches
            _ = window.presentBundledList()
            _ = loop(seconds: 10) { window.visibleRowCount > 3 }
            _ = loop(seconds: 1) { false } // let rows bind and photos load
            rowsBound = window.rowWidgetCount
            window.destroy()
        }
        _ = loop(seconds: 1) { false }
        let finalized = watches.filter { $0.value.isFinalized }.map(\.key).sorted()
        let result: [String: Any] = [
            "rowsBound": rowsBound, "finalized": finalized, "watched": watches.keys.sorted(),
            "closuresLeft": SignalConnection.liveClosureCount - baseline,
        ]
        g_object_unref(app)
        return result
    }

    /// A window titled "Drag Source" that offers `uris` as a file list to drag from it (as a
    /// file manager or browser offers files and links), so tests can drop them onto the app with
    /// real pointer events. Runs until killed.
    /// A window whose label drags `uris` away as a file list. `throughBrokenPortal`: offered
    /// instead as a document-portal transfer that no portal can serve (as where the portal is
    /// missing or broken) and as text/uri-list.
    @MainActor static func dragSource(uris: [String], throughBrokenPortal: Bool = false) -> Never {
        gtk_init()
        let widget = gtk_window_new()!
        let window = GObjectCast.instance(
            UnsafeMutableRawPointer(widget), of: gtk_window_get_type(), as: GtkWindow.self)!
        gtk_window_set_title(window, "Drag Source")
        gtk_window_set_default_size(window, 200, 200)
        let label = gtk_label_new("Drag me")!
        gtk_window_set_child(window, label)
        let source = gtk_drag_source_new()!
        var cStrings = uris.map { strdup($0) } + [nil]
        var provider = cStrings.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                cp_content_provider_new_for_uris($0)!
            }
        }
        cStrings.forEach { free($0) }
        if throughBrokenPortal {
            g_object_unref(provider)
            provider = brokenPortalContent(uris: uris)
        }
        gtk_drag_source_set_content(source, provider)
        gtk_drag_source_set_actions(source, GDK_ACTION_COPY)
        gtk_widget_add_controller(label, source)
        gtk_window_present(window)
        while true { g_main_context_iteration(nil, 1) }
    }

    /// A portal transfer key that names nothing, and the same files as text/uri-list.
    static func brokenPortalContent(uris: [String]) -> UnsafeMutablePointer<GdkContentProvider> {
        func bytes(_ mime: String, _ text: String) -> UnsafeMutablePointer<GdkContentProvider> {
            let data = Array(text.utf8)
            let bytes = g_bytes_new(data, gsize(data.count))
            defer { g_bytes_unref(bytes) }
            return gdk_content_provider_new_for_bytes(mime, bytes)
        }
        var providers: [UnsafeMutablePointer<GdkContentProvider>?] = [
            bytes("application/vnd.portal.filetransfer", "no-such-transfer"),
            bytes("text/uri-list", uris.map { $0 + "\r\n" }.joined()),
        ]
        return gdk_content_provider_new_union(&providers, gsize(providers.count))
    }

    /// Calls queued from a worker wake a main loop that is asleep in poll: the latency of each
    /// is far below a frame.
    static func wakeup(pings: Int) -> [String: Any] {
        let loop = g_main_loop_new(nil, 0)!
        let latencies = Locked<[Double]>([])
        let loopBox = UnsafeSendable(loop)
        Thread.detachNewThread {
            for _ in 0..<pings {
                usleep(20_000)
                let sent = g_get_monotonic_time()
                MainLoop.perform(waitUntilDone: true) {
                    let ms = Double(g_get_monotonic_time() - sent) / 1000
                    latencies.withLock { $0.append(ms) }
                }
            }
            MainLoop.perform { g_main_loop_quit(loopBox.value) }
        }
        g_main_loop_run(loop)
        g_main_loop_unref(loop)
        let values = latencies.withLock { $0 }
        return ["count": values.count, "maxMs": values.max() ?? -1, "medianMs": values.sorted()[values.count / 2]]
    }

    /// `waitUntilDone: true` from a worker returns only after the closure ran on the main
    /// thread; from the main thread it runs inline.
    static func waitUntilDone() -> [String: Any] {
        let state = Locked<(ranOnMain: Bool, sawEffect: Bool, waitedMs: Double, workerDone: Bool)>(
            (false, false, 0, false))
        let effect = Atomic<Int>(0)
        Thread.detachNewThread {
            let start = Date()
            MainLoop.perform(waitUntilDone: true) {
                usleep(50_000)
                state.withLock { $0.ranOnMain = Thread.isMainThread }
                effect.store(1, ordering: .sequentiallyConsistent)
            }
            let waited = Date().timeIntervalSince(start) * 1000
            let seen = effect.load(ordering: .sequentiallyConsistent) == 1
            state.withLock {
                $0.sawEffect = seen; $0.waitedMs = waited; $0.workerDone = true
            }
        }
        let finished = loop(seconds: 10) { state.withLock { $0.workerDone } }
        let inline = Atomic<Bool>(false)
        MainLoop.perform(waitUntilDone: true) { inline.store(Thread.isMainThread, ordering: .relaxed) }
        let s = state.withLock { $0 }
        return [
            "finished": finished, "ranOnMain": s.ranOnMain, "workerSawEffect": s.sawEffect,
            "workerWaitedMs": s.waitedMs, "inlineOnMain": inline.load(ordering: .relaxed),
        ]
    }

    /// `Task { @MainActor in }` from worker threads and `await MainActor.run {}` from a detached
    /// task run on the main thread while `g_application_run` loops; the drain must not spin.
    static func mainActorHops(threads: Int, tasksPerThread: Int) -> [String: Any] {
        // Touched only on the main thread (main actor), hence unchecked.
        final class Tally: @unchecked Sendable {
            var ran = 0, offMain = 0, runAwaited = false, cpuWhileIdleMs = -1.0
            let app = g_application_new("io.github.classicphotos.Probe", G_APPLICATION_NON_UNIQUE)!
        }
        let tally = Tally()
        let app = tally.app
        let expected = threads * tasksPerThread
        let activation = SignalConnection.connect(UnsafeMutableRawPointer(app), "activate") { g_application_hold(app) }

        for _ in 0..<threads {
            Thread.detachNewThread {
                for _ in 0..<tasksPerThread {
                    Task { @MainActor in
                        if !Thread.isMainThread { tally.offMain += 1 }
                        tally.ran += 1
                    }
                }
            }
        }
        Task.detached {
            await MainActor.run { tally.runAwaited = Thread.isMainThread }
            // Once everything has run, stay idle for a while and measure CPU used.
            while await MainActor.run(body: { tally.ran < expected }) { try? await Task.sleep(for: .milliseconds(5)) }
            let before = cpuMilliseconds()
            try? await Task.sleep(for: .milliseconds(300))
            let used = cpuMilliseconds() - before
            await MainActor.run {
                tally.cpuWhileIdleMs = used
                g_application_release(tally.app)
            }
        }
        let appBox = UnsafeSendable(app)
        let timeout = MainLoopSource(.timeout(milliseconds: 20_000)) {
            g_application_quit(appBox.value)
            return .remove
        }
        let status = withExtendedLifetime(activation) { g_application_run(app, 0, nil) }
        timeout.cancel()
        g_object_unref(app)
        return [
            "status": Int(status), "expected": expected, "ran": tally.ran, "offMain": tally.offMain,
            "mainActorRunOnMain": tally.runAwaited, "cpuWhileIdleMs": tally.cpuWhileIdleMs,
        ]
    }

    static func cpuMilliseconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let t = usage.ru_utime, s = usage.ru_stime
        return Double(t.tv_sec + s.tv_sec) * 1000 + Double(t.tv_usec + s.tv_usec) / 1000
    }
}

/// Carries a C pointer into a closure that runs on the thread that owns it.
struct UnsafeSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
