import Foundation

/// Every event the app writes to its trace, with its fields typed.
///
/// This is the single definition of the trace's vocabulary: the on-disk names (`Name`), the
/// field keys (`Field`), how each event is written (`jsonLine(t:)`) and how a line is read back
/// (`TraceRecord`). Events about a photo carry `row`, its position in the list at that moment,
/// and `id`, its identity. The JSON is that of the tracing contract: `t` and `ev` first, then
/// the fields (integers as integers, `ms` with three decimals, `running` as a boolean).
public enum TraceEvent: Sendable, Equatable {
    /// `app.start`: the process started.
    case appStart(version: String)
    /// `app.quit`: clean shutdown finished.
    case appQuit
    /// `window.shown`: the first frame of the main window was painted.
    case windowShown
    /// `source.start`: a source began loading.
    case sourceStart(url: String)
    /// `source.loaded`: a source was read and its `rows` shown.
    case sourceLoaded(url: String, rows: Int)
    /// `source.failed`: a source could not be read.
    case sourceFailed(url: String, error: String)
    /// `source.changed`: the folder at `url` changed while shown: pictures `added`, `removed`
    /// and `changed` (rewritten; renamed ones count as changed), `rows` in the list after.
    case sourceChanged(url: String, added: Int, removed: Int, changed: Int, rows: Int)
    /// `list.sorted`: the list is now shown in this order (`key` is `name`, `date-taken`,
    /// `date-modified` or `size`), all `rows` of it.
    case listSorted(key: String, descending: Bool, rows: Int)
    /// `list.select`: the picture named on the command line was selected.
    case listSelect(row: Int, id: PhotoID, name: String)
    /// `view.visible`: the rows on screen changed without scrolling (`last` is `first - 1`
    /// when no row is on screen).
    case viewVisible(first: Int, last: Int)
    /// `scroll.begin`: scrolling began.
    case scrollBegin(via: ScrollVia)
    /// `scroll.end`: scrolling and any deceleration ended; the rows then on screen.
    case scrollEnd(first: Int, last: Int)
    /// `queues.suspended`: both operation queues were suspended.
    case queuesSuspended
    /// `queues.resumed`: both operation queues were resumed.
    case queuesResumed
    /// `row.shown`: a row widget was bound to a photo.
    case rowShown(row: Int, id: PhotoID, name: String)
    /// `op.start`: an operation began its work.
    case opStart(kind: OperationKind, row: Int, id: PhotoID)
    /// `op.finish`: an operation completed its work in `ms` milliseconds.
    case opFinish(kind: OperationKind, row: Int, id: PhotoID, ms: Double)
    /// `op.fail`: the photo failed; `error` is the detail, `reason` the stable code.
    case opFail(kind: OperationKind, row: Int, id: PhotoID, error: String, reason: PhotoFailure.Reason)
    /// `op.cancel`: cancellation of a queued (`running` false) or running operation.
    case opCancel(kind: OperationKind, row: Int, id: PhotoID, running: Bool)
    /// `row.state`: a photo changed state.
    case rowState(row: Int, id: PhotoID, state: PhotoState)
    /// `row.status`: a failed photo's row shows its short reason.
    case rowStatus(row: Int, id: PhotoID, text: String)
    /// `row.preview`: a row's download found a thumbnail the photo holds (`source`: `exif`,
    /// `heif`), `w`×`h` upright; `covers`: large enough for the row, so the photo is not decoded.
    case rowPreview(row: Int, id: PhotoID, source: String, w: Int, h: Int, covers: Bool)
    /// `mainloop.stall`: the main loop did not answer for `ms` milliseconds (more than a frame).
    case mainloopStall(ms: Double)
    /// `memory.low`: the desktop's low-memory warning, at its level.
    case memoryLow(level: Int)
    /// `cache.cleared`: the disk cache of downloaded photos was emptied; it held `bytes`.
    case cacheCleared(bytes: Int)
    /// `viewer.open`: the photo viewer shows a photo (on opening, and on each move).
    case viewerOpen(row: Int, id: PhotoID, name: String)
    /// `viewer.image`: the viewer's picture is ready; `w`×`h` is its decoded size. `frames` is
    /// the number of frames of an animation it plays (written only then; 0 for a still photo).
    case viewerImage(row: Int, id: PhotoID, w: Int, h: Int, state: ViewerImageState, frames: Int = 0)
    /// `viewer.frame`: the viewer's animation moved to frame `frame` (0-based). Only the frame
    /// changes of an animation's first two plays are traced, to keep traces small.
    case viewerFrame(row: Int, id: PhotoID, frame: Int)
    /// `viewer.status`: the viewer shows that its photo failed, with this reason.
    case viewerStatus(row: Int, id: PhotoID, text: String)
    /// `viewer.zoom`: the viewer's zoom changed (`level` 1.0 is 100 %).
    case viewerZoom(level: Double)
    /// `viewer.close`: the viewer closed.
    case viewerClose(row: Int, id: PhotoID)
    /// `viewer.pan`: a drag or the wheel moved the zoomed photo; (`x`, `y`) is the image point
    /// now at the view's centre, in image pixels.
    case viewerPan(x: Double, y: Double)
    /// `viewer.info`: the info popover opened (`shown` true), closed (false), or changed what it
    /// shows while open; what it shows.
    case viewerInfo(shown: Bool, info: ViewerInfoText)
    /// `viewer.saved`: Save As wrote the photo to `path` as `format` (`png`, `jpeg`), `w`×`h` pixels.
    case viewerSaved(path: String, format: String, w: Int, h: Int)
    /// `viewer.save-failed`: Save As could not write `path`; `error` says why.
    case viewerSaveFailed(path: String, error: String)
    /// `viewer.dropped`: a low-memory warning made the viewer let go of a photo it had loaded
    /// ahead (its bytes and pictures).
    case viewerDropped(row: Int, id: PhotoID)
    /// `frame.painted`: the main window's frame clock finished painting a frame (only when
    /// `CLASSIC_PHOTOS_TRACE_FRAMES=1`; the benchmark takes frame intervals from these).
    case framePainted
    /// An event this definition does not know (read from a newer trace); written as its name
    /// alone. Its fields, if any, are not kept.
    case other(name: String)

