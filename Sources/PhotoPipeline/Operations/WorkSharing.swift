import Foundation
import GLibKit

/// Work that callers asking for the same thing at the same time share: the first request
/// starts it, later ones join it, and its outcome, success or failure, reaches every caller
/// still waiting. Each caller may stop waiting on its own (`leave`); the work is abandoned
/// only when nobody waits for it any more.
///
/// `Request` says what the work is (an HTTP transfer of an address, a photo's picture at a
/// size, a row's download); `Job` is what carries it out, which callers joining later are
/// handed too (an HTTP transfer to abort, an operation to depend on; nothing, where the first
/// caller does the work itself).
public final class WorkSharing<Request: Hashable & Sendable, Job: Sendable, Value: Sendable>: Sendable {
    public typealias Outcome = Result<Value, PhotoFailure>

    /// One piece of work in flight: what its job holds to end it (`finish`).
    public final class Work: @unchecked Sendable {
        public let request: Request
        /// Callers waiting for it (guarded by the table's lock).
        fileprivate var waiters: [Ticket] = []

        fileprivate init(_ request: Request) { self.request = request }
    }

    /// One caller's place in a piece of work: its job, and the outcome the caller waits for.
    public final class Ticket: Sendable {
        public let work: Work
        public let job: Job
        /// Whether this caller's request started the work: it has the job run and ends it.
        public let started: Bool
        private let outcome = OneShot<Outcome>()

        fileprivate init(work: Work, job: Job, started: Bool) {
            self.work = work
            self.job = job
            self.started = started
        }

        public var request: Request { work.request }

        /// Waits for the work's outcome (a cancellation once this caller has left).
        public func wait() -> Outcome { outcome.wait() }

        fileprivate func resolve(_ result: Outcome) { outcome.set(result) }
    }

    private struct Table {
        var inFlight: [Request: (work: Work, job: Job)] = [:]
        var isClosed = false
    }
    private let table = Locked(Table())

    public init() {}

    /// Joins the work in flight for `request`, or starts it with the job `make` gives (called
    /// under the table's lock, so make nothing there that waits). Once closed, the work made
    /// is not started and the caller's outcome is a cancellation.
    public func join(_ request: Request, make: (Work) -> Job) -> Ticket {
        table.withLock { table in
            if let running = table.inFlight[request] {
                let ticket = Ticket(work: running.work, job: running.job, started: false)
                running.work.waiters.append(ticket)
                return ticket
            }
            let work = Work(request)
            let job = make(work)
            let ticket = Ticket(work: work, job: job, started: !table.isClosed)
            work.waiters.append(ticket)
            if table.isClosed {
                ticket.resolve(.failure(.cancelled))
            } else {
                table.inFlight[request] = (work, job)
            }
            return ticket
        }
    }

    /// Joins the work in flight for `request` if there is one whose job `accepts`; nil if not.
    public func joinRunning(_ request: Request, if accepts: (Job) -> Bool = { _ in true }) -> Ticket? {
        table.withLock { table in
            guard let running = table.inFlight[request], accepts(running.job) else { return nil }
            let ticket = Ticket(work: running.work, job: running.job, started: false)
            running.work.waiters.append(ticket)
            return ticket
        }
    }

    /// The caller stops waiting: its outcome is a cancellation, at once. Returns true when
    /// nobody waits for the work any more: it is forgotten, and the caller aborts its job.
    @discardableResult
    public func leave(_ ticket: Ticket) -> Bool {
        let abandoned = table.withLock { table in
            let work = ticket.work
            work.waiters.removeAll { $0 === ticket }
            guard work.waiters.isEmpty, table.inFlight[work.request]?.work === work else { return false }
            table.inFlight[work.request] = nil
            return true
        }
        ticket.resolve(.failure(.cancelled))
        return abandoned
    }

    /// The work ended: every caller still waiting gets `outcome`, and the next request for
    /// the same thing starts anew.
    public func finish(_ work: Work, _ outcome: Outcome) {
        let waiters = table.withLock { table in
            if table.inFlight[work.request]?.work === work { table.inFlight[work.request] = nil }
            defer { work.waiters = [] }
            return work.waiters
        }
        for waiter in waiters { waiter.resolve(outcome) }
    }

    /// Whether `close()` was called.
    public var isClosed: Bool { table.withLock { $0.isClosed } }

    /// The jobs of the work in flight.
    public var jobs: [Job] { table.withLock { $0.inFlight.values.map(\.job) } }

    /// How many callers wait for the work in flight, all of it together (for tests).
    var waiting: Int { table.withLock { $0.inFlight.values.reduce(0) { $0 + $1.work.waiters.count } } }

    /// Starts nothing more (see `join`) and forgets the work in flight, whose jobs are
    /// returned for the caller to abort; callers waiting still get their outcomes from
    /// `finish`.
    public func close() -> [Job] {
        table.withLock { table in
            table.isClosed = true
            defer { table.inFlight = [:] }
            return table.inFlight.values.map(\.job)
        }
    }
}
