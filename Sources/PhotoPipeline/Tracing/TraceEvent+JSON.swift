import Foundation

/// Takes an event apart as its line holds it: the name first, then each field in order.
///
/// `TraceEvent.layOut(into:)` is the one place that says what each event is written as; it
/// feeds the JSON line and, with the fields ignored, `TraceEvent.name`.
protocol TraceEventParts {
    /// The event's name (nil for an event this definition does not know) and `ev` as written.
    mutating func name(_ name: TraceEvent.Name?, ev: String)
    mutating func field(_ key: TraceEvent.Field, _ value: String)
    mutating func field(_ key: TraceEvent.Field, _ value: Int)
    mutating func field(_ key: TraceEvent.Field, _ value: Double)
    mutating func field(_ key: TraceEvent.Field, _ value: Bool)
    mutating func field(_ key: TraceEvent.Field, _ value: [String])
}

extension TraceEventParts {
    mutating func name(_ name: TraceEvent.Name) { self.name(name, ev: name.rawValue) }

    mutating func field(_ key: TraceEvent.Field, _ id: PhotoID) { field(key, Int(truncatingIfNeeded: id.rawValue)) }

    /// A code (kind, reason, state, …) as its raw value.
    mutating func field<Code: RawRepresentable>(_ key: TraceEvent.Field, _ code: Code) where Code.RawValue == String {
        field(key, code.rawValue)
    }
}

extension TraceEvent {
    /// The event's name; nil for `other`.
    public var name: Name? {
        var parts = NameOnly()
        layOut(into: &parts)
        return parts.name
    }

    /// The event as one trace line at time `t` (seconds), without the line break.
    public func jsonLine(t: Double) -> String {
        var line = LineWriter(t: t)
        layOut(into: &line)
        return line.text + "}"
    }

    /// Appends the event's line, break included, to `buffer`.
    func append(to buffer: inout String, t: Double) {
        var line = LineWriter(t: t)
        layOut(into: &line)
        buffer += line.text
        buffer += "}\n"
    }