    /// The on-disk event names (`ev`), the only place they are spelled out.
    public enum Name: String, CaseIterable, Sendable, CustomStringConvertible {
        case appStart = "app.start"
        case appQuit = "app.quit"
        case windowShown = "window.shown"
        case sourceStart = "source.start"
        case sourceLoaded = "source.loaded"
        case sourceFailed = "source.failed"
        case sourceChanged = "source.changed"
        case listSorted = "list.sorted"
        case listSelect = "list.select"
        case viewVisible = "view.visible"
        case scrollBegin = "scroll.begin"
        case scrollEnd = "scroll.end"
        case queuesSuspended = "queues.suspended"
        case queuesResumed = "queues.resumed"
        case rowShown = "row.shown"
        case opStart = "op.start"
        case opFinish = "op.finish"
        case opFail = "op.fail"
        case opCancel = "op.cancel"
        case rowState = "row.state"
        case rowStatus = "row.status"
        case rowPreview = "row.preview"
        case mainloopStall = "mainloop.stall"
        case memoryLow = "memory.low"
        case cacheCleared = "cache.cleared"
        case viewerOpen = "viewer.open"
        case viewerImage = "viewer.image"
        case viewerFrame = "viewer.frame"
        case viewerStatus = "viewer.status"
        case viewerZoom = "viewer.zoom"
        case viewerClose = "viewer.close"
        case viewerPan = "viewer.pan"
        case viewerInfo = "viewer.info"
        case viewerSaved = "viewer.saved"
        case viewerSaveFailed = "viewer.save-failed"
        case viewerDropped = "viewer.dropped"
        case framePainted = "frame.painted"

        public var description: String { rawValue }
    }

