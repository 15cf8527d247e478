import Foundation

/// One line of the trace, read back: when (`t`, seconds since the process started) and what.
///
/// Lines with an `ev` this definition does not know decode as `TraceEvent.other`, so a trace
/// with events added later still reads. A line that is not JSON, or a known event missing a
/// field or with a field of the wrong type, does not decode.
public struct TraceRecord: Sendable, Equatable, Decodable {
    public let t: Double
    public let event: TraceEvent

    public init(t: Double, event: TraceEvent) {
        self.t = t
        self.event = event
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: TraceEvent.Field.self)
        t = try c.decode(Double.self, forKey: .t)
        event = try TraceEvent(from: c)
    }

    /// Reads one line as written by `Trace.emit` (or `TraceEvent.jsonLine(t:)`).
    public init(jsonLine: some StringProtocol) throws {
        self = try JSONDecoder().decode(TraceRecord.self, from: Data(jsonLine.utf8))
    }

    /// Every line of a trace file's text that decodes, in order; blank lines and lines that
    /// do not decode (such as a last line still being written) are skipped.
    public static func records(in text: String) -> [TraceRecord] {
        let decoder = JSONDecoder()
        return text.split(separator: "\n").compactMap { try? decoder.decode(TraceRecord.self, from: Data($0.utf8)) }
    }

    /// The records of the trace file at `path`; empty if it cannot be read.
    public static func records(atPath path: String) -> [TraceRecord] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return records(in: text)
    }
}