    /// Each event's name and its fields, in the order the line holds them.
    func layOut(into p: inout some TraceEventParts) {
        switch self {
        case .appStart(let version):
            p.name(.appStart)
            p.field(.version, version)
        case .appQuit:
            p.name(.appQuit)
        case .windowShown:
            p.name(.windowShown)
        case .windowSubtitle(let text):
            p.name(.windowSubtitle)
            p.field(.text, text)
        case .sourceStart(let url, let recursive):
            p.name(.sourceStart)
            p.field(.url, url)
            if recursive { p.field(.recursive, true) }
        case .sourceLoaded(let url, let rows, let recursive):
            p.name(.sourceLoaded)
            p.field(.url, url)
            p.field(.rows, rows)
            if recursive { p.field(.recursive, true) }
        case .mountAsk(let url):
            p.name(.mountAsk)
            p.field(.url, url)
        case .sourceFailed(let url, let error):
            p.name(.sourceFailed)
            p.field(.url, url)
            p.field(.error, error)
        case .sourceChanged(let url, let added, let removed, let changed, let rows):
            p.name(.sourceChanged)
            p.field(.url, url)
            p.field(.added, added)
            p.field(.removed, removed)
            p.field(.changed, changed)
            p.field(.rows, rows)
        case .listSorted(let key, let descending, let rows):
            p.name(.listSorted)
            p.field(.key, key)
            p.field(.descending, descending)
            p.field(.rows, rows)
        case .listSelect(let row, let id, let name):
            p.name(.listSelect)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.name, name)
        case .viewVisible(let first, let last):
            p.name(.viewVisible)
            p.field(.first, first)
            p.field(.last, last)
        case .viewPlace(let text):
            p.name(.viewPlace)
            p.field(.text, text)
        case .displayProfile(let name):
            p.name(.displayProfile)
            p.field(.name, name)
        case .aboutShown(let text):
            p.name(.aboutShown)
            p.field(.text, text)
        case .viewMode(let mode, let columns, let size):
            p.name(.viewMode)
            p.field(.mode, mode)
            p.field(.columns, columns)
            p.field(.size, size)
        case .indexRead(let rows, let hits):
            p.name(.indexRead)
            p.field(.rows, rows)
            p.field(.hits, hits)
        case .indexLead(let rows):
            p.name(.indexLead)
            p.field(.rows, rows)
        case .indexChecked(let rows, let reordered):
            p.name(.indexChecked)
            p.field(.rows, rows)
            p.field(.reordered, reordered)
        case .selectionChanged(let count):
            p.name(.selectionChanged)
            p.field(.count, count)
        case .scrollBegin(let via):
            p.name(.scrollBegin)
            p.field(.via, via)
        case .scrollEnd(let first, let last):
            p.name(.scrollEnd)
            p.field(.first, first)
            p.field(.last, last)
        case .queuesSuspended:
            p.name(.queuesSuspended)
        case .queuesResumed:
            p.name(.queuesResumed)
        case .rowShown(let row, let id, let name, let kind):
            p.name(.rowShown)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.name, name)
            p.field(.kind, kind.rawValue)
        case .opStart(let kind, let row, let id):
            p.name(.opStart)
            p.field(.kind, kind)
            p.field(.row, row)
            p.field(.id, id)
        case .opFinish(let kind, let row, let id, let ms):
            p.name(.opFinish)
            p.field(.kind, kind)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.ms, ms)
        case .opFail(let kind, let row, let id, let error, let reason):
            p.name(.opFail)
            p.field(.kind, kind)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.error, error)
            p.field(.reason, reason)
        case .opCancel(let kind, let row, let id, let running):
            p.name(.opCancel)
            p.field(.kind, kind)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.running, running)
        case .rowState(let row, let id, let state):
            p.name(.rowState)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.state, state)
        case .rowStatus(let row, let id, let text, let retry):
            p.name(.rowStatus)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.text, text)
            p.field(.retry, retry)
        case .rowPreview(let row, let id, let source, let width, let height, let covers):
            p.name(.rowPreview)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.source, source)
            p.field(.w, width)
            p.field(.h, height)
            p.field(.covers, covers)
        case .rowTooltip(let row, let id, let text):
            p.name(.rowTooltip)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.text, text)
        case .mainloopStall(let ms):
            p.name(.mainloopStall)
            p.field(.ms, ms)
        case .ioOnMain(let kind, let text):
            p.name(.ioOnMain)
            p.field(.kind, kind)
            p.field(.text, text)
        case .memoryLow(let level):
            p.name(.memoryLow)
            p.field(.level, level)
        case .cacheCleared(let bytes):
            p.name(.cacheCleared)
            p.field(.bytes, bytes)
        case .viewerOpen(let row, let id, let name):
            p.name(.viewerOpen)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.name, name)
        case .viewerImage(let row, let id, let width, let height, let state, let frames, let profile):
            p.name(.viewerImage)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.w, width)
            p.field(.h, height)
            p.field(.state, state)
            if frames > 0 { p.field(.frames, frames) }
            if let profile { p.field(.profile, profile) }
        case .viewerSharp(let id, let ms):
            p.name(.viewerSharp)
            p.field(.id, id)
            p.field(.ms, ms)
        case .viewerPlay(let id, let ms):
            p.name(.viewerPlay)
            p.field(.id, id)
            p.field(.ms, ms)
        case .compareOpen, .compareImage, .compareView, .compareFocus, .compareClose:
            layOutCompare(into: &p)
        case .editBegin, .editSaved, .editSaving, .editFailed:
            layOutEdit(into: &p)
        case .viewerFrame(let row, let id, let frame):
            p.name(.viewerFrame)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.frame, frame)
        case .viewerStatus(let row, let id, let text):
            p.name(.viewerStatus)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.text, text)
        case .viewerZoom(let level):
            p.name(.viewerZoom)
            p.field(.level, level)
        case .viewerClose(let row, let id):
            p.name(.viewerClose)
            p.field(.row, row)
            p.field(.id, id)
        case .viewerPan(let x, let y):
            p.name(.viewerPan)
            p.field(.x, x)
            p.field(.y, y)
        case .viewerInfo(let shown, let info):
            p.name(.viewerInfo)
            p.field(.shown, shown)
            p.field(.name, info.name)
            p.field(.source, info.source)
            p.field(.w, info.width)
            p.field(.h, info.height)
            p.field(.bytes, info.bytes)
            p.field(.format, info.format)
            if let camera = info.camera { p.field(.camera, camera) }
            if let date = info.date { p.field(.date, date) }
            if let profile = info.profile { p.field(.profile, profile) }
            if let place = info.place { p.field(.place, place) }
        case .viewerSaved(let path, let format, let width, let height):
            p.name(.viewerSaved)
            p.field(.path, path)
            p.field(.format, format)
            p.field(.w, width)
            p.field(.h, height)
        case .viewerSaveFailed(let path, let error):
            p.name(.viewerSaveFailed)
            p.field(.path, path)
            p.field(.error, error)
        case .altTextSaved(let id, let text, let path, let error):
            p.name(.altTextSaved)
            p.field(.id, id)
            p.field(.text, text)
            p.field(.path, path)
            p.field(.error, error)
        case .viewerMaps(let address, let opened):
            p.name(.viewerMaps)
            p.field(.url, address)
            p.field(.opened, opened)
        case .viewerDropped(let row, let id):
            p.name(.viewerDropped)
            p.field(.row, row)
            p.field(.id, id)
        case .fileTrashed(let row, let id, let name):
            p.name(.fileTrashed)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.name, name)
        case .fileRestored(let row, let id, let name):
            p.name(.fileRestored)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.name, name)
        case .fileDeleted(let row, let id, let name):
            p.name(.fileDeleted)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.name, name)
        case .viewerRotate(let row, let id, let degrees):
            p.name(.viewerRotate)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.degrees, degrees)
        case .batchStart(let kind, let count):
            p.name(.batchStart)
            p.field(.kind, kind)
            p.field(.count, count)
        case .batchProgress(let kind, let done, let count):
            p.name(.batchProgress)
            p.field(.kind, kind)
            p.field(.done, done)
            p.field(.count, count)
        case .batchEnd(let kind, let done, let count, let cancelled, let ms):
            p.name(.batchEnd)
            p.field(.kind, kind)
            p.field(.done, done)
            p.field(.count, count)
            p.field(.cancelled, cancelled)
            p.field(.ms, ms)
        case .photoMarked(let count, let rating, let label, let tags, let ms):
            p.name(.photoMarked)
            p.field(.count, count)
            if let rating { p.field(.rating, rating) }
            if let label { p.field(.label, label) }
            if let tags { p.field(.tags, tags) }
            p.field(.ms, ms)
        case .filterChanged, .searchChanged, .searchOpen, .viewerDetails:
            layOutFinding(into: &p)
        case .tagsPopover(let shown, let tags):
            p.name(.tagsPopover)
            p.field(.shown, shown)
            p.field(.tags, tags)
        case .rowMarks(let row, let id, let rating, let label, let tags):
            p.name(.rowMarks)
            p.field(.row, row)
            p.field(.id, id)
            p.field(.rating, rating)
            p.field(.label, label)
            p.field(.tags, tags)
        case .slideshowStart:
            p.name(.slideshowStart)
        case .slideshowStop:
            p.name(.slideshowStop)
        case .noticeShown(let text):
            p.name(.noticeShown)
            p.field(.text, text)
        case .framePainted:
            p.name(.framePainted)
        case .other(let name):
            p.name(nil, ev: name)
        }
    }
}