    /// The on-disk field keys, the only place they are spelled out.
    public enum Field: String, CodingKey, Sendable, CaseIterable {
        case t, ev
        case version, url, rows, added, removed, changed, key, descending, error, row, id, name, first, last, via, kind, ms, reason, running, state, text, level, w, h
        case x, y, shown, source, bytes, format, camera, date, path, covers, frames, frame
    }

    /// The event's name; nil for `other`.
    public var name: Name? {
        switch self {
        case .appStart: .appStart
        case .appQuit: .appQuit
        case .windowShown: .windowShown
        case .sourceStart: .sourceStart
        case .sourceLoaded: .sourceLoaded
        case .sourceFailed: .sourceFailed
        case .sourceChanged: .sourceChanged
        case .listSorted: .listSorted
        case .listSelect: .listSelect
        case .viewVisible: .viewVisible
        case .scrollBegin: .scrollBegin
        case .scrollEnd: .scrollEnd
        case .queuesSuspended: .queuesSuspended
        case .queuesResumed: .queuesResumed
        case .rowShown: .rowShown
        case .opStart: .opStart
        case .opFinish: .opFinish
        case .opFail: .opFail
        case .opCancel: .opCancel
        case .rowState: .rowState
        case .rowStatus: .rowStatus
        case .rowPreview: .rowPreview
        case .mainloopStall: .mainloopStall
        case .memoryLow: .memoryLow
        case .cacheCleared: .cacheCleared
        case .viewerOpen: .viewerOpen
        case .viewerImage: .viewerImage
        case .viewerFrame: .viewerFrame
        case .viewerStatus: .viewerStatus
        case .viewerZoom: .viewerZoom
        case .viewerClose: .viewerClose
        case .viewerPan: .viewerPan
        case .viewerInfo: .viewerInfo
        case .viewerSaved: .viewerSaved
        case .viewerSaveFailed: .viewerSaveFailed
        case .viewerDropped: .viewerDropped
        case .framePainted: .framePainted
        case .other: nil
        }
    }

    /// The name as written in the trace (`ev`), for known and unknown events alike.
    public var ev: String {
        if case .other(let name) = self { return name }
        return name?.rawValue ?? ""
    }

    /// The list position the event is about, for events about one photo.
    public var row: Int? {
        switch self {
        case .listSelect(let row, _, _), .rowShown(let row, _, _), .opStart(_, let row, _),
             .opFinish(_, let row, _, _), .opFail(_, let row, _, _, _), .opCancel(_, let row, _, _),
             .rowState(let row, _, _), .rowStatus(let row, _, _), .viewerOpen(let row, _, _),
             .rowPreview(let row, _, _, _, _, _),
             .viewerImage(let row, _, _, _, _, _), .viewerClose(let row, _), .viewerStatus(let row, _, _),
             .viewerDropped(let row, _), .viewerFrame(let row, _, _):
            row
        default: nil
        }
    }

    /// The photo the event is about, for events about one photo.
    public var id: PhotoID? {
        switch self {
        case .listSelect(_, let id, _), .rowShown(_, let id, _), .opStart(_, _, let id),
             .opFinish(_, _, let id, _), .opFail(_, _, let id, _, _), .opCancel(_, _, let id, _),
             .rowState(_, let id, _), .rowStatus(_, let id, _), .viewerOpen(_, let id, _),
             .rowPreview(_, let id, _, _, _, _),
             .viewerImage(_, let id, _, _, _, _), .viewerClose(_, let id), .viewerStatus(_, let id, _),
             .viewerDropped(_, let id), .viewerFrame(_, let id, _):
            id
        default: nil
        }
    }

    /// The operation's kind, for `op.*` events.
    public var kind: OperationKind? {
        switch self {
        case .opStart(let kind, _, _), .opFinish(let kind, _, _, _), .opFail(let kind, _, _, _, _),
             .opCancel(let kind, _, _, _):
            kind
        default: nil
        }
    }

