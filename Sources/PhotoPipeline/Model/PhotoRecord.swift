import CGdkPixbuf
import Foundation
import GLibKit
import Synchronization

/// Where a photo is in its life: new → downloaded → filtered, or failed.
public enum PhotoState: String, Sendable {
    case new, downloaded, filtered, failed
}

/// What a widget needs to show one photo, taken at one moment: immutable, so it can be handed
/// from the pipeline to whatever shows that photo (a row, a viewer) without reaching back.
public struct PhotoSnapshot: Sendable {
    public let id: PhotoID
    /// What the source names the photo and where it is (as of the snapshot).
    public let entry: PhotoEntry
    public var name: String { entry.name }
    public let state: PhotoState
    /// The latest image: downloaded, then replaced by the filtered one.
    public let image: PhotoImage?
    public let failure: PhotoFailure?
    /// Whether work is queued or running for the photo and it is not yet final.
    public let isBusy: Bool
    /// The stars, reject, label and tags it was given; nil until they have been read (and
    /// for photos that cannot have any: not files on this computer).
    public var marks: PhotoMarks? = nil
}

/// One photo and how far its processing has got. Operations update it from worker threads;
/// the main actor reads it through snapshots.
public final class PhotoRecord: Sendable {
    public let id: PhotoID
    /// What the source names the photo and where it is; changes only when its file is renamed.
    public var entry: PhotoEntry { entryValue.withLock { $0 } }
    public var name: String { entry.name }
    private let entryValue: Locked<PhotoEntry>

    /// The photo's position in the list shown, for the trace; kept up to date by the list.
    private let positionValue: Atomic<Int>

    private struct Progress {
        var state = PhotoState.new
        var image: PhotoImage?
        /// What the download got, until it is decoded (state `downloaded`).
        var download: DownloadResult?
        var failure: PhotoFailure?
        /// The frame the filtered picture was made for.
        var frame: ThumbnailFrame?
    }
    private let progress = Locked(Progress())
    /// Its marks once read; they outlive its picture (dropped, made again) and stay when its
    /// file is rewritten.
    private let marksValue = Locked<PhotoMarks?>(nil)

    public init(id: PhotoID, entry: PhotoEntry, position: Int) {
        self.id = id
        entryValue = Locked(entry)
        positionValue = Atomic(position)
    }

    /// The photo's file was renamed: the same picture, under a new name and address.
    func rename(to entry: PhotoEntry) {
        entryValue.withLock { $0 = entry }
    }

    /// Where the photo is shown now (the trace's `row`), or -1 once its list is gone (or while
    /// a filter hides it).
    public var position: Int {
        get { positionValue.load(ordering: .relaxed) }
        set { positionValue.store(newValue, ordering: .relaxed) }
    }

    public var marks: PhotoMarks? {
        get { marksValue.withLock { $0 } }
        set { marksValue.withLock { $0 = newValue } }
    }

    public var state: PhotoState { progress.withLock { $0.state } }
    public var image: PhotoImage? { progress.withLock { $0.image } }
    public var failure: PhotoFailure? { progress.withLock { $0.failure } }
    /// Whether the photo is filtered and its picture serves `frame` as a decode for it would:
    /// made for a frame of the same kind (a square cut, or the whole photo), covering it, and
    /// less than twice as large (see `ThumbnailFrame.isServedWell`).
    func fits(_ frame: ThumbnailFrame) -> Bool {
        progress.withLock { p in
            guard p.state == .filtered, let image = p.image, p.frame?.fill == frame.fill else { return false }
            return frame.isServedWell(
                width: Int(gdk_pixbuf_get_width(image.pixbuf)), height: Int(gdk_pixbuf_get_height(image.pixbuf)))
        }
    }

    /// Whether anything is left to do (download and/or filter).
    public var needsWork: Bool {
        !entry.isFolder && progress.withLock { $0.state == .new || $0.state == .downloaded }
    }

    /// State, image and failure taken together.
    func snapshot(isBusy: Bool) -> PhotoSnapshot {
        progress.withLock { p in
            PhotoSnapshot(
                id: id, entry: entry, state: p.state, image: p.image, failure: p.failure,
                isBusy: isBusy && (p.state == .new || p.state == .downloaded), marks: marks)
        }
    }

    /// What a downloaded photo holds for its filtration to turn into the picture shown; nil in
    /// any other state.
    public var downloaded: DownloadResult? {
        progress.withLock { p in p.state == .downloaded ? p.download : nil }
    }

    /// About how much memory the record holds: its picture's pixels, or the bytes waiting to
    /// be decoded.
    public var memoryCost: Int {
        progress.withLock { p in
            let bytes = if case .bytes(let data, _)? = p.download { data.count } else { 0 }
            return bytes + (p.image.map { Int(gdk_pixbuf_get_byte_length($0.pixbuf)) } ?? 0)
        }
    }

    /// The download is in; the row shows its picture (a preview, or the picture that serves
    /// it) meanwhile.
    func markDownloaded(_ download: DownloadResult) {
        progress.withLock { $0 = Progress(state: .downloaded, image: download.shown, download: download) }
    }

    /// The picture shown from now on, made for `frame`; the bytes it was decoded from are let go.
    func markFiltered(_ image: PhotoImage, frame: ThumbnailFrame) {
        progress.withLock { $0 = Progress(state: .filtered, image: image, frame: frame) }
    }

    func markFailed(_ failure: PhotoFailure) {
        progress.withLock { $0 = Progress(state: .failed, failure: failure) }
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

    /// Forgets the picture (or the downloaded bytes) so the photo is processed again when next
    /// shown (memory pressure, or the least recently shown photos beyond the memory cap).
    /// Returns true if anything was dropped.
    @discardableResult
    func dropImage() -> Bool {
        progress.withLock { p in
            guard p.image != nil || p.download != nil, p.state != .failed else { return false }
            p = Progress()
            return true
        }
    }
}
