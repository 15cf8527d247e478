import CGLib
import Foundation
import GLibKit

/// The memory all decodes in flight may use together: a semaphore counting bytes.
///
/// A decode reserves what its picture will need as soon as the header says how large it is
/// (`DecodeCost`), before the loader allocates anything, and gives it back when it ends. A
/// picture that needs more than there is room for now waits (bounded by its own deadline and
/// cancellation); one that needs more than the whole budget fails at once (`too-many-pixels`).
/// Small pictures go ahead of a large one that is waiting, but once the large one has waited
/// `patience`, nothing new starts until it fits: a large photo is delayed by the others at
/// most that long plus their decoding, and they are never delayed by it beyond its own
/// decoding.
public final class DecodeMemoryBudget: @unchecked Sendable {
    /// The budget every decode of the app shares unless told otherwise.
    public static let shared = DecodeMemoryBudget(capacity: PhotoLimits.standard.decodeMemoryBytes)

    // Every field is guarded by `condition`.
    private let condition = NSCondition()
    private var capacityValue: Int
    private var used = 0
    private var peak = 0
    private var nextTicket = 0
    /// Waiting reservations: ticket → (bytes, when it began waiting).
    private var waiting: [Int: (bytes: Int, since: Double)] = [:]
    private let patience: Double

    public init(capacity: Int, patience: Double = 1.0) {
        capacityValue = capacity
        self.patience = patience
        forward = nil
    }

    /// Reserves in another process's budget (a decoder helper's decodes reserve in the app's,
    /// so that all of them share one): `forward` waits for the room and throws as `reserve`
    /// does; the app gives the memory back when the decode ends.
    init(forwardingTo forward: @escaping @Sendable (Int, Cancellable) throws(PhotoFailure) -> Void) {
        capacityValue = Int.max
        patience = 1
        self.forward = forward
    }

    private let forward: (@Sendable (Int, Cancellable) throws(PhotoFailure) -> Void)?

    /// The budget in bytes; a smaller one takes effect as reservations are returned.
    public var capacity: Int {
        get { condition.withLock { capacityValue } }
        set {
            condition.withLock { capacityValue = newValue }
            condition.broadcast()
        }
    }

    /// Bytes reserved now, and the most reserved at once since the budget was made.
    public var usage: (now: Int, peak: Int) { condition.withLock { (used, peak) } }

    /// The reservations waiting now, the first to wait first: their bytes, and for how many
    /// seconds each has waited (for tests).
    var waitingNow: [(bytes: Int, seconds: Double)] {
        condition.withLock {
            let now = Self.now()
            return waiting.sorted { $0.key < $1.key }.map { ($0.value.bytes, now - $0.value.since) }
        }
    }

    /// A reservation; `release()` it (once) when the decode's memory is gone.
    public struct Reservation: Sendable {
        let budget: DecodeMemoryBudget?
        public let bytes: Int

        public func release() { budget?.give(bytes) }
    }

    /// Reserves `bytes`, waiting for room; throws `too-many-pixels` if they can never fit, a
    /// cancellation if `cancellable` is cancelled while waiting, or `timeout` if there is no
    /// room by `deadline`.
    public func reserve(
        _ bytes: Int, cancellable: Cancellable, deadline: DispatchTime = .distantFuture
    ) throws(PhotoFailure) -> Reservation {
        Self.returnLargeBlocks
        let bytes = max(0, bytes)
        if let forward {
            try forward(bytes, cancellable)
            return Reservation(budget: nil, bytes: bytes)
        }
        condition.lock()
        defer { condition.unlock() }
        guard bytes <= capacityValue else {
            throw PhotoFailure(
                .tooManyPixels,
                detail: "Decoding it would need \(PhotoLimits.megabytes(bytes)) of memory; "
                    + "at most \(PhotoLimits.megabytes(capacityValue)) may be used")
        }
        let ticket = nextTicket
        nextTicket += 1
        waiting[ticket] = (bytes, Self.now())
        defer { waiting[ticket] = nil }
        while !mayStart(ticket, bytes) {
            if cancellable.isCancelled { throw PhotoFailure.cancelled }
            if DispatchTime.now() >= deadline {
                throw PhotoFailure(.timeout, detail: "There was no room in memory to decode it in time")
            }
            _ = condition.wait(until: Date().addingTimeInterval(0.05))
            if bytes > capacityValue {
                throw PhotoFailure(
                    .tooManyPixels,
                    detail: "Decoding it would need \(PhotoLimits.megabytes(bytes)) of memory; "
                        + "at most \(PhotoLimits.megabytes(capacityValue)) may be used")
            }
        }
        used += bytes
        peak = max(peak, used)
        return Reservation(budget: self, bytes: bytes)
    }

    /// Whether `ticket` may take `bytes` now (the lock is held).
    private func mayStart(_ ticket: Int, _ bytes: Int) -> Bool {
        guard used + bytes <= capacityValue else { return false }
        // The longest-waiting reservation that has run out of patience goes first.
        let now = Self.now()
        let overdue = waiting.filter { $0.key != ticket && now - $0.value.since >= patience }
        guard let oldest = overdue.min(by: { $0.key < $1.key }), oldest.key < ticket else { return true }
        return used + bytes + oldest.value.bytes <= capacityValue
    }

    private func give(_ bytes: Int) {
        condition.withLock { used -= bytes }
        condition.broadcast()
    }

    /// Makes glibc allocate every block of 1 MB or more (pixel buffers) with its own mapping,
    /// given back to the system when freed. Otherwise glibc raises that threshold to 32 MB
    /// after the first large block is freed, and later pixel buffers come from the heap arena
    /// of the thread that decoded them, where freed memory stays: measured, six 19 MB decodes
    /// one or two at a time on six download threads left the process 115 MB larger, as if
    /// there had been no budget. Set once, for the whole process.
    private static let returnLargeBlocks: Void = { _ = mallopt(M_MMAP_THRESHOLD, 1 << 20) }()

    private static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}