    /// The rows on screen, for `view.visible` and `scroll.end`; nil when there are none.
    public var visibleRows: ClosedRange<Int>? {
        switch self {
        case .viewVisible(let first, let last), .scrollEnd(let first, let last):
            last >= first ? first...last : nil
        default: nil
        }
    }

    /// The rows a source added, for `source.loaded`.
    public var rows: Int? {
        switch self {
        case .sourceLoaded(_, let rows), .sourceChanged(_, _, _, _, let rows), .listSorted(_, _, let rows): rows
        default: nil
        }
    }

    /// What a folder's change did, for `source.changed`.
    public var folderChange: (added: Int, removed: Int, changed: Int)? {
        if case .sourceChanged(_, let added, let removed, let changed, _) = self { (added, removed, changed) } else { nil }
    }

    /// The photo's name, for `list.select`, `row.shown` and `viewer.open`.
    public var photoName: String? {
        switch self {
        case .listSelect(_, _, let name), .rowShown(_, _, let name), .viewerOpen(_, _, let name): name
        default: nil
        }
    }

    /// What drove the scroll, for `scroll.begin`.
    public var via: ScrollVia? {
        if case .scrollBegin(let via) = self { via } else { nil }
    }

    /// Milliseconds, for `op.finish` and `mainloop.stall`.
    public var ms: Double? {
        switch self {
        case .opFinish(_, _, _, let ms), .mainloopStall(let ms): ms
        default: nil
        }
    }

    /// The error's detail, for `source.failed`, `op.fail` and `viewer.save-failed`.
    public var error: String? {
        switch self {
        case .sourceFailed(_, let error), .opFail(_, _, _, let error, _), .viewerSaveFailed(_, let error): error
        default: nil
        }
    }

    /// The failure's code, for `op.fail`.
    public var reason: PhotoFailure.Reason? {
        if case .opFail(_, _, _, _, let reason) = self { reason } else { nil }
    }

    /// Whether the operation was running when cancelled, for `op.cancel`.
    public var running: Bool? {
        if case .opCancel(_, _, _, let running) = self { running } else { nil }
    }

    /// The photo's new state, for `row.state`.
    public var state: PhotoState? {
        if case .rowState(_, _, let state) = self { state } else { nil }
    }

    /// The status line, for `row.status` and `viewer.status`.
    public var text: String? {
        switch self {
        case .rowStatus(_, _, let text), .viewerStatus(_, _, let text): text
        default: nil
        }
    }

    /// The bytes freed, for `cache.cleared`.
    public var bytes: Int? {
        if case .cacheCleared(let bytes) = self { bytes } else { nil }
    }

    /// The warning's level, for `memory.low`.
    public var level: Int? {
        if case .memoryLow(let level) = self { level } else { nil }
    }

    /// The zoom level, for `viewer.zoom` (1.0 is 100 %).
    public var zoomLevel: Double? {
        if case .viewerZoom(let level) = self { level } else { nil }
    }

    /// The size in pixels: decoded, for `viewer.image`; written, for `viewer.saved`.
    public var imageSize: (w: Int, h: Int)? {
        switch self {
        case .viewerImage(_, _, let w, let h, _, _), .viewerSaved(_, _, let w, let h): (w, h)
        default: nil
        }
    }

    /// The image point at the view's centre, for `viewer.pan`.
    public var panCenter: (x: Double, y: Double)? {
        if case .viewerPan(let x, let y) = self { (x, y) } else { nil }
    }

    /// Whether the info popover is open, and what it shows, for `viewer.info`.
    public var viewerInfo: (shown: Bool, info: ViewerInfoText)? {
        if case .viewerInfo(let shown, let info) = self { (shown, info) } else { nil }
    }

    /// The file, for `viewer.saved` and `viewer.save-failed`.
    public var path: String? {
        switch self {
        case .viewerSaved(let path, _, _, _), .viewerSaveFailed(let path, _): path
        default: nil
        }
    }

    /// The file format written, for `viewer.saved`.
    public var savedFormat: String? {
        if case .viewerSaved(_, let format, _, _) = self { format } else { nil }
    }

