import CGLib
import CSoup
import Foundation
import GLibKit
import Synchronization

extension HTTPClient {
    /// What one transfer is: a head and a whole body are different results, and so are
    /// answers under different limits or policies, or past the cache; never one transfer for two.
    struct TransferRequest: Hashable, Sendable {
        let url: URL
        /// How many bytes from the start are asked for (nil: the whole body).
        let head: Int?
        let byteLimit: Int
        let policy: AddressPolicy
        let useCache: Bool
    }

    /// Requests for the same transfer while it is in flight share it.
    typealias Transfers = WorkSharing<TransferRequest, Transfer, HTTPResponse>

    /// The thread, its main context, the session and the transfers in flight.
    final class Core: @unchecked Sendable {
        let context: OpaquePointer
        private let loop: OpaquePointer
        let cacheDirectory: URL?
        // Set on the network thread before its loop runs (which is when requests, posted to the
        // context, start); used only there.
        var session: UnsafeMutablePointer<SoupSession>?
        var cache: UnsafeMutablePointer<SoupCache>?
        /// Whether the cache changed since its index was last written (network thread only).
        var cacheChanged = false
        /// The checks of the session's connections for the private-network protection
        /// (network thread only).
        private var connections: ConnectionWatch?

        /// The transfers in flight, and the requests waiting for each.
        private let transfers = Transfers()
        private let ended = DispatchSemaphore(value: 0)
        private let stopping = Atomic<Bool>(false)

        init(maxConnections: Int, silence: UInt32, cacheDirectory: URL?, cacheBytes: Int) {
            context = g_main_context_new()
            loop = g_main_loop_new(context, 0)
            self.cacheDirectory = cacheDirectory
            // The caller waits while the thread sets up. GLib 2.74 can deadlock when two threads
            // initialise GObject types for the first time at once, and the app hung at start-up
            // now and then (once in 16 launches under load, none in 200 the next time): this
            // thread was in the session's class initialisation, holding GLib's class lock, and
            // waited for the socket address type, which the main thread, connecting to D-Bus,
            // was registering and which needed that lock. So the session, the cache and the
            // types their work uses are made here while the main thread waits (1–3 ms); the
            // cache's index is read after (it makes no new types, and a full cache of 4,500
            // web photos took 320 ms to read).
            let ready = DispatchSemaphore(value: 0)
            let thread = Thread { [self] in
                HTTPClient.prepareTypes()
                // A session belongs to the thread-default context it was made in.
                g_main_context_push_thread_default(context)
                session = cp_soup_session_new(
                    Int32(maxConnections * 2), Int32(maxConnections), silence,
                    "ClassicPhotos/\(AppInfo.version)")
                connections = ConnectionWatch(session: session!, transfers: transfers)
                if let cacheDirectory {
                    try? FileManager.default.createDirectory(
                        at: cacheDirectory, withIntermediateDirectories: true,
                        attributes: [.posixPermissions: 0o700])
                    let made = soup_cache_new(cacheDirectory.path, SOUP_CACHE_SINGLE_USER)!
                    soup_cache_set_max_size(made, guint(clamping: cacheBytes))
                    soup_session_add_feature(session, OpaquePointer(made))
                    cache = made
                }
                ready.signal()
                // Requests posted meanwhile wait: the loop runs once the index is read.
                if let cache { soup_cache_load(cache) }
                // The cache's index is written a few seconds after it changed, so that a
                // process that is killed loses little.
                let dump = MainLoopSource(.timeout(milliseconds: 5000), on: context) { [self] in
                    if cacheChanged, let cache {
                        soup_cache_flush(cache)
                        soup_cache_dump(cache)
                        cacheChanged = false
                    }
                    return .continue
                }
                g_main_loop_run(loop)
                dump.cancel()
                if let cache {
                    // Bodies still being written to the cache are finished first.
                    soup_cache_flush(cache)
                    soup_cache_dump(cache)
                    g_object_unref(UnsafeMutableRawPointer(cache))
                }
                // The session's last callbacks (aborted transfers) run before it goes.
                soup_session_abort(session)
                while g_main_context_iteration(context, 0) != 0 {}
                connections?.stop()
                g_object_unref(session)
                g_main_context_pop_thread_default(context)
                ended.signal()
            }
            thread.name = "HTTP"
            thread.start()
            ready.wait()
        }

        deinit {
            g_main_loop_unref(loop)
            g_main_context_unref(context)
        }

        /// Whether a restricted request for `message`'s host must have a connection of its own.
        func needsOwnConnection(_ message: OpaquePointer) -> Bool {
            connections?.needsOwnConnection(message) ?? false
        }

        /// Joins the transfer in flight for `request`, or a new one (`make`), which is started on
        /// the network thread. A stopped client fails the request at once.
        func join(_ request: TransferRequest, make: (Transfers.Work) -> Transfer) -> Transfers.Ticket {
            let ticket = transfers.join(request, make: make)
            if ticket.started {
                MainLoopSource.attachDetached(.idle, on: context) {
                    ticket.job.start()
                    return .remove
                }
            }
            return ticket
        }

        /// How many requests wait for the transfers in flight.
        var requestsWaiting: Int { transfers.waiting }

        /// A request was cancelled: it stops waiting now, and a transfer nobody waits for any
        /// more is aborted.
        func leave(_ ticket: Transfers.Ticket) {
            if transfers.leave(ticket) { ticket.job.abort() }
        }

        /// A transfer ended: every request still waiting for it gets its result.
        func finish(_ transfer: Transfer, _ result: Result<HTTPResponse, PhotoFailure>) {
            if case .success = result { cacheChanged = true }
            transfers.finish(transfer.work, result)
        }

        /// Runs `body` on the network thread and waits for it.
        func runAndWait(_ body: @escaping @Sendable (Core) -> Void) {
            let done = DispatchSemaphore(value: 0)
            guard !transfers.isClosed else { return }
            MainLoopSource.attachDetached(.idle, on: context) { [self] in
                body(self)
                done.signal()
                return .remove
            }
            done.wait()
        }

        func stop(wait: Bool) {
            for transfer in transfers.close() { transfer.abort() }
            guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
            // Through the context, so that a stop before the loop has started is not lost.
            MainLoopSource.attachDetached(.idle, on: context) { [self] in
                g_main_loop_quit(loop)
                return .remove
            }
            if wait { ended.wait() }
        }
    }
}
