import CGLib
import Foundation
import GLibKit

/// A pool's decoder helpers, and whose turn it is: a worker thread takes an idle helper (or
/// starts one, up to `maxHelpers`, one start at a time; beyond that it waits its turn) and
/// gives it back when its picture is done (see `run`). A helper that died, or was killed, is
/// retired and the next picture gets a fresh one; helpers idle for `idleSeconds` leave.
final class HelperRoster: @unchecked Sendable {
    let maxHelpers: Int
    let idleSeconds: Double
    /// How long one decode may take.
    let deadlineSeconds: Double
    private let launcher: HelperLauncher
    private let notice: ConfinementNotice
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var confinementValue: DecoderPool.Confinement
    private var idle: [HelperProcess] = []
    private var live = 0
    private var nextID: UInt64 = 0
    private var started = 0
    private var crashed = 0
    private var processes: Set<pid_t> = []
    private var idleCheckDue = false
    /// A helper is being started (and has not said it is ready yet).
    private var launching = false

    init(
        launcher: HelperLauncher, confinement: DecoderPool.Confinement, maxHelpers: Int, idleSeconds: Double,
        deadlineSeconds: Double, notice: ConfinementNotice
    ) {
        self.launcher = launcher
        confinementValue = confinement
        self.maxHelpers = maxHelpers
        self.idleSeconds = idleSeconds
        self.deadlineSeconds = deadlineSeconds
        self.notice = notice
    }

    /// How the helpers are confined now (bubblewrap may turn out not to work at the first start).
    var confinement: DecoderPool.Confinement { condition.withLock { confinementValue } }

    /// The processes started that are still there: the helpers, or the bubblewrap processes
    /// they run under.
    var processIdentifiers: [pid_t] { condition.withLock { processes.sorted() } }

    /// Helpers started, and helpers that died or were killed.
    var counts: (started: Int, crashed: Int) { condition.withLock { (started, crashed) } }

    /// Starts one helper now, in the background, unless one is there or starting.
    func prepare() {
        let idleOrStarting = condition.withLock { live > 0 || launching }
        guard !idleOrStarting else { return }
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let cancellable = Cancellable()
            guard let helper = try? checkOut(cancellable: cancellable) else { return }
            checkIn(helper)
        }
    }

    /// A number for a new request, unique among this roster's.
    func nextRequestID() -> UInt64 {
        condition.withLock {
            nextID += 1
            return nextID
        }
    }

    /// An idle helper, or a new one; waits while `maxHelpers` are busy or one is starting.
    func checkOut(cancellable: Cancellable) throws(PhotoFailure) -> HelperProcess {
        condition.lock()
        // One helper starts at a time: each loads Swift's runtime and Foundation, and several
        // at once took the cores from the app's main loop as a big folder filled the list.
        while idle.isEmpty, live >= maxHelpers || launching {
            if cancellable.isCancelled {
                condition.unlock()
                throw PhotoFailure.cancelled
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        if let helper = idle.popLast() {
            condition.unlock()
            // An idle helper has nothing to say: anything readable is its end (it was killed).
            guard helper.hasLeft else { return helper }
            retire(helper, died: true)
            return try checkOut(cancellable: cancellable)
        }
        live += 1
        launching = true
        condition.unlock()
        defer {
            condition.withLock {
                launching = false
                condition.broadcast()
            }
        }
        do throws(PhotoFailure) {
            return try start()
        } catch {
            condition.withLock { live -= 1 }
            throw error
        }
    }

    /// `helper` is done with its picture, and waits for the next.
    func checkIn(_ helper: HelperProcess) {
        var helper = helper
        helper.idleSince = Self.monotonicSeconds
        condition.withLock {
            idle.append(helper)
            condition.signal()
        }
        scheduleIdleCheck()
    }

    /// Ends `helper` (see `HelperProcess.end`), counts it out, and says how it ended.
    @discardableResult
    func retire(_ helper: HelperProcess, died: Bool, leaving: Bool = false) -> (how: String, exitCode: Int32?) {
        let ended = helper.end(died: died, leaving: leaving)
        condition.withLock {
            live -= 1
            if died { crashed += 1 }
            processes.remove(helper.pid)
            condition.signal()
        }
        return ended
    }

    /// Checks for helpers idle too long once `idleSeconds` from now, unless a check is due
    /// already (one at a time, however many decodes end meanwhile).
    private func scheduleIdleCheck() {
        let due = condition.withLock {
            defer { idleCheckDue = true }
            return idleCheckDue
        }
        guard !due else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + idleSeconds + 0.5) { [weak self] in
            self?.retireIdle()
        }
    }

    private func retireIdle() {
        let now = Self.monotonicSeconds
        let (leaving, stillIdle): ([HelperProcess], Bool) = condition.withLock {
            let old = idle.filter { now - $0.idleSince >= idleSeconds }
            idle.removeAll { now - $0.idleSince >= idleSeconds }
            idleCheckDue = false
            return (old, !idle.isEmpty)
        }
        // Helpers that became idle since are checked in their turn.
        if stillIdle { scheduleIdleCheck() }
        // Closing its end tells a helper to exit.
        for helper in leaving { retire(helper, died: false, leaving: true) }
    }

    /// Starts a helper and waits for it to say it is ready. If bubblewrap itself cannot run
    /// here (no user namespaces), the helpers go on without it; any other failure to start
    /// (a timeout under load, no descriptors left) fails this picture only.
    private func start() throws(PhotoFailure) -> HelperProcess {
        guard launcher.helperPath != nil else {
            throw PhotoFailure(.decoderCrashed, detail: "The decoder helper is not installed")
        }
        let mode = confinement
        do throws(HelperLauncher.Failure) {
            let helper = try launch(underBubblewrap: mode == .bubblewrap)
            condition.withLock { started += 1 }
            return helper
        } catch {
            guard mode == .bubblewrap, error.bubblewrapRefused else { throw error.failure }
            condition.withLock {
                confinementValue = .processes("bwrap could not start a helper (\(error.failure.detail))")
            }
            notice.sayOnce { confinement }
            do throws(HelperLauncher.Failure) {
                let helper = try launch(underBubblewrap: false)
                condition.withLock { started += 1 }
                return helper
            } catch {
                throw error.failure
            }
        }
    }

    /// A helper launched, its process known as soon as it runs.
    private func launch(underBubblewrap: Bool) throws(HelperLauncher.Failure) -> HelperProcess {
        try launcher.launch(
            underBubblewrap: underBubblewrap,
            started: { pid in condition.withLock { _ = processes.insert(pid) } },
            gone: { pid in
                condition.withLock {
                    processes.remove(pid)
                    condition.signal()
                }
            })
    }

    static var monotonicSeconds: Double { Double(g_get_monotonic_time()) / 1e6 }
}