    /// What the viewer's picture shows, for `viewer.image`.
    public var viewerState: ViewerImageState? {
        if case .viewerImage(_, _, _, _, let state, _) = self { state } else { nil }
    }

    /// The frames of the animation the viewer plays, for `viewer.image` (0: a still photo).
    public var frames: Int? {
        if case .viewerImage(_, _, _, _, _, let frames) = self { frames } else { nil }
    }

    /// The frame shown, for `viewer.frame`.
    public var frame: Int? {
        if case .viewerFrame(_, _, let frame) = self { frame } else { nil }
    }

    // MARK: Writing

    /// The event as one trace line at time `t` (seconds), without the line break.
    public func jsonLine(t: Double) -> String {
        var writer = LineWriter(t: t, ev: ev)
        write(to: &writer)
        return writer.line + "}"
    }

    /// Appends the event's line, break included, to `buffer`.
    func append(to buffer: inout String, t: Double) {
        var writer = LineWriter(t: t, ev: ev)
        write(to: &writer)
        buffer += writer.line
        buffer += "}\n"
    }

    private func write(to w: inout LineWriter) {
        switch self {
        case .appStart(let version):
            w.add(.version, version)
        case .appQuit, .windowShown, .queuesSuspended, .queuesResumed, .framePainted, .other:
            break
        case .sourceStart(let url):
            w.add(.url, url)
        case .sourceLoaded(let url, let rows):
            w.add(.url, url)
            w.add(.rows, rows)
        case .sourceFailed(let url, let error):
            w.add(.url, url)
            w.add(.error, error)
        case .listSorted(let key, let descending, let rows):
            w.add(.key, key)
            w.add(.descending, descending)
            w.add(.rows, rows)
        case .sourceChanged(let url, let added, let removed, let changed, let rows):
            w.add(.url, url)
            w.add(.added, added)
            w.add(.removed, removed)
            w.add(.changed, changed)
            w.add(.rows, rows)
        case .listSelect(let row, let id, let name), .rowShown(let row, let id, let name):
            w.add(.row, row)
            w.add(.id, id)
            w.add(.name, name)
        case .viewVisible(let first, let last), .scrollEnd(let first, let last):
            w.add(.first, first)
            w.add(.last, last)
        case .scrollBegin(let via):
            w.add(.via, via.rawValue)
        case .opStart(let kind, let row, let id):
            w.add(.kind, kind.rawValue)
            w.add(.row, row)
            w.add(.id, id)
        case .opFinish(let kind, let row, let id, let ms):
            w.add(.kind, kind.rawValue)
            w.add(.row, row)
            w.add(.id, id)
            w.add(.ms, ms)
        case .opFail(let kind, let row, let id, let error, let reason):
            w.add(.kind, kind.rawValue)
            w.add(.row, row)
            w.add(.id, id)
            w.add(.error, error)
            w.add(.reason, reason.rawValue)
        case .opCancel(let kind, let row, let id, let running):
            w.add(.kind, kind.rawValue)
            w.add(.row, row)
            w.add(.id, id)
            w.add(.running, running)
        case .rowState(let row, let id, let state):
            w.add(.row, row)
            w.add(.id, id)
            w.add(.state, state.rawValue)
        case .rowStatus(let row, let id, let text), .viewerStatus(let row, let id, let text):
            w.add(.row, row)
            w.add(.id, id)
            w.add(.text, text)
        case .rowPreview(let row, let id, let source, let width, let height, let covers):
            w.add(.row, row)
            w.add(.id, id)
            w.add(.source, source)
            w.add(.w, width)
            w.add(.h, height)
            w.add(.covers, covers)
        case .mainloopStall(let ms):
            w.add(.ms, ms)
        case .memoryLow(let level):
            w.add(.level, level)
        case .cacheCleared(let bytes):
            w.add(.bytes, bytes)
        case .viewerOpen(let row, let id, let name):
            w.add(.row, row)
            w.add(.id, id)
            w.add(.name, name)
        case .viewerImage(let row, let id, let width, let height, let state, let frames):
            w.add(.row, row)
            w.add(.id, id)
            w.add(.w, width)
            w.add(.h, height)
            w.add(.state, state.rawValue)
            if frames > 0 { w.add(.frames, frames) }
        case .viewerFrame(let row, let id, let frame):
            w.add(.row, row)
            w.add(.id, id)
            w.add(.frame, frame)
        case .viewerZoom(let level):
            w.add(.level, level)
        case .viewerClose(let row, let id), .viewerDropped(let row, let id):
            w.add(.row, row)
            w.add(.id, id)
        case .viewerPan(let x, let y):
            w.add(.x, x)
            w.add(.y, y)
        case .viewerInfo(let shown, let info):
            w.add(.shown, shown)
            w.add(.name, info.name)
            w.add(.source, info.source)
            w.add(.w, info.width)
            w.add(.h, info.height)
            w.add(.bytes, info.bytes)
            w.add(.format, info.format)
            if let camera = info.camera { w.add(.camera, camera) }
            if let date = info.date { w.add(.date, date) }
        case .viewerSaved(let path, let format, let width, let height):
            w.add(.path, path)
            w.add(.format, format)
            w.add(.w, width)
            w.add(.h, height)
        case .viewerSaveFailed(let path, let error):
            w.add(.path, path)
            w.add(.error, error)
        }
    }

