/// One photo of the list: its name, where it comes from, and how far its processing has got.
import Foundation
import Synchronization

/// Where a photo is in its life: new → downloaded → filtered, or failed.
public enum PhotoState: String, Sendable {
    case new, downloaded, filtered, failed
}

/// A row's photo. Operations update it from worker threads; the UI reads it on the main loop.
public final class PhotoRecord: Sendable {
    public let row: Int
    public let name: String
    public let url: URL

    private struct Progress {
        var state = PhotoState.new
        var image: PhotoImage?
        var failureReason: String?
    }
    private let progress = Mutex(Progress())

    public init(row: Int, name: String, url: URL) {
        self.row = row
        self.name = name
        self.url = url
    }

    public var state: PhotoState { progress.withLock { $0.state } }
    /// The latest image: downloaded, then replaced by the filtered one.
    public var image: PhotoImage? { progress.withLock { $0.image } }
    /// Why the photo failed, in words for a tooltip.
    public var failureReason: String? { progress.withLock { $0.failureReason } }
    /// Whether anything is left to do (download and/or filter).
    public var needsWork: Bool { progress.withLock { $0.state == .new || $0.state == .downloaded } }

    /// A snapshot of state, image and failure reason taken together.
    public var snapshot: (state: PhotoState, image: PhotoImage?, failureReason: String?) {
        progress.withLock { ($0.state, $0.image, $0.failureReason) }
    }

    func markDownloaded(_ image: PhotoImage) {
        progress.withLock { $0.state = .downloaded; $0.image = image; $0.failureReason = nil }
    }

    func markFiltered(_ image: PhotoImage) {
        progress.withLock { $0.state = .filtered; $0.image = image }
    }

    func markFailed(_ reason: String) {
        progress.withLock { $0.state = .failed; $0.image = nil; $0.failureReason = reason }
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
