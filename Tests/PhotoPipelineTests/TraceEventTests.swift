import Foundation
@testable import PhotoPipeline
import Testing

/// The trace's typed events against the on-disk contract: each is written as the line the
/// trace's page (docs/trace.md) documents and reads back as itself.
@Suite struct TraceEventTests {
    static let id = PhotoID(rawValue: 42)

    /// One event of each name with the exact line it must be written as (at t = 1.5): the
    /// name, the fields and their order spelled out, so renaming an event, a field, or moving
    /// a field fails here. The switch has no default, so a name added without an example here
    /// does not compile.
    static func example(_ name: TraceEvent.Name) -> (event: TraceEvent, line: String) {
        switch name {
        case .appStart:
            (.appStart(version: "1.2.3"), #"{"t":1.500000,"ev":"app.start","version":"1.2.3"}"#)
        case .appQuit:
            (.appQuit, #"{"t":1.500000,"ev":"app.quit"}"#)
        case .windowShown:
            (.windowShown, #"{"t":1.500000,"ev":"window.shown"}"#)
        case .sourceStart:
            (.sourceStart(url: "file:///tmp/a%20b/"), #"{"t":1.500000,"ev":"source.start","url":"file:///tmp/a%20b/"}"#)
        case .sourceLoaded:
            (
                .sourceLoaded(url: "http://127.0.0.1:8080/list.plist", rows: 2000),
                #"{"t":1.500000,"ev":"source.loaded","url":"http://127.0.0.1:8080/list.plist","rows":2000}"#
            )
        case .sourceFailed:
            (
                .sourceFailed(url: "file:///nonexistent/list.plist", error: "No such file \"list.plist\""),
                #"{"t":1.500000,"ev":"source.failed","url":"file:///nonexistent/list.plist","error":"No such file \"list.plist\""}"#
            )
        case .mountAsk:
            (
                .mountAsk(url: "dav://127.0.0.1:8080/cam/"),
                #"{"t":1.500000,"ev":"mount.ask","url":"dav://127.0.0.1:8080/cam/"}"#
            )
        case .windowSubtitle:
            (
                .windowSubtitle(text: "10.001 Fotos, 3 fehlgeschlagen"),
                #"{"t":1.500000,"ev":"window.subtitle","text":"10.001 Fotos, 3 fehlgeschlagen"}"#
            )
        case .sourceChanged:
            (
                .sourceChanged(url: "file:///tmp/f/", added: 2, removed: 1, changed: 3, rows: 17),
                #"{"t":1.500000,"ev":"source.changed","url":"file:///tmp/f/","added":2,"removed":1,"changed":3,"rows":17}"#
            )
        case .listSorted:
            (
                .listSorted(key: "date-taken", descending: true, rows: 17),
                #"{"t":1.500000,"ev":"list.sorted","key":"date-taken","descending":true,"rows":17}"#
            )
        case .listSelect:
            (
                .listSelect(row: 46, id: id, name: "photo47.png"),
                #"{"t":1.500000,"ev":"list.select","row":46,"id":42,"name":"photo47.png"}"#
            )
        case .viewVisible:
            (.viewVisible(first: 0, last: -1), #"{"t":1.500000,"ev":"view.visible","first":0,"last":-1}"#)
        case .viewPlace:
            (.viewPlace(text: "2023/07 July"), #"{"t":1.500000,"ev":"view.place","text":"2023/07 July"}"#)
        case .displayProfile:
            (.displayProfile(name: "Swapped"), #"{"t":1.500000,"ev":"display.profile","name":"Swapped"}"#)
        case .aboutShown:
            (
                .aboutShown(text: "Colours\n“Swapped”"),
                #"{"t":1.500000,"ev":"about.shown","text":"Colours\n“Swapped”"}"#
            )
        case .viewMode:
            (
                .viewMode(mode: "grid", columns: 7, size: 160),
                #"{"t":1.500000,"ev":"view.mode","mode":"grid","columns":7,"size":160}"#
            )
        case .indexRead:
            (.indexRead(rows: 240, hits: 238), #"{"t":1.500000,"ev":"index.read","rows":240,"hits":238}"#)
        case .indexLead:
            (.indexLead(rows: 250), #"{"t":1.500000,"ev":"index.lead","rows":250}"#)
        case .indexChecked:
            (
                .indexChecked(rows: 4000, reordered: true),
                #"{"t":1.500000,"ev":"index.checked","rows":4000,"reordered":true}"#
            )
        case .selectionChanged:
            (.selectionChanged(count: 12), #"{"t":1.500000,"ev":"selection.changed","count":12}"#)
        case .scrollBegin:
            (.scrollBegin(via: .scrollbar), #"{"t":1.500000,"ev":"scroll.begin","via":"scrollbar"}"#)
        case .scrollEnd:
            (.scrollEnd(first: 120, last: 131), #"{"t":1.500000,"ev":"scroll.end","first":120,"last":131}"#)
        case .queuesSuspended:
            (.queuesSuspended, #"{"t":1.500000,"ev":"queues.suspended"}"#)
        case .queuesResumed:
            (.queuesResumed, #"{"t":1.500000,"ev":"queues.resumed"}"#)
        case .rowShown:
            (
                .rowShown(row: 7, id: id, name: "Fish & Chips 🐟", kind: .folder),
                #"{"t":1.500000,"ev":"row.shown","row":7,"id":42,"name":"Fish & Chips 🐟","kind":"folder"}"#
            )
        case .opStart:
            (
                .opStart(kind: .download, row: 3, id: id),
                #"{"t":1.500000,"ev":"op.start","kind":"download","row":3,"id":42}"#
            )
        case .opFinish:
            (
                .opFinish(kind: .filter, row: 3, id: id, ms: 12.25),
                #"{"t":1.500000,"ev":"op.finish","kind":"filter","row":3,"id":42,"ms":12.250}"#
            )
        case .opFail:
            (
                .opFail(kind: .download, row: 3, id: id, error: "line 1\nline 2\t\\", reason: .tooManyPixels),
                #"{"t":1.500000,"ev":"op.fail","kind":"download","row":3,"id":42,"error":"line 1\nline 2\t\\","reason":"too-many-pixels"}"#
            )
        case .opCancel:
            (
                .opCancel(kind: .filter, row: 9, id: id, running: true),
                #"{"t":1.500000,"ev":"op.cancel","kind":"filter","row":9,"id":42,"running":true}"#
            )
        case .rowState:
            (
                .rowState(row: 9, id: id, state: .downloaded),
                #"{"t":1.500000,"ev":"row.state","row":9,"id":42,"state":"downloaded"}"#
            )
        case .rowStatus:
            (
                .rowStatus(row: 9, id: id, text: "Not found (404)", retry: false),
                #"{"t":1.500000,"ev":"row.status","row":9,"id":42,"text":"Not found (404)","retry":false}"#
            )
        case .rowPreview:
            (
                .rowPreview(row: 2, id: id, source: "exif", w: 160, h: 120, covers: true),
                #"{"t":1.500000,"ev":"row.preview","row":2,"id":42,"source":"exif","w":160,"h":120,"covers":true}"#
            )
        case .rowTooltip:
            (
                .rowTooltip(row: 2, id: id, text: "4000 × 3000"),
                #"{"t":1.500000,"ev":"row.tooltip","row":2,"id":42,"text":"4000 × 3000"}"#
            )
        case .mainloopStall:
            (.mainloopStall(ms: 250), #"{"t":1.500000,"ev":"mainloop.stall","ms":250.000}"#)
        case .ioOnMain:
            (
                .ioOnMain(kind: "index", text: "facts(path:size:modified:)"),
                #"{"t":1.500000,"ev":"io.main","kind":"index","text":"facts(path:size:modified:)"}"#
            )
        case .memoryLow:
            (.memoryLow(level: 255), #"{"t":1.500000,"ev":"memory.low","level":255}"#)
        case .cacheCleared:
            (.cacheCleared(bytes: 1_234_567), #"{"t":1.500000,"ev":"cache.cleared","bytes":1234567}"#)
        case .viewerOpen:
            (
                .viewerOpen(row: 4, id: id, name: "coffee.jpg"),
                #"{"t":1.500000,"ev":"viewer.open","row":4,"id":42,"name":"coffee.jpg"}"#
            )
        case .viewerImage:
            (
                .viewerImage(row: 4, id: id, w: 1024, h: 768, state: .filtered),
                #"{"t":1.500000,"ev":"viewer.image","row":4,"id":42,"w":1024,"h":768,"state":"filtered"}"#
            )
        case .viewerSharp:
            (.viewerSharp(id: id, ms: 42.5), #"{"t":1.500000,"ev":"viewer.sharp","id":42,"ms":42.500}"#)
        case .viewerPlay:
            (.viewerPlay(id: id, ms: 42.5), #"{"t":1.500000,"ev":"viewer.play","id":42,"ms":42.500}"#)
        case .compareOpen: (.compareOpen(count: 3), #"{"t":1.500000,"ev":"compare.open","count":3}"#)
        case .compareImage:
            (
                .compareImage(id: id, w: 800, h: 600, state: .filtered),
                #"{"t":1.500000,"ev":"compare.image","id":42,"w":800,"h":600,"state":"filtered"}"#
            )
        case .compareView:
            (
                .compareView(id: id, level: 0.5, x: 0.25, y: 0.75),
                #"{"t":1.500000,"ev":"compare.view","id":42,"level":0.500,"x":0.250,"y":0.750}"#
            )
        case .compareFocus: (.compareFocus(id: id), #"{"t":1.500000,"ev":"compare.focus","id":42}"#)
        case .compareClose: (.compareClose, #"{"t":1.500000,"ev":"compare.close"}"#)
        case .altTextSaved:
            (
                .altTextSaved(id: id, text: "A cup of coffee", path: "/p/a.jpg.xmp", error: ""),
                #"{"t":1.500000,"ev":"alt-text.saved","id":42,"text":"A cup of coffee","path":"/p/a.jpg.xmp","error":""}"#
            )
        case .editBegin: (.editBegin(id: id), #"{"t":1.500000,"ev":"edit.begin","id":42}"#)
        case .editSaved:
            (
                .editSaved(id: id, path: "/p/a (edited).jpg", lossless: true, w: 640, h: 480, ms: 12.5),
                #"{"t":1.500000,"ev":"edit.saved","id":42,"path":"/p/a (edited).jpg","lossless":true,"w":640,"h":480,"ms":12.500}"#
            )
        case .editSaving: (.editSaving(id: id), #"{"t":1.500000,"ev":"edit.saving","id":42}"#)
        case .editFailed:
            (.editFailed(id: id, error: "No room"), #"{"t":1.500000,"ev":"edit.failed","id":42,"error":"No room"}"#)
        case .viewerFrame:
            (.viewerFrame(row: 4, id: id, frame: 2), #"{"t":1.500000,"ev":"viewer.frame","row":4,"id":42,"frame":2}"#)
        case .viewerStatus:
            (
                .viewerStatus(row: 4, id: id, text: "Not found (404)"),
                #"{"t":1.500000,"ev":"viewer.status","row":4,"id":42,"text":"Not found (404)"}"#
            )
        case .viewerZoom:
            (.viewerZoom(level: 1.25), #"{"t":1.500000,"ev":"viewer.zoom","level":1.250}"#)
        case .viewerClose:
            (.viewerClose(row: 4, id: id), #"{"t":1.500000,"ev":"viewer.close","row":4,"id":42}"#)
        case .viewerPan:
            (.viewerPan(x: 1400, y: 862.5), #"{"t":1.500000,"ev":"viewer.pan","x":1400.000,"y":862.500}"#)
        case .viewerInfo:
            (
                .viewerInfo(
                    shown: true,
                    info: ViewerInfoText(
                        name: "coffee.jpg", source: "/photos/coffee.jpg", width: 400, height: 600,
                        bytes: 56_320, format: "JPEG", camera: "Canon EOS 5D",
                        date: "2021-07-04 18:30:05", profile: "Display P3", place: "Paris, France\n48.85840° N")),
                #"{"t":1.500000,"ev":"viewer.info","shown":true,"name":"coffee.jpg","source":"/photos/coffee.jpg","w":400,"h":600,"bytes":56320,"format":"JPEG","camera":"Canon EOS 5D","date":"2021-07-04 18:30:05","profile":"Display P3","place":"Paris, France\n48.85840° N"}"#
            )
        case .viewerSaved:
            (
                .viewerSaved(path: "/tmp/coffee (sepia).png", format: "png", w: 600, h: 400),
                #"{"t":1.500000,"ev":"viewer.saved","path":"/tmp/coffee (sepia).png","format":"png","w":600,"h":400}"#
            )
        case .viewerSaveFailed:
            (
                .viewerSaveFailed(path: "/tmp/x.png", error: "Permission denied"),
                #"{"t":1.500000,"ev":"viewer.save-failed","path":"/tmp/x.png","error":"Permission denied"}"#
            )
        case .viewerMaps:
            (
                .viewerMaps(address: "geo:48.858400,2.294500", opened: true),
                #"{"t":1.500000,"ev":"viewer.maps","url":"geo:48.858400,2.294500","opened":true}"#
            )
        case .viewerDropped:
            (.viewerDropped(row: 5, id: id), #"{"t":1.500000,"ev":"viewer.dropped","row":5,"id":42}"#)
        case .batchStart:
            (.batchStart(kind: .trash, count: 3), #"{"t":1.500000,"ev":"batch.start","kind":"trash","count":3}"#)
        case .batchProgress:
            (
                .batchProgress(kind: .restore, done: 1, count: 3),
                #"{"t":1.500000,"ev":"batch.progress","kind":"restore","done":1,"count":3}"#
            )
        case .batchEnd:
            (
                .batchEnd(kind: .rotate, done: 2, count: 3, cancelled: true, ms: 12.5),
                #"{"t":1.500000,"ev":"batch.end","kind":"rotate","done":2,"count":3,"cancelled":true,"ms":12.500}"#
            )
        case .fileTrashed:
            (
                .fileTrashed(row: 2, id: id, name: "coffee.jpg"),
                #"{"t":1.500000,"ev":"file.trashed","row":2,"id":42,"name":"coffee.jpg"}"#
            )
        case .fileRestored:
            (
                .fileRestored(row: 2, id: id, name: "coffee.jpg"),
                #"{"t":1.500000,"ev":"file.restored","row":2,"id":42,"name":"coffee.jpg"}"#
            )
        case .fileDeleted:
            (
                .fileDeleted(row: 2, id: id, name: "coffee.jpg"),
                #"{"t":1.500000,"ev":"file.deleted","row":2,"id":42,"name":"coffee.jpg"}"#
            )
        case .viewerRotate:
            (
                .viewerRotate(row: 1, id: id, degrees: -90),
                #"{"t":1.500000,"ev":"viewer.rotate","row":1,"id":42,"degrees":-90}"#
            )
        case .photoMarked:
            (
                .photoMarked(count: 3, rating: -1, label: nil, tags: ["Places|Paris", "a \"quote\""], ms: 2.5),
                #"{"t":1.500000,"ev":"photo.marked","count":3,"rating":-1,"tags":["Places|Paris","a \"quote\""],"ms":2.500}"#
            )
        case .rowMarks:
            (
                .rowMarks(row: 4, id: id, rating: 3, label: "Red", tags: ["Family", "Places|France"]),
                #"{"t":1.500000,"ev":"row.marks","row":4,"id":42,"rating":3,"label":"Red","tags":["Family","Places|France"]}"#
            )
        case .tagsPopover:
            (
                .tagsPopover(shown: true, tags: ["Family"]),
                #"{"t":1.500000,"ev":"tags.popover","shown":true,"tags":["Family"]}"#
            )
        case .filterChanged:
            (
                .filterChanged(shown: 38, total: 412, reading: false, ms: 1.25, elapsed: 80),
                #"{"t":1.500000,"ev":"filter.changed","shown":38,"total":412,"reading":false,"ms":1.250,"elapsed":80.000}"#
            )
        case .searchChanged:
            (
                .searchChanged(query: "paris 2023", shown: 12, total: 412, ms: 8.5),
                #"{"t":1.500000,"ev":"search.changed","query":"paris 2023","shown":12,"total":412,"ms":8.500}"#
            )
        case .searchOpen:
            (.searchOpen, #"{"t":1.500000,"ev":"search.open"}"#)
        case .viewerDetails:
            (
                .viewerDetails(id: PhotoID(rawValue: 7), fields: ["date", "camera", "place"], sheet: false, ms: 12.5),
                #"{"t":1.500000,"ev":"viewer.details","id":7,"fields":["date","camera","place"],"sheet":false,"ms":12.500}"#
            )
        case .slideshowStart:
            (.slideshowStart, #"{"t":1.500000,"ev":"slideshow.start"}"#)
        case .slideshowStop:
            (.slideshowStop, #"{"t":1.500000,"ev":"slideshow.stop"}"#)
        case .noticeShown:
            (
                .noticeShown(text: "Moved to the trash"),
                #"{"t":1.500000,"ev":"notice.shown","text":"Moved to the trash"}"#
            )
        case .framePainted:
            (.framePainted, #"{"t":1.500000,"ev":"frame.painted"}"#)
        }
    }

    @Test("Every event is written as its documented line and reads back as itself", arguments: TraceEvent.Name.allCases)
    func roundTrip(_ name: TraceEvent.Name) throws {
        let (event, line) = Self.example(name)
        #expect(event.name == name)
        #expect(event.jsonLine(t: 1.5) == line)
        let record = try TraceRecord(jsonLine: line)
        #expect(record == TraceRecord(t: 1.5, event: event))
    }

    @Test("viewer.info leaves out the camera and date a photo has no EXIF for, and reads back without them")
    func infoWithoutExif() throws {
        let event = TraceEvent.viewerInfo(shown: false, info: ViewerInfoText(name: "a.png", source: "/a.png"))
        let line = event.jsonLine(t: 0)
        #expect(
            line
                == #"{"t":0.000000,"ev":"viewer.info","shown":false,"name":"a.png","source":"/a.png","w":0,"h":0,"bytes":0,"format":""}"#
        )
        #expect(try TraceRecord(jsonLine: line).event == event)
    }

    @Test("viewer.image writes frames only for an animation, and reads back 0 without it")
    func imageFrames() throws {
        let animated = TraceEvent.viewerImage(row: 1, id: Self.id, w: 64, h: 48, state: .original, frames: 3)
        let line = animated.jsonLine(t: 0)
        #expect(
            line == #"{"t":0.000000,"ev":"viewer.image","row":1,"id":42,"w":64,"h":48,"state":"original","frames":3}"#)
        #expect(try TraceRecord(jsonLine: line).event == animated)
        #expect(try TraceRecord(jsonLine: line).event.frames == 3)
        let still = TraceEvent.viewerImage(row: 1, id: Self.id, w: 64, h: 48, state: .original)
        #expect(!still.jsonLine(t: 0).contains("frames"))
        #expect(try TraceRecord(jsonLine: still.jsonLine(t: 0)).event.frames == 0)
    }

    @Test("Names are the contract's: unique, dotted, lower case")
    func names() {
        let raw = TraceEvent.Name.allCases.map(\.rawValue)
        #expect(Set(raw).count == raw.count)
        #expect(raw.allSatisfy { $0.contains(".") && $0 == $0.lowercased() })
        #expect(TraceEvent.Name(rawValue: "op.fail") == .opFail)
    }

    @Test("Strings with quotes, back-slashes, control characters and any script survive the line")
    func escaping() throws {
        let text = "\"quoted\" \\ back\u{1}\u{1f}\r\n\t é 漢字 🐟"
        let event = TraceEvent.rowStatus(row: 0, id: Self.id, text: text, retry: true)
        let line = event.jsonLine(t: 0)
        #expect(!line.contains("\n") && !line.contains("\u{1}"))
        #expect(line.contains(#"\u0001\u001f\r\n\t"#))
        #expect(try TraceRecord(jsonLine: line).event.text == text)
    }

    @Test("Times keep microseconds; identities keep all 64 bits")
    func numbers() throws {
        let big = PhotoID(rawValue: UInt64.max - 5)
        let record = try TraceRecord(
            jsonLine: TraceEvent.rowState(row: 1, id: big, state: .new).jsonLine(t: 1234.567891))
        #expect(record.t == 1234.567891)
        #expect(record.event == .rowState(row: 1, id: big, state: .new))
    }

    @Test("An unknown event reads as other, fields dropped, and is written as its name alone")
    func unknownEvent() throws {
        let record = try TraceRecord(jsonLine: #"{"t":2.000000,"ev":"slideshow.tick","level":1.5,"row":3}"#)
        #expect(record == TraceRecord(t: 2, event: .other(name: "slideshow.tick")))
        #expect(record.event.name == nil)
        #expect(record.event.row == nil)
        #expect(record.event.jsonLine(t: 2) == #"{"t":2.000000,"ev":"slideshow.tick"}"#)
    }

    @Test("Fields may come in any order; a time that is not finite reads as NaN")
    func fieldOrderAndNull() throws {
        let record = try TraceRecord(jsonLine: #"{"ms":null,"ev":"mainloop.stall","t":3}"#)
        #expect(record.t == 3)
        #expect(record.event.name == .mainloopStall)
        #expect(record.event.ms?.isNaN == true)
        #expect(
            TraceEvent.mainloopStall(ms: .infinity).jsonLine(t: 0) == #"{"t":0.000000,"ev":"mainloop.stall","ms":null}"#
        )
    }

    @Test("A known event with a field missing or of the wrong type, or a line that is not JSON, does not read")
    func malformed() {
        #expect(throws: (any Error).self) {
            try TraceRecord(jsonLine: #"{"t":1,"ev":"op.start","kind":"download","row":3}"#)
        }
        #expect(throws: (any Error).self) {
            try TraceRecord(jsonLine: #"{"t":1,"ev":"row.state","row":"3","id":1,"state":"new"}"#)
        }
        #expect(throws: (any Error).self) {
            try TraceRecord(jsonLine: #"{"t":1,"ev":"row.state","row":3,"id":1,"state":"gone"}"#)
        }
        #expect(throws: (any Error).self) {
            try TraceRecord(jsonLine: #"{"t":1,"ev":"scroll.begin","via":"telepathy"}"#)
        }
        #expect(throws: (any Error).self) { try TraceRecord(jsonLine: #"{"t":1,"ev":"app.qu"#) }
    }

    @Test("A trace's text reads line by line, skipping blank and unreadable lines")
    func records() {
        let lines = [TraceEvent.appStart(version: "1"), .windowShown, .appQuit].enumerated()
            .map { $0.element.jsonLine(t: Double($0.offset)) }
        let text = lines[0] + "\n\n" + lines[1] + "\nnot json\n" + lines[2] + "\n" + #"{"t":9,"ev":"op.st"#
        #expect(TraceRecord.records(in: text).map(\.event) == [.appStart(version: "1"), .windowShown, .appQuit])
        #expect(TraceRecord.records(in: text).map(\.t) == [0, 1, 2])
    }

    @Test("What emit buffers is the same line with its break, appended")
    func emitsTheSameLines() {
        var buffer = "earlier\n"
        for name in TraceEvent.Name.allCases { Self.example(name).event.append(to: &buffer, t: 1.5) }
        #expect(buffer == "earlier\n" + TraceEvent.Name.allCases.map { Self.example($0).line + "\n" }.joined())
    }
}