    // MARK: Reading

    /// Reads the event named by `ev` from a line's fields; unknown names give `.other`.
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
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "unknown \(key.rawValue) \"\(raw)\"")
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
        case .sourceStart: self = try .sourceStart(url: string(.url))
        case .sourceLoaded: self = try .sourceLoaded(url: string(.url), rows: int(.rows))
        case .sourceFailed: self = try .sourceFailed(url: string(.url), error: string(.error))
        case .listSorted:
            self = try .listSorted(key: string(.key), descending: c.decode(Bool.self, forKey: .descending), rows: int(.rows))
        case .sourceChanged:
            self = try .sourceChanged(url: string(.url), added: int(.added), removed: int(.removed), changed: int(.changed),
                                      rows: int(.rows))
        case .listSelect: self = try .listSelect(row: int(.row), id: id(), name: string(.name))
        case .viewVisible: self = try .viewVisible(first: int(.first), last: int(.last))
        case .scrollBegin: self = try .scrollBegin(via: code(.via, as: ScrollVia.self))
        case .scrollEnd: self = try .scrollEnd(first: int(.first), last: int(.last))
        case .queuesSuspended: self = .queuesSuspended
        case .queuesResumed: self = .queuesResumed
        case .rowShown: self = try .rowShown(row: int(.row), id: id(), name: string(.name))
        case .opStart: self = try .opStart(kind: kind(), row: int(.row), id: id())
        case .opFinish: self = try .opFinish(kind: kind(), row: int(.row), id: id(), ms: double(.ms))
        case .opFail:
            self = try .opFail(kind: kind(), row: int(.row), id: id(), error: string(.error),
                               reason: code(.reason, as: PhotoFailure.Reason.self))
        case .opCancel:
            self = try .opCancel(kind: kind(), row: int(.row), id: id(), running: c.decode(Bool.self, forKey: .running))
        case .rowState: self = try .rowState(row: int(.row), id: id(), state: code(.state, as: PhotoState.self))
        case .rowStatus: self = try .rowStatus(row: int(.row), id: id(), text: string(.text))
        case .rowPreview:
            self = try .rowPreview(row: int(.row), id: id(), source: string(.source), w: int(.w), h: int(.h),
                                   covers: c.decode(Bool.self, forKey: .covers))
        case .mainloopStall: self = try .mainloopStall(ms: double(.ms))
        case .memoryLow: self = try .memoryLow(level: int(.level))
        case .cacheCleared: self = try .cacheCleared(bytes: int(.bytes))
        case .viewerOpen: self = try .viewerOpen(row: int(.row), id: id(), name: string(.name))
        case .viewerImage:
            self = try .viewerImage(row: int(.row), id: id(), w: int(.w), h: int(.h),
                                    state: code(.state, as: ViewerImageState.self),
                                    frames: c.decodeIfPresent(Int.self, forKey: .frames) ?? 0)
        case .viewerFrame: self = try .viewerFrame(row: int(.row), id: id(), frame: int(.frame))
        case .viewerStatus: self = try .viewerStatus(row: int(.row), id: id(), text: string(.text))
        case .viewerZoom: self = try .viewerZoom(level: double(.level))
        case .viewerClose: self = try .viewerClose(row: int(.row), id: id())
        case .viewerPan: self = try .viewerPan(x: double(.x), y: double(.y))
        case .viewerInfo:
            let info = try ViewerInfoText(name: string(.name), source: string(.source), width: int(.w), height: int(.h),
                                          bytes: int(.bytes), format: string(.format),
                                          camera: c.decodeIfPresent(String.self, forKey: .camera),
                                          date: c.decodeIfPresent(String.self, forKey: .date))
            self = try .viewerInfo(shown: c.decode(Bool.self, forKey: .shown), info: info)
        case .viewerSaved: self = try .viewerSaved(path: string(.path), format: string(.format), w: int(.w), h: int(.h))
        case .viewerSaveFailed: self = try .viewerSaveFailed(path: string(.path), error: string(.error))
        case .viewerDropped: self = try .viewerDropped(row: int(.row), id: id())
        case .framePainted: self = .framePainted
        }
    }
}