/// Keeps the name and ignores the fields.
private struct NameOnly: TraceEventParts {
    var name: TraceEvent.Name?

    mutating func name(_ name: TraceEvent.Name?, ev: String) { self.name = name }
    func field(_ key: TraceEvent.Field, _ value: String) {}
    func field(_ key: TraceEvent.Field, _ value: Int) {}
    func field(_ key: TraceEvent.Field, _ value: Double) {}
    func field(_ key: TraceEvent.Field, _ value: Bool) {}
    func field(_ key: TraceEvent.Field, _ value: [String]) {}
}

/// Builds one trace line: `{"t":…,"ev":"…"` then `,"key":value` per field (the closing brace
/// is the caller's). Hand-written, as it runs for every event: `t` with six decimals, other
/// numbers with three (`null` when not finite), integers and booleans as they are.
private struct LineWriter: TraceEventParts {
    private(set) var text: String

    init(t: Double) {
        text = "{\"t\":" + Self.fixed(t, digits: 6)
    }

    /// `value` with `digits` decimals and a point, whatever the locale: the app's locale may
    /// write numbers with a decimal comma (German), which JSON does not read.
    static func fixed(_ value: Double, digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else { return String(value) }
        let units = Int(scaled)
        let whole = String(units / Int(scale))
        let fraction = String(units % Int(scale))
        let sign = value < 0 && units != 0 ? "-" : ""
        return sign + whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    mutating func name(_ name: TraceEvent.Name?, ev: String) {
        text += ",\"ev\":"
        text += Self.quote(ev)
    }

    private mutating func key(_ key: TraceEvent.Field) {
        text += ",\""
        text += key.rawValue // plain ASCII identifiers: nothing to escape
        text += "\":"
    }

    mutating func field(_ key: TraceEvent.Field, _ value: String) {
        self.key(key)
        text += Self.quote(value)
    }

    mutating func field(_ key: TraceEvent.Field, _ value: Int) {
        self.key(key)
        text += String(value)
    }

    mutating func field(_ key: TraceEvent.Field, _ value: Double) {
        self.key(key)
        text += value.isFinite ? Self.fixed(value, digits: 3) : "null"
    }

    mutating func field(_ key: TraceEvent.Field, _ value: Bool) {
        self.key(key)
        text += value ? "true" : "false"
    }

    mutating func field(_ key: TraceEvent.Field, _ value: [String]) {
        self.key(key)
        text += "[" + value.map(Self.quote).joined(separator: ",") + "]"
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