extension TraceEvent {
    /// Reads the event named by `ev` from a line's fields, in any order; unknown names give
    /// `.other`.
    init(from c: KeyedDecodingContainer<Field>) throws {
        let ev = try c.decode(String.self, forKey: .ev)
        func string(_ key: Field) throws -> String { try c.decode(String.self, forKey: key) }
        func int(_ key: Field) throws -> Int { try c.decode(Int.self, forKey: key) }
        func id() throws -> PhotoID { try PhotoID(rawValue: UInt64(truncatingIfNeeded: int(.id))) }
        /// Written as `null` when not finite.
        func double(_ key: Field) throws -> Double {
            try c.decodeNil(forKey: key) ? .nan : c.decode(Double.self, forKey: key)
        }
        func code<Code: RawRepresentable>(_ key: Field, as _: Code.Type) throws -> Code where Code.RawValue == String {
            let raw = try string(key)
            guard let value = Code(rawValue: raw) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: c,
                    debugDescription: "unknown \(key.rawValue) \"\(raw)\"")
            }
            return value
        }
        func kind() throws -> OperationKind { try code(.kind, as: OperationKind.self) }

        guard let name = Name(rawValue: ev) else {
            self = .other(name: ev)
            return
        }
        switch name {
        case .appStart: self = try .appStart(version: string(.version))
        case .appQuit: self = .appQuit
        case .windowShown: self = .windowShown
        case .windowSubtitle: self = try .windowSubtitle(text: string(.text))
        case .sourceStart:
            self = try .sourceStart(
                url: string(.url), recursive: c.decodeIfPresent(Bool.self, forKey: .recursive) ?? false)
        case .sourceLoaded:
            self = try .sourceLoaded(
                url: string(.url), rows: int(.rows),
                recursive: c.decodeIfPresent(Bool.self, forKey: .recursive) ?? false)
        case .sourceFailed: self = try .sourceFailed(url: string(.url), error: string(.error))
        case .mountAsk: self = try .mountAsk(url: string(.url))
        case .listSorted:
            self = try .listSorted(
                key: string(.key), descending: c.decode(Bool.self, forKey: .descending),
                rows: int(.rows))
        case .sourceChanged:
            self = try .sourceChanged(
                url: string(.url), added: int(.added), removed: int(.removed),
                changed: int(.changed), rows: int(.rows))
        case .listSelect: self = try .listSelect(row: int(.row), id: id(), name: string(.name))
        case .viewVisible: self = try .viewVisible(first: int(.first), last: int(.last))
        case .viewMode: self = try .viewMode(mode: string(.mode), columns: int(.columns), size: int(.size))
        case .viewPlace: self = try .viewPlace(text: string(.text))
        case .displayProfile: self = try .displayProfile(name: string(.name))
        case .aboutShown: self = try .aboutShown(text: string(.text))
        case .selectionChanged: self = try .selectionChanged(count: int(.count))
        case .indexRead: self = try .indexRead(rows: int(.rows), hits: int(.hits))
        case .indexLead: self = try .indexLead(rows: int(.rows))
        case .indexChecked:
            self = try .indexChecked(rows: int(.rows), reordered: c.decode(Bool.self, forKey: .reordered))
        case .scrollBegin: self = try .scrollBegin(via: code(.via, as: ScrollVia.self))
        case .scrollEnd: self = try .scrollEnd(first: int(.first), last: int(.last))
        case .queuesSuspended: self = .queuesSuspended
        case .queuesResumed: self = .queuesResumed
        case .rowShown:
            self = try .rowShown(row: int(.row), id: id(), name: string(.name), kind: code(.kind, as: RowKind.self))
        case .opStart: self = try .opStart(kind: kind(), row: int(.row), id: id())
        case .opFinish: self = try .opFinish(kind: kind(), row: int(.row), id: id(), ms: double(.ms))
        case .opFail:
            self = try .opFail(
                kind: kind(), row: int(.row), id: id(), error: string(.error),
                reason: code(.reason, as: PhotoFailure.Reason.self))
        case .opCancel:
            self = try .opCancel(kind: kind(), row: int(.row), id: id(), running: c.decode(Bool.self, forKey: .running))
        case .rowState: self = try .rowState(row: int(.row), id: id(), state: code(.state, as: PhotoState.self))
        case .rowStatus:
            self = try .rowStatus(
                row: int(.row), id: id(), text: string(.text),
                retry: c.decodeIfPresent(Bool.self, forKey: .retry) ?? false)
        case .rowPreview:
            self = try .rowPreview(
                row: int(.row), id: id(), source: string(.source), w: int(.w), h: int(.h),
                covers: c.decode(Bool.self, forKey: .covers))
        case .mainloopStall: self = try .mainloopStall(ms: double(.ms))
        case .rowTooltip: self = try .rowTooltip(row: int(.row), id: id(), text: string(.text))
        case .ioOnMain: self = try .ioOnMain(kind: string(.kind), text: string(.text))
        case .memoryLow: self = try .memoryLow(level: int(.level))
        case .cacheCleared: self = try .cacheCleared(bytes: int(.bytes))
        case .viewerOpen: self = try .viewerOpen(row: int(.row), id: id(), name: string(.name))
        case .viewerImage:
            self = try .viewerImage(
                row: int(.row), id: id(), w: int(.w), h: int(.h),
                state: code(.state, as: ViewerImageState.self),
                frames: c.decodeIfPresent(Int.self, forKey: .frames) ?? 0,
                profile: c.decodeIfPresent(String.self, forKey: .profile))
        case .viewerSharp: self = try .viewerSharp(id: id(), ms: double(.ms))
        case .viewerPlay: self = try .viewerPlay(id: id(), ms: double(.ms))
        case .compareOpen: self = try .compareOpen(count: int(.count))
        case .compareImage:
            self = try .compareImage(
                id: id(), w: int(.w), h: int(.h), state: code(.state, as: ViewerImageState.self))
        case .compareView: self = try .compareView(id: id(), level: double(.level), x: double(.x), y: double(.y))
        case .compareFocus: self = try .compareFocus(id: id())
        case .compareClose: self = .compareClose
        case .viewerFrame: self = try .viewerFrame(row: int(.row), id: id(), frame: int(.frame))
        case .viewerStatus: self = try .viewerStatus(row: int(.row), id: id(), text: string(.text))
        case .viewerZoom: self = try .viewerZoom(level: double(.level))
        case .viewerClose: self = try .viewerClose(row: int(.row), id: id())
        case .viewerPan: self = try .viewerPan(x: double(.x), y: double(.y))
        case .viewerInfo:
            let info = try ViewerInfoText(
                name: string(.name), source: string(.source), width: int(.w), height: int(.h),
                bytes: int(.bytes), format: string(.format),
                camera: c.decodeIfPresent(String.self, forKey: .camera),
                date: c.decodeIfPresent(String.self, forKey: .date),
                profile: c.decodeIfPresent(String.self, forKey: .profile),
                place: c.decodeIfPresent(String.self, forKey: .place))
            self = try .viewerInfo(shown: c.decode(Bool.self, forKey: .shown), info: info)
        case .viewerSaved: self = try .viewerSaved(path: string(.path), format: string(.format), w: int(.w), h: int(.h))
        case .viewerSaveFailed: self = try .viewerSaveFailed(path: string(.path), error: string(.error))
        case .viewerMaps: self = try .viewerMaps(address: string(.url), opened: c.decode(Bool.self, forKey: .opened))
        case .altTextSaved:
            self = try .altTextSaved(id: id(), text: string(.text), path: string(.path), error: string(.error))
        case .editBegin: self = try .editBegin(id: id())
        case .editSaving: self = try .editSaving(id: id())
        case .editSaved:
            self = try .editSaved(
                id: id(), path: string(.path), lossless: c.decode(Bool.self, forKey: .lossless), w: int(.w),
                h: int(.h), ms: double(.ms))
        case .editFailed: self = try .editFailed(id: id(), error: string(.error))
        case .viewerDropped: self = try .viewerDropped(row: int(.row), id: id())
        case .fileTrashed: self = try .fileTrashed(row: int(.row), id: id(), name: string(.name))
        case .fileRestored: self = try .fileRestored(row: int(.row), id: id(), name: string(.name))
        case .fileDeleted: self = try .fileDeleted(row: int(.row), id: id(), name: string(.name))
        case .viewerRotate: self = try .viewerRotate(row: int(.row), id: id(), degrees: int(.degrees))
        case .batchStart: self = try .batchStart(kind: code(.kind, as: FileBatchKind.self), count: int(.count))
        case .batchProgress:
            self = try .batchProgress(kind: code(.kind, as: FileBatchKind.self), done: int(.done), count: int(.count))
        case .batchEnd:
            self = try .batchEnd(
                kind: code(.kind, as: FileBatchKind.self), done: int(.done), count: int(.count),
                cancelled: c.decode(Bool.self, forKey: .cancelled), ms: double(.ms))
        case .photoMarked:
            self = try .photoMarked(
                count: int(.count), rating: c.decodeIfPresent(Int.self, forKey: .rating),
                label: c.decodeIfPresent(String.self, forKey: .label),
                tags: c.decodeIfPresent([String].self, forKey: .tags), ms: double(.ms))
        case .filterChanged:
            self = try .filterChanged(
                shown: int(.shown), total: int(.total), reading: c.decode(Bool.self, forKey: .reading), ms: double(.ms),
                elapsed: double(.elapsed))
        case .searchChanged:
            self = try .searchChanged(query: string(.query), shown: int(.shown), total: int(.total), ms: double(.ms))
        case .tagsPopover:
            self = try .tagsPopover(
                shown: c.decode(Bool.self, forKey: .shown), tags: c.decode([String].self, forKey: .tags))
        case .rowMarks:
            self = try .rowMarks(
                row: int(.row), id: id(), rating: int(.rating), label: string(.label),
                tags: c.decodeIfPresent([String].self, forKey: .tags) ?? [])
        case .slideshowStart: self = .slideshowStart
        case .searchOpen: self = .searchOpen
        case .viewerDetails:
            self = try .viewerDetails(
                id: c.contains(.id) ? id() : nil, fields: c.decode([String].self, forKey: .fields),
                sheet: c.decode(Bool.self, forKey: .sheet), ms: double(.ms))
        case .slideshowStop: self = .slideshowStop
        case .noticeShown: self = try .noticeShown(text: string(.text))
        case .framePainted: self = .framePainted
        }
    }

    // MARK: What the tests and the benchmark ask of an event read back

    /// The list position the event is about, for events about one photo.
    public var row: Int? {
        switch self {
        case .listSelect(let row, _, _), .rowShown(let row, _, _, _), .opStart(_, let row, _),
            .opFinish(_, let row, _, _), .opFail(_, let row, _, _, _), .opCancel(_, let row, _, _),
            .rowState(let row, _, _), .rowStatus(let row, _, _, _), .viewerOpen(let row, _, _),
            .rowPreview(let row, _, _, _, _, _), .rowTooltip(let row, _, _),
            .viewerImage(let row, _, _, _, _, _, _), .viewerClose(let row, _), .viewerStatus(let row, _, _),
            .viewerDropped(let row, _), .viewerFrame(let row, _, _), .fileTrashed(let row, _, _),
            .fileRestored(let row, _, _), .fileDeleted(let row, _, _), .viewerRotate(let row, _, _),
            .rowMarks(let row, _, _, _, _):
            row
        default: nil
        }
    }

    /// The photo the viewer's events are about.
    public var viewerPhoto: PhotoID? {
        switch self {
        case .viewerOpen(_, let id, _), .viewerImage(_, let id, _, _, _, _, _), .viewerSharp(let id, _),
            .viewerPlay(let id, _),
            .viewerStatus(_, let id, _), .viewerClose(_, let id), .compareImage(let id, _, _, _),
            .compareView(let id, _, _, _), .compareFocus(let id):
            id
        default: nil
        }
    }

    /// The operation's kind, for the operations' events.
    public var kind: OperationKind? {
        switch self {
        case .opStart(let kind, _, _), .opFinish(let kind, _, _, _), .opFail(let kind, _, _, _, _),
            .opCancel(let kind, _, _, _):
            kind
        default: nil
        }
    }

    /// The rows on screen, for `viewVisible` and `scrollEnd`; nil when there are none.
    public var visibleRows: ClosedRange<Int>? {
        switch self {
        case .viewVisible(let first, let last), .scrollEnd(let first, let last):
            last >= first ? first...last : nil
        default: nil
        }
    }

    /// The rows in the list, for `sourceLoaded` (the source's), `sourceChanged` and `listSorted`
    /// (the whole list's).
    public var rows: Int? {
        switch self {
        case .sourceLoaded(_, let rows, _), .sourceChanged(_, _, _, _, let rows), .listSorted(_, _, let rows): rows
        default: nil
        }
    }

    /// What a folder's change did, for `sourceChanged`.
    public var folderChange: (added: Int, removed: Int, changed: Int)? {
        if case .sourceChanged(_, let added, let removed, let changed, _) = self {
            (added, removed, changed)
        } else {
            nil
        }
    }

    /// The photo's name, for `listSelect`, `rowShown` and `viewerOpen`.
    public var photoName: String? {
        switch self {
        case .listSelect(_, _, let name), .rowShown(_, _, let name, _), .viewerOpen(_, _, let name),
            .fileTrashed(_, _, let name), .fileRestored(_, _, let name), .fileDeleted(_, _, let name):
            name
        default: nil
        }
    }

    /// What drove the scroll, for `scrollBegin`.
    public var via: ScrollVia? {
        if case .scrollBegin(let via) = self { via } else { nil }
    }

    /// Milliseconds, for `opFinish`, `mainloopStall` and `batchEnd`.
    public var ms: Double? {
        switch self {
        case .opFinish(_, _, _, let ms), .mainloopStall(let ms), .batchEnd(_, _, _, _, let ms),
            .photoMarked(_, _, _, _, let ms), .filterChanged(_, _, _, let ms, _), .searchChanged(_, _, _, let ms),
            .viewerDetails(_, _, _, let ms),
            .viewerSharp(_, let ms),
            .viewerPlay(_, let ms):
            ms
        default: nil
        }
    }

    /// How work on many photos at once ended, for `batchEnd`.
    public var batchEnded: (kind: FileBatchKind, done: Int, count: Int, cancelled: Bool)? {
        if case .batchEnd(let kind, let done, let count, let cancelled, _) = self {
            (kind, done, count, cancelled)
        } else {
            nil
        }
    }

    /// The error's detail, for `sourceFailed`, `opFail`, `viewerSaveFailed` and `editFailed`.
    public var error: String? {
        switch self {
        case .sourceFailed(_, let error), .opFail(_, _, _, let error, _), .viewerSaveFailed(_, let error),
            .editFailed(_, let error):
            error
        default: nil
        }
    }

    /// The failure's code, for `opFail`.
    public var reason: PhotoFailure.Reason? {
        if case .opFail(_, _, _, _, let reason) = self { reason } else { nil }
    }

    /// Whether the operation was running when cancelled, for `opCancel`.
    public var running: Bool? {
        if case .opCancel(_, _, _, let running) = self { running } else { nil }
    }

    /// The photo's new state, for `rowState`.
    public var state: PhotoState? {
        if case .rowState(_, _, let state) = self { state } else { nil }
    }

    /// The text, for `rowStatus`, `rowTooltip`, `viewerStatus` (the status line),
    /// `windowSubtitle`, `noticeShown` and `ioOnMain` (where).
    public var text: String? {
        switch self {
        case .rowStatus(_, _, let text, _), .rowTooltip(_, _, let text), .viewerStatus(_, _, let text),
            .windowSubtitle(let text), .noticeShown(let text), .ioOnMain(_, let text):
            text
        default: nil
        }
    }

    /// The bytes freed, for `cacheCleared`.
    public var bytes: Int? {
        if case .cacheCleared(let bytes) = self { bytes } else { nil }
    }

    /// The warning's level, for `memoryLow`.
    public var level: Int? {
        if case .memoryLow(let level) = self { level } else { nil }
    }

    /// The zoom level, for `viewerZoom` (1.0 is 100 %).
    public var zoomLevel: Double? {
        if case .viewerZoom(let level) = self { level } else { nil }
    }

    /// The size in pixels: decoded, for `viewerImage`; written, for `viewerSaved` and `editSaved`.
    public var imageSize: (w: Int, h: Int)? {
        switch self {
        case .viewerImage(_, _, let w, let h, _, _, _), .viewerSaved(_, _, let w, let h),
            .compareImage(_, let w, let h, _), .editSaved(_, _, _, let w, let h, _):
            (w, h)
        default: nil
        }
    }

    /// The image point at the view's centre, for `viewerPan`.
    public var panCenter: (x: Double, y: Double)? {
        if case .viewerPan(let x, let y) = self { (x, y) } else { nil }
    }

    /// Whether the info popover is open, and what it shows, for `viewerInfo`.
    public var viewerInfo: (shown: Bool, info: ViewerInfoText)? {
        if case .viewerInfo(let shown, let info) = self { (shown, info) } else { nil }
    }

    /// The photo and the facts the details panel shows, and whether it is under the photos,
    /// for `viewerDetails`.
    public var viewerDetails: (id: PhotoID?, fields: [String], sheet: Bool)? {
        if case .viewerDetails(let id, let fields, let sheet, _) = self { (id, fields, sheet) } else { nil }
    }

    /// The file, for `viewerSaved`, `viewerSaveFailed` and `editSaved`.
    public var path: String? {
        switch self {
        case .viewerSaved(let path, _, _, _), .viewerSaveFailed(let path, _), .editSaved(_, let path, _, _, _, _): path
        default: nil
        }
    }

    /// The file format written, for `viewerSaved`.
    public var savedFormat: String? {
        if case .viewerSaved(_, let format, _, _) = self { format } else { nil }
    }

    /// What the viewer's picture shows, for `viewerImage` (and a compared photo's, `compareImage`).
    public var viewerState: ViewerImageState? {
        switch self {
        case .viewerImage(_, _, _, _, let state, _, _), .compareImage(_, _, _, let state): state
        default: nil
        }
    }

    /// The frames of the animation the viewer plays, for `viewerImage` (0: a still photo).
    public var frames: Int? {
        if case .viewerImage(_, _, _, _, _, let frames, _) = self { frames } else { nil }
    }

    /// The turn, for `viewerRotate` (90 clockwise, -90 counter-clockwise).
    public var degrees: Int? {
        if case .viewerRotate(_, _, let degrees) = self { degrees } else { nil }
    }

    /// The frame shown, for `viewerFrame`.
    public var frame: Int? {
        if case .viewerFrame(_, _, let frame) = self { frame } else { nil }
    }
}