/// What the viewer's picture shows, as `viewer.image` names it.
public enum ViewerImageState: String, Sendable, CaseIterable {
    /// The sepia version.
    case filtered
    /// The photo as decoded, without the filter.
    case original
    /// The photo could not be loaded; the viewer shows the failed placeholder.
    case failed
}

/// What the viewer's info popover shows, as `viewer.info` carries it: the photo's name, its
/// source (a path, or an address), its size in pixels and in bytes and its format (0 and empty
/// until the photo is loaded), and the EXIF camera and date taken where the photo has them.
public struct ViewerInfoText: Sendable, Equatable {
    public var name: String
    public var source: String
    public var width: Int
    public var height: Int
    public var bytes: Int
    public var format: String
    public var camera: String?
    public var date: String?

    public init(name: String, source: String, width: Int = 0, height: Int = 0, bytes: Int = 0, format: String = "",
                camera: String? = nil, date: String? = nil) {
        self.name = name
        self.source = source
        self.width = width
        self.height = height
        self.bytes = bytes
        self.format = format
        self.camera = camera
        self.date = date
    }
}

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

/// Builds one trace line: `{"t":…,"ev":"…"` then `,"key":value` per field (the closing brace
/// is the caller's). Hand-written, as it runs for every event.
private struct LineWriter {
    var line: String

    init(t: Double, ev: String) {
        line = "{\"t\":" + String(format: "%.6f", t) + ",\"ev\":" + Self.quote(ev)
    }

    private mutating func key(_ key: TraceEvent.Field) {
        line += ",\""
        line += key.rawValue // plain ASCII identifiers: nothing to escape
        line += "\":"
    }

    mutating func add(_ field: TraceEvent.Field, _ value: String) {
        key(field)
        line += Self.quote(value)
    }

    mutating func add(_ field: TraceEvent.Field, _ value: Int) {
        key(field)
        line += String(value)
    }

    mutating func add(_ field: TraceEvent.Field, _ value: PhotoID) {
        add(field, Int(truncatingIfNeeded: value.rawValue))
    }

    /// Three decimals; `null` when not finite.
    mutating func add(_ field: TraceEvent.Field, _ value: Double) {
        key(field)
        line += value.isFinite ? String(format: "%.3f", value) : "null"
    }

    mutating func add(_ field: TraceEvent.Field, _ value: Bool) {
        key(field)
        line += value ? "true" : "false"
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
