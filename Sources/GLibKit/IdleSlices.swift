import CGLib

/// Work fed to the main loop a slice at a time, at idle priority, so that input, drawing and
/// other work get their turn in between: the one way the app spreads a long piece of work over
/// the loop's iterations.
///
/// The owner gives a step, which does one small piece of the work and says whether more is
/// left. A slice runs steps one after another until the work is done or the slice has taken
/// `budgetMicroseconds`; the next slice runs at a later iteration. A step that costs more than
/// the budget runs alone in its slice.
///
/// `start()` begins the slices when there is work (it does nothing while they run: the steps
/// find what was added), a step's `.done` ends them, and `cancel()` stops them at once, from
/// within a step too. Dropping the handle stops them as well.
@MainActor
public final class IdleSlices {
    /// What a step asks for once it has run.
    public enum Step: Sendable {
        /// More is left: the next step runs in this slice, or in the next one.
        case more
        /// Nothing is left: the slices end until `start()` is called again.
        case done
    }

    /// How long (µs) a slice may have taken and still go on to the next step: one budget for
    /// all the work fed this way. A step that costs more than this (a piece of rows the views
    /// make widgets for, 4 to 10 ms; 2,000 photos put into a long list) runs one a slice, each
    /// drawn in a frame of its own; cheap steps (a piece that only appends, a folder's watch
    /// asked for) go several to a slice, so that many of them do not each wait for a frame.
    public static let budgetMicroseconds: Int64 = 3_000

    private let priority: Int32
    private let step: @MainActor () -> Step
    private var source: MainLoopSource?
    /// Counts the starts, so that a slice left running by a step that cancelled and started
    /// again stops at once.
    private var run = 0

    /// Whether the slices are running: started, and not yet done or cancelled.
    public private(set) var isRunning = false

    /// Slices running `step` at `priority` (idle, below drawing and the app's own callbacks,
    /// by default) once started.
    public init(priority: Int32 = G_PRIORITY_DEFAULT_IDLE, _ step: @escaping @MainActor () -> Step) {
        self.priority = priority
        self.step = step
    }

    /// Starts the slices unless they are running; with `now`, the first one runs before this
    /// returns (the rest at later iterations).
    public func start(now: Bool = false) {
        guard !isRunning else { return }
        isRunning = true
        run += 1
        let run = run
        if now, slice(run) == .remove { return }
        guard isRunning, self.run == run else { return }
        source = MainLoopSource.onMainActor(.idle, priority: priority) { [weak self] in
            self?.slice(run) ?? .remove
        }
    }

    /// Stops the slices: no step runs after the one running now, if any.
    public func cancel() {
        isRunning = false
        source = nil
    }

    private func slice(_ run: Int) -> MainLoopSource.Action {
        let began = g_get_monotonic_time()
        repeat {
            guard isRunning, self.run == run else { return .remove }
            if step() == .done {
                if self.run == run { cancel() }
                return .remove
            }
        } while g_get_monotonic_time() - began < Self.budgetMicroseconds
        return isRunning && self.run == run ? .continue : .remove
    }
}
