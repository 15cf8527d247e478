import Foundation
import PhotoPipeline

/// What the app has said of itself, read from its trace as it grows (never the whole file
/// again): which photo each row shows, how far each photo got, what is on screen, whether the
/// viewer is open and a source loading, and every stall.
struct Watch {
    private let path: String
    private var offset: UInt64 = 0
    private var partial = Data()

    /// The photo each row showed when it was last bound, and whether it is a sub-folder.
    private(set) var rowShows: [Int: (id: PhotoID, folder: Bool)] = [:]
    /// Each photo's latest state.
    private(set) var states: [PhotoID: PhotoState] = [:]
    /// The rows on screen, as last traced.
    private(set) var visible: ClosedRange<Int>?
    private(set) var viewerOpen = false
    private(set) var compareOpen = false
    private(set) var loading = false
    private(set) var scrolling = false
    /// Work on many photos at once that has begun and not yet ended.
    private(set) var batchesRunning = 0
    private(set) var batchesStarted = 0
    private(set) var sourcesStarted = 0
    /// The editor's opening, and its saves (or failures to save), so far.
    private(set) var editsBegun = 0
    private(set) var editsEnded = 0
    /// Photos (and folders) selected, as last traced.
    private(set) var selected = 0
    /// Stalls of 50 ms or more, and when (the app's own clock).
    private(set) var stalls: [(t: Double, ms: Double)] = []
    /// Disk work the app's main thread was caught doing (`io.main`), where.
    private(set) var ioOnMain: [String] = []
    private(set) var lastTime = 0.0
    private(set) var events = 0

    init(path: String) { self.path = path }

    /// Reads what the trace gained since the last look.
    mutating func update() {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        let data = (try? handle.readToEnd()) ?? Data()
        offset += UInt64(data.count)
        partial.append(data)
        guard let end = partial.lastIndex(of: UInt8(ascii: "\n")) else { return }
        let complete = partial[partial.startIndex...end]
        partial = Data(partial[partial.index(after: end)...])
        for line in complete.split(separator: UInt8(ascii: "\n")) {
            guard let record = try? TraceRecord(jsonLine: String(decoding: line, as: UTF8.self)) else { continue }
            take(record)
        }
    }

    private mutating func take(_ record: TraceRecord) {
        events += 1
        lastTime = record.t
        switch record.event {
        case .sourceStart:
            sourcesStarted += 1
            loading = true
            rowShows = [:]
            visible = nil
        case .sourceLoaded, .sourceFailed: loading = false
        case .rowShown(let row, let id, _, let kind): rowShows[row] = (id, kind == .folder)
        case .rowState(_, let id, let state): states[id] = state
        case .viewVisible(let first, let last), .scrollEnd(let first, let last):
            visible = last >= first ? first...last : nil
            if case .scrollEnd = record.event { scrolling = false }
        case .scrollBegin: scrolling = true
        case .viewerOpen: viewerOpen = true
        case .viewerClose: viewerOpen = false
        case .compareOpen: compareOpen = true
        case .compareClose: compareOpen = false
        case .editBegin: editsBegun += 1
        case .editSaved, .editFailed: editsEnded += 1
        case .batchStart:
            batchesRunning += 1
            batchesStarted += 1
        case .batchEnd: batchesRunning -= 1
        case .selectionChanged(let count): selected = count
        case .mainloopStall(let ms) where ms >= 50: stalls.append((record.t, ms))
        case .ioOnMain(let kind, let text): ioOnMain.append("\(kind) in \(text)")
        default: break
        }
    }

    /// The photos on screen not yet shown in their final state (filtered, or failed with its
    /// reason), by row; nil while nothing is known to be on screen.
    var unfinishedOnScreen: [Int]? {
        guard let visible else { return nil }
        return visible.filter { row in
            guard let shown = rowShows[row] else { return true }
            if shown.folder { return false }
            let state = states[shown.id]
            return state != .filtered && state != .failed
        }
    }
}
