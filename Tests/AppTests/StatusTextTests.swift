@testable import ClassicPhotosUI
import PhotoPipeline
import Testing

/// The words the window shows when a source cannot be read: every way a source fails has a
/// sentence, and the sentence names what failed.
@Suite struct StatusTextTests {
    /// Each kind of failure, with what its sentence must name (nil: it concerns no file).
    static let failures: [(PhotoSourceError, names: String?)] = [
        (.notFound(path: "/photos/gone"), "/photos/gone"),
        (.permissionDenied(path: "/photos/locked"), "/photos/locked"),
        (.unreadable(path: "/photos/bad", detail: "Input/output error"), "/photos/bad"),
        (.notAFolder(path: "/photos/notes.txt"), "/photos/notes.txt"),
        (.notPhotos(path: "/dev/null"), "/dev/null"),
        (.listNotFetched(list: "list.plist", .http(status: 404, phrase: "Not Found")), "list.plist"),
        (.listNotFetched(list: "list.plist", PhotoFailure(.timeout, detail: "The list took too long")), "list.plist"),
        (.notAPropertyList(list: "list.plist"), "list.plist"),
        (.notAPropertyList(list: "list.plist", flaw: .valueWithoutKey), "list.plist"),
        (.notAPropertyList(list: "list.plist", flaw: .markup("Error on line 3")), "list.plist"),
        (.notAPhotoList, nil),
        (.itemNotADictionary(item: 4), "Item 5"),
        (.itemWithoutName(item: 0), "Item 1"),
    ]

    @Test("Every failure has a sentence of its own that names what failed")
    func sentences() {
        let sentences = Self.failures.map { StatusText.sentence($0.0) }
        #expect(Set(sentences).count == sentences.count, "two failures read the same: \(sentences)")
        for ((error, names), sentence) in zip(Self.failures, sentences) {
            #expect(!sentence.isEmpty)
            if let names { #expect(sentence.contains(names), "\(error): \(sentence)") }
        }
        // What the server or the parser said is kept.
        let notFound = PhotoSourceError.listNotFetched(list: "l", .http(status: 404, phrase: "Not Found"))
        #expect(StatusText.sentence(notFound).contains("404"))
        #expect(StatusText.sentence(.notAPropertyList(list: "l", flaw: .markup("Error on line 3"))).contains("line 3"))
    }

    @Test("The status page and the alert show every failed source")
    func pageAndAlert() {
        let errors: [PhotoSourceError] = [.notFound(path: "/a"), .notAFolder(path: "/b")]
        let page = StatusText.page(.failed(errors))
        #expect(page.description?.contains("/a") == true && page.description?.contains("/b") == true)
        let alert = StatusText.alertMessage(errors)
        #expect(alert.contains("/a") && alert.contains("/b"))
        #expect(StatusText.page(.loading).description == nil)
        #expect(StatusText.page(.empty).description?.isEmpty == false)
        #expect(Set([StatusText.page(.loading).title, StatusText.page(.empty).title, page.title]).count == 3)
    }
}
