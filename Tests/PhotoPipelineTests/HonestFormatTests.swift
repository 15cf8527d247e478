import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// Pictures of kinds nothing here decodes and shared-mime-info does not know: listed, and
/// failing with "Format not supported (…)" rather than vanishing or saying "Not a picture".
@Suite struct HonestFormatTests {
    static let files: [(name: String, bytes: [UInt8], kind: String)] = [
        (
            "sky.hdr", Array("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 1\n".utf8) + [0x80, 0x80, 0x80, 0x80],
            "Radiance HDR"
        ),
        (
            "icon.qoi",
            Array("qoif".utf8) + [0, 0, 0, 1, 0, 0, 0, 1, 3, 0, 0xFE, 0x80, 0x80, 0x80] + [0, 0, 0, 0, 0, 0, 0, 1],
            "QOI"
        ),
        (
            "plain.ff", Array("farbfeld".utf8) + [0, 0, 0, 1, 0, 0, 0, 1] + [UInt8](repeating: 0x80, count: 8),
            "farbfeld"
        ),
        ("render.exr", [0x76, 0x2F, 0x31, 0x01, 2, 0, 0, 0] + [UInt8](repeating: 0, count: 32), "OpenEXR"),
    ]

    @Test("Radiance HDR, QOI, farbfeld and OpenEXR files are listed, and each says its format is not supported")
    func listedAndNamed() throws {
        let folder = try ScratchFolder()
        for file in Self.files { try folder.write(file.name, Data(file.bytes)) }
        try folder.write("notes.txt", "Not a picture\n")
        let names = try readEntries(FolderSource(location: folder.url)).map(\.name)
        #expect(names == ["icon.qoi", "plain.ff", "render.exr", "sky.hdr"])
        for file in Self.files {
            #expect(throws: PhotoFailure.self) {
                try Decoding.picture(.bytes(Data(file.bytes)), size: .square(80), cancellable: Cancellable())
            }
            do {
                _ = try Decoding.picture(.bytes(Data(file.bytes)), size: .square(80), cancellable: Cancellable())
            } catch {
                #expect(error.kind == .formatNotSupported(name: file.kind), "\(file.name): \(error)")
            }
        }
    }
}
