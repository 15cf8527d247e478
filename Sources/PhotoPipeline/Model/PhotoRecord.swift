import Foundation
import Synchronization

/// Where a photo is in its life: new → downloaded → filtered, or failed.
public enum PhotoState: String, Sendable {
    case new, downloaded, filtered, failed
}

/// What a widget needs to show one photo, taken at one moment: immutable, so it can be handed
/// from the pipeline to whatever shows that photo (a row, a viewer) without reaching back.
public struct PhotoSnapshot: Sendable {
    public let id: PhotoID
    public let name: String
    public let state: PhotoState
    /// The latest image: downloaded, then replaced by the filtered one.
    public let image: PhotoImage?
    public let failure: PhotoFailure?
    /// Whether work is queued or running for the photo and it is not yet final.
    public let isBusy: Bool
}

/// One photo and how far its processing has got. Operations update it from worker threads;
/// the main actor reads it through snapshots.
public final class PhotoRecord: Sendable {
    public let id: PhotoID
    public let entry: PhotoEntry
    public var name: String { entry.name }

    /// The photo's position in the list shown, for the trace; kept up to date by the list.
    private let positionValue: Atomic<Int>

    private struct Progress {
        var state = PhotoState.new
        var image: PhotoImage?
        var failure: PhotoFailure?
    }
    private let progress = Mutex(Progress())

    public init(id: PhotoID, entry: PhotoEntry, position: Int) {
        self.id = id
        self.entry = entry
        positionValue = Atomic(position)
    }

    /// Where the photo is shown now (the trace's `row`), or -1 once its list is gone.
    public var position: Int {
        get { positionValue.load(ordering: .relaxed) }
        set { positionValue.store(newValue, ordering: .relaxed) }
    }

    public var state: PhotoState { progress.withLock { $0.state } }
    public var image: PhotoImage? { progress.withLock { $0.image } }
    public var failure: PhotoFailure? { progress.withLock { $0.failure } }
    /// Whether anything is left to do (download and/or filter).
    public var needsWork: Bool { progress.withLock { $0.state == .new || $0.state == .downloaded } }

    /// State, image and failure taken together.
    public func snapshot(isBusy: Bool) -> PhotoSnapshot {
        progress.withLock { p in
            PhotoSnapshot(id: id, name: entry.name, state: p.state, image: p.image, failure: p.failure,
                          isBusy: isBusy && (p.state == .new || p.state == .downloaded))
        }
    }

    func markDownloaded(_ image: PhotoImage) {
        progress.withLock { $0.state = .downloaded; $0.image = image; $0.failure = nil }
    }

    func markFiltered(_ image: PhotoImage) {
        progress.withLock { $0.state = .filtered; $0.image = image }
    }

    func markFailed(_ failure: PhotoFailure) {
        progress.withLock { $0.state = .failed; $0.image = nil; $0.failure = failure }
    }

    /// Starts the photo over: whatever it had (an image, a failure) is forgotten and it will be
    /// loaded again when next wanted. Returns false if it was new already.
    @discardableResult
    func reset() -> Bool {
        progress.withLock { p in
            guard p.state != .new else { return false }
            p = Progress()
            return true
        }
    }

    /// Forgets the image so the photo is processed again when next shown (memory pressure).
    /// Returns true if an image was dropped.
    @discardableResult
    func dropImage() -> Bool {
        progress.withLock { p in
            guard p.image != nil, p.state != .failed else { return false }
            p.image = nil
            p.state = .new
            return true
        }
    }
}
