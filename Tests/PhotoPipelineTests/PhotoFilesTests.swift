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

    @Test(
        "A Live Photo's clip goes to the trash with its still, comes back with it, and is deleted with it; a clip alone, a still alone, or a clip two stills share goes alone"
    )
    func livePhotoPair() throws {
        let folder = try TestPictures.makeFolder("trash-live")
        defer { try? FileManager.default.removeItem(at: folder) }
        func write(_ name: String) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try Data(name.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let still = try write("IMG_0001.HEIC")
        let clip = try write("IMG_0001.MOV")
        let plain = try write("IMG_0002.JPG")
        let lone = try write("IMG_0003.mov")
        #expect(LivePhoto.withClips([still, plain, lone]) == [still, clip, plain, lone])

        let trashes = PhotoFiles.TrashFolders()
        let pair = try trashes.trash(still).get()
        #expect(!FileManager.default.fileExists(atPath: still) && !FileManager.default.fileExists(atPath: clip))
        let companion = try #require(pair.companions.first, "the clip went with its still")
        #expect(pair.companions.count == 1 && companion.originalPath == clip)
        #expect(try String(contentsOfFile: try #require(companion.trashedPath), encoding: .utf8) == "IMG_0001.MOV")
        try PhotoFiles.restore(pair).get()
        #expect(try String(contentsOfFile: still, encoding: .utf8) == "IMG_0001.HEIC")
        #expect(try String(contentsOfFile: clip, encoding: .utf8) == "IMG_0001.MOV")
        #expect(!FileManager.default.fileExists(atPath: companion.trashedPath!))
        #expect(!FileManager.default.fileExists(atPath: companion.infoPath!))

        // Alone: a still without a clip, a clip whose still is elsewhere.
        for path in [plain, lone] {
            let item = try trashes.trash(path).get()
            #expect(item.companions.isEmpty)
            try PhotoFiles.restore(item).get()
        }
        // The clip opened by itself goes alone; its still stays.
        let clipAlone = try trashes.trash(clip).get()
        #expect(clipAlone.companions.isEmpty && FileManager.default.fileExists(atPath: still))
        try PhotoFiles.restore(clipAlone).get()

        // A JPEG made of the HEIC beside it: the clip is both stills', and goes with neither.
        let copy = try write("IMG_0001.JPG")
        #expect(LivePhoto.withClips([copy]) == [copy])
        let copyTrashed = try trashes.trash(copy).get()
        #expect(copyTrashed.companions.isEmpty && FileManager.default.fileExists(atPath: clip))
        try PhotoFiles.restore(copyTrashed).get()
        try PhotoFiles.delete(photoAt: copy).get()
        #expect(FileManager.default.fileExists(atPath: clip) && FileManager.default.fileExists(atPath: still))

        try PhotoFiles.delete(photoAt: still).get()
        #expect(!FileManager.default.fileExists(atPath: still) && !FileManager.default.fileExists(atPath: clip))
        #expect(FileManager.default.fileExists(atPath: plain) && FileManager.default.fileExists(atPath: lone))
    }

    @Test(
        "A photo's sidecars go to the trash with it, come back with it, and are deleted with it; Lightroom's IMG_1.xmp stays while a RAW and a JPEG of that name share it"
    )
    func sidecarsGoAlong() throws {
        let folder = try TestPictures.makeFolder("trash-sidecars")
        defer { try? FileManager.default.removeItem(at: folder) }
        func write(_ name: String) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try Data(name.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        // darktable's and digiKam's name, and Lightroom's for a photo alone of its name.
        let photo = try write("IMG_0001.JPG")
        let own = try write("IMG_0001.JPG.xmp")
        let lightroom = try write("IMG_0001.xmp")
        #expect(MarksFiles.ownSidecars(of: photo) == [own, lightroom])
        let trashes = PhotoFiles.TrashFolders()
        let trashed = try trashes.trash(photo).get()
        #expect(Set(trashed.companions.map(\.originalPath)) == [own, lightroom])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "all three in the trash")
        try PhotoFiles.restore(trashed).get()
        for path in [photo, own, lightroom] {
            #expect(try String(contentsOfFile: path, encoding: .utf8) == (path as NSString).lastPathComponent)
        }

        // A RAW and a JPEG shot together: Lightroom's sidecar is shared and stays with the one
        // left; each one's own sidecar goes with it.
        let raw = try write("IMG_0001.CR2")
        let rawOwn = try write("IMG_0001.CR2.xmp")
        #expect(MarksFiles.ownSidecars(of: photo) == [own])
        #expect(MarksFiles.ownSidecars(of: raw) == [rawOwn])
        try PhotoFiles.delete(photoAt: photo).get()
        #expect(!FileManager.default.fileExists(atPath: own))
        #expect(FileManager.default.fileExists(atPath: lightroom) && FileManager.default.fileExists(atPath: rawOwn))
        // The RAW alone now: Lightroom's sidecar is its own, and goes with it.
        try PhotoFiles.delete(photoAt: raw).get()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test(
        "A row's mark of its clip is kept as the thumbnail's option and read back: a still, a clip inside, one beside")
    func motionMarks() {
        for mark in [MotionMark.none, .inside, .beside(extension: "MOV"), .beside(extension: "mov")] {
            #expect(MotionMark(option: mark.option) == mark)
        }
        #expect(MotionMark(option: "yes") == nil)
        #expect(MotionMark(option: ".MOV/../../x") == nil && MotionMark(option: ".jpg") == nil)
        #expect(MotionMark.beside(extension: "MOV").clipPath(besidePhotoAt: "/p/IMG_1.HEIC") == "/p/IMG_1.MOV")
        #expect(MotionMark.inside.clipPath(besidePhotoAt: "/p/PXL_1.MP.jpg") == nil)
    }
}
