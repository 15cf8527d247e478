import Foundation
import Testing
import TestSupport

@testable import PhotoPipeline

/// Moving photos to the desktop's trash and back: each trashed photo is found where GLib put
/// it, among the few names GLib gives a name already taken, and put back from there.
@Suite struct PhotoFilesTests {
    @Test("GLib's names for a name already in the trash: .2, .3 before the first dot, or after a name without one")
    func trashNames() {
        #expect(PhotoFiles.trashName("IMG_1.tar.jpg", try: 1) == "IMG_1.tar.jpg")
        #expect(PhotoFiles.trashName("IMG_1.tar.jpg", try: 2) == "IMG_1.2.tar.jpg")
        #expect(PhotoFiles.trashName("noext", try: 3) == "noext.3")
        #expect(PhotoFiles.trashName(".hidden.jpg", try: 2) == ".2.hidden.jpg")
    }

    @Test(
        "Photos of one name from several folders go to the trash each under its own name, are found there, and come back"
    )
    func trashAndRestore() throws {
        let top = try TestPictures.makeFolder("trash-names")
        defer { try? FileManager.default.removeItem(at: top) }
        var paths: [String] = []
        for folder in ["a", "b", "c"] {
            let made = top.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
            for name in ["IMG_1.tar.jpg", "noext"] {
                let path = made.appendingPathComponent(name).path
                try Data("\(folder)/\(name)".utf8).write(to: URL(fileURLWithPath: path))
                paths.append(path)
            }
        }
        let trashes = PhotoFiles.TrashFolders()
        let trashed = try paths.map { try trashes.trash($0).get() }
        for (path, item) in zip(paths, trashed) {
            #expect(!FileManager.default.fileExists(atPath: path))
            let kept = try #require(item.trashedPath, "\(path) was not found in the trash")
            let info = try #require(item.infoPath)
            #expect(
                try String(contentsOfFile: kept, encoding: .utf8)
                    == path.split(separator: "/").suffix(2).joined(separator: "/"))
            #expect(try String(contentsOfFile: info, encoding: .utf8).contains(path.split(separator: "/").last!))
        }
        #expect(Set(trashed.compactMap(\.trashedPath)).count == paths.count, "each in a file of its own")
        // Back where each was, in the reverse order, the trash as it was before.
        for item in trashed.reversed() { #expect(throws: Never.self) { try PhotoFiles.restore(item).get() } }
        for (path, item) in zip(paths, trashed) {
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(
                !FileManager.default.fileExists(atPath: item.infoPath!)
                    && !FileManager.default.fileExists(atPath: item.trashedPath!))
        }
    }
}
