// libFuzzer entry point for the photo list readers (XML through GMarkup, and the binary
// reader), built only by meson-helpers/sanitizers.sh with -sanitize=fuzzer,address.
import Foundation
@testable import PhotoPipeline

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPropertyList(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    if let list = try? PropertyListParser.parse(data, name: "fuzz") {
        // Every row the reader produced must be usable as it would be in the app.
        precondition(list.names.count == list.links.count)
        for index in 0..<min(list.count, 64) {
            _ = DisplayText.line(list.names[index])
            _ = try? PhotoEntry(name: list.names[index], link: list.links[index],
                                base: PhotoEntryBase(URL(string: "https://example.org/list.plist")!)).resolvedURL()
        }
    }
    return 0
}
