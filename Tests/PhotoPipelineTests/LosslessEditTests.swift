import CGdkPixbuf
import CGLib
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// Turning, flipping and cropping a JPEG without decoding it (`LosslessJPEG`), and saving the
/// result beside or in place of the photo (`EditSaving`): checked against jpegtran (the same
/// transforms, made by libjpeg-turbo's own tool) and against the original's pixels moved.
@Suite struct LosslessEditTests {
    /// The eight ways a picture can lie.
    static let turns = [false, true].flatMap { mirrored in
        (0..<4).map { PictureTurn(mirrored: mirrored, quarterTurns: $0) }
    }

    /// Decoded pixels, three bytes each, as stored (no EXIF orientation applied).
    struct Pixels {
        let width: Int
        let height: Int
        let rgb: [UInt8]

        init(_ jpeg: Data) throws {
            let loader = gdk_pixbuf_loader_new()!
            defer { g_object_unref(UnsafeMutableRawPointer(loader)) }
            let written = jpeg.withUnsafeBytes { gdk_pixbuf_loader_write(loader, $0.cBytes, gsize($0.count), nil) }
            try #require(written != 0 && gdk_pixbuf_loader_close(loader, nil) != 0, "the JPEG decodes")
            let pixbuf = try #require(gdk_pixbuf_loader_get_pixbuf(loader))
            width = Int(gdk_pixbuf_get_width(pixbuf))
            height = Int(gdk_pixbuf_get_height(pixbuf))
            let stride = Int(gdk_pixbuf_get_rowstride(pixbuf)), channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
            let pixels = gdk_pixbuf_read_pixels(pixbuf)!
            var rgb = [UInt8](repeating: 0, count: width * height * 3)
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<3 { rgb[(y * width + x) * 3 + c] = pixels[y * stride + x * channels + c] }
                }
            }
            self.rgb = rgb
        }

        /// These pixels turned, as a `width` × `height` array in the turned frame.
        func turned(_ turn: PictureTurn) -> (width: Int, height: Int, rgb: [UInt8]) {
            let size = turn.size(width: width, height: height)
            var out = [UInt8](repeating: 0, count: rgb.count)
            for y in 0..<height {
                for x in 0..<width {
                    let to = turn.place(x: x, y: y, width: width, height: height)
                    for c in 0..<3 { out[(to.y * size.width + to.x) * 3 + c] = rgb[(y * width + x) * 3 + c] }
                }
            }
            return (size.width, size.height, out)
        }
    }

    /// A JPEG of noise (every block different) made by ImageMagick: `sampling` is its chroma
    /// subsampling ("2x2" for 4:2:0, "2x1" 4:2:2, "1x1" 4:4:4).
    static func noise(
        _ folder: ScratchFolder, width: Int, height: Int, sampling: String, quality: Int = 92, progressive: Bool = false
    ) async throws -> URL {
        let url = folder.url.appendingPathComponent("noise-\(width)x\(height)-\(sampling)-\(progressive).jpg")
        let made = try await run(
            URL(fileURLWithPath: "/usr/bin/convert"),
            [
                "-seed", "7", "-size", "\(width)x\(height)", "plasma:fractal", "+noise", "Gaussian", "-type",
                "TrueColor",
                "-sampling-factor", sampling, "-quality", "\(quality)",
            ]
                + (progressive ? ["-interlace", "JPEG"] : []) + [url.path])
        try #require(made.status == 0, "\(made.stderr)")
        return url
    }

    @Test("The eight turns compose as the pictures they move do, and EXIF's orientations are gdk-pixbuf's")
    func turnAlgebra() throws {
        for a in Self.turns {
            #expect(a.turned(clockwise: true).turned(clockwise: false) == a)
            #expect(a.flipped().flipped() == a && a.flipped(vertically: true).flipped(vertically: true) == a)
            for b in Self.turns {
                let both = a.then(b)
                for (x, y) in [(0, 0), (4, 1), (2, 2)] {
                    let first = a.place(x: x, y: y, width: 5, height: 3)
                    let size = a.size(width: 5, height: 3)
                    let second = b.place(x: first.x, y: first.y, width: size.width, height: size.height)
                    #expect(both.place(x: x, y: y, width: 5, height: 3) == second)
                }
            }
        }
        // A 3×2 picture, each pixel its own grey: each orientation's turn moves its pixels
        // where gdk-pixbuf's reading of that orientation puts them.
        let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, 3, 2)!
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf)), pixels = gdk_pixbuf_get_pixels(pixbuf)!
        for y in 0..<2 {
            for x in 0..<3 { (pixels + y * stride + x * 3).initialize(repeating: UInt8(40 * (y * 3 + x)), count: 3) }
        }
        let picture = PhotoImage(taking: pixbuf)
        for orientation in 1...8 {
            let shown = picture.oriented(orientation)
            let turn = PictureTurn(exifOrientation: orientation)
            #expect(turn.size(width: 3, height: 2) == (shown.width, shown.height))
            let shownStride = Int(gdk_pixbuf_get_rowstride(shown.pixbuf)),
                shownPixels = gdk_pixbuf_read_pixels(shown.pixbuf)!
            for y in 0..<2 {
                for x in 0..<3 {
                    let to = turn.place(x: x, y: y, width: 3, height: 2)
                    #expect(
                        shownPixels[to.y * shownStride + to.x * 3] == UInt8(40 * (y * 3 + x)),
                        "orientation \(orientation)")
                }
            }
        }
    }

    @Test(
        "Each turn, with and without a crop, makes the very blocks jpegtran makes (4:2:0, 4:2:2, 4:4:4; sides not whole blocks)",
        arguments: ["2x2", "2x1", "1x1"])
    func sameAsJpegtran(sampling: String) async throws {
        let folder = try ScratchFolder()
        let source = try await Self.noise(folder, width: 328, height: 250, sampling: sampling)
        let original = try Data(contentsOf: source)
        for turn in Self.turns {
            for crop in [nil, PixelRect(x: 37, y: 21, width: 200, height: 150)] {
                let (edited, outcome) = try LosslessJPEG.apply(PhotoEdit(turn: turn, crop: crop), to: original)
                let plan = try #require(
                    LosslessJPEG.Plan(
                        turn: turn, width: 328, height: 250,
                        block: sampling == "2x2" ? (16, 16) : sampling == "2x1" ? (16, 8) : (8, 8),
                        crop: crop))
                var arguments = ["-copy", "all", "-trim"] + Self.jpegtranOperation(turn)
                if let region = plan.region {
                    arguments += ["-crop", "\(region.width)x\(region.height)+\(region.x)+\(region.y)"]
                }
                let reference = folder.url.appendingPathComponent("reference.jpg")
                let made = try await run(
                    URL(fileURLWithPath: "/usr/bin/jpegtran"), arguments + ["-outfile", reference.path, source.path])
                try #require(made.status == 0, "\(made.stderr)")
                let ours = try Pixels(edited), theirs = try Pixels(try Data(contentsOf: reference))
                let same = ours.rgb == theirs.rgb
                #expect(
                    ours.width == theirs.width && ours.height == theirs.height && same,
                    "\(turn) \(String(describing: crop)): \(ours.width)×\(ours.height) against \(theirs.width)×\(theirs.height)"
                )
                #expect(outcome.kept.width == ours.width && outcome.kept.height == ours.height)
                if crop != nil { #expect(outcome.cornerMoved < (sampling == "1x1" ? 8 : 16)) }
            }
        }
    }

    private static func jpegtranOperation(_ turn: PictureTurn) -> [String] {
        switch (turn.mirrored, turn.quarterTurns) {
        case (false, 1): ["-rotate", "90"]
        case (false, 2): ["-rotate", "180"]
        case (false, 3): ["-rotate", "270"]
        case (true, 0): ["-flip", "horizontal"]
        case (true, 1): ["-transverse"]
        case (true, 2): ["-flip", "vertical"]
        case (true, 3): ["-transpose"]
        default: []
        }
    }

    @Test(
        "What is kept is the photo's own pixels, moved where the turn puts them and cut where the crop says, EXIF-turned photos too",
        arguments: [1, 6, 3, 8, 2, 5])
    func keptPixels(orientation: Int) async throws {
        let folder = try ScratchFolder()
        let source = try await Self.noise(folder, width: 203, height: 141, sampling: "1x1", quality: 98)
        if orientation != 1 {
            let tagged = try await run(
                URL(fileURLWithPath: "/usr/bin/exiftool"),
                ["-q", "-overwrite_original", "-n", "-Orientation=\(orientation)", source.path])
            try #require(tagged.status == 0, "\(tagged.stderr)")
        }
        let original = try Data(contentsOf: source)
        let stored = try Pixels(original)
        for edit in [
            PhotoEdit(turn: PictureTurn(quarterTurns: 1), crop: PixelRect(x: 19, y: 35, width: 90, height: 70)),
            PhotoEdit(turn: PictureTurn(mirrored: true), crop: PixelRect(x: 50, y: 9, width: 64, height: 100)),
            PhotoEdit(turn: PictureTurn(mirrored: true, quarterTurns: 3)),
        ] {
            let (edited, outcome) = try LosslessJPEG.apply(edit, to: original)
            #expect(ExifOrientation.orientation(of: edited) == 1)
            let result = try Pixels(edited)
            // The stored pixels turned to show upright, then as the edit says.
            let expected = stored.turned(PictureTurn(exifOrientation: orientation).then(edit.turn))
            var total = 0, largest = 0
            for y in 0..<result.height {
                for x in 0..<result.width {
                    for c in 0..<3 {
                        let a = Int(result.rgb[(y * result.width + x) * 3 + c])
                        let b = Int(expected.rgb[((outcome.kept.y + y) * expected.width + outcome.kept.x + x) * 3 + c])
                        total += abs(a - b)
                        largest = max(largest, abs(a - b))
                    }
                }
            }
            // Blocks moved whole decode as they did, within the IDCT's rounding; a pixel out of
            // place in noise would be tens of levels off.
            let mean = Double(total) / Double(result.width * result.height * 3)
            #expect(mean < 0.5 && largest <= 3, "orientation \(orientation), \(edit): mean \(mean), largest \(largest)")
            if let crop = edit.crop {
                #expect(outcome.kept.x <= crop.x && outcome.kept.y <= crop.y && outcome.cornerMoved < 8)
                #expect(outcome.kept.x + outcome.kept.width == crop.x + crop.width)
                #expect(outcome.kept.y + outcome.kept.height == crop.y + crop.height)
            }
        }
    }

    @Test(
        "EXIF, XMP and the ICC profile are kept, the EXIF's size made the new one and its thumbnail of the photo before taken out; a progressive photo stays progressive"
    )
    func keepsMetadata() async throws {
        let folder = try ScratchFolder()
        let source = try await Self.noise(folder, width: 160, height: 120, sampling: "2x2", progressive: true)
        let thumbnail = try await Self.noise(folder, width: 40, height: 30, sampling: "2x2")
        let tagged = try await run(
            URL(fileURLWithPath: "/usr/bin/exiftool"),
            [
                "-q", "-overwrite_original", "-Make=Canon", "-XMP-dc:Creator=Ada Lovelace", "-n", "-Orientation=6",
                "-ExifIFD:ExifImageWidth=160", "-ExifIFD:ExifImageHeight=120", "-ThumbnailImage<=\(thumbnail.path)",
                "-XMP-tiff:Orientation=6",
                "-ICC_Profile<=/usr/share/color/icc/ghostscript/a98.icc", source.path,
            ])
        try #require(tagged.status == 0, "\(tagged.stderr)")
        // Turned upright from orientation 6, its 120 rows (7½ blocks) lose their partial block:
        // the crop's corner at 24 lies on the grid, 8 pixels in.
        let (edited, outcome) = try LosslessJPEG.apply(
            PhotoEdit(crop: PixelRect(x: 24, y: 16, width: 64, height: 64)), to: try Data(contentsOf: source))
        #expect(
            outcome
                == LosslessJPEG.Outcome(
                    kept: PixelRect(x: 24, y: 16, width: 64, height: 64), cornerMoved: 0, edgeDropped: 0))
        let result = folder.url.appendingPathComponent("edited.jpg")
        try edited.write(to: result)
        let read = try await run(
            URL(fileURLWithPath: "/usr/bin/exiftool"),
            [
                "-s3", "-n", "-Make", "-XMP-dc:Creator", "-EXIF:Orientation", "-XMP-tiff:Orientation", "-ImageWidth",
                "-ExifImageWidth", "-ExifImageHeight", "-ThumbnailLength", result.path,
            ])
        #expect(read.stdout.split(separator: "\n") == ["Canon", "Ada Lovelace", "1", "1", "64", "64", "64"])
        let profile = try await run(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-b", "-ICC_Profile", result.path])
        let a98 = try String(
            decoding: Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/ghostscript/a98.icc")), as: UTF8.self)
        #expect(profile.stdout == a98)
        #expect(ProgressiveJPEG.isProgressive([UInt8](edited.prefix(4096))))
    }

    @Test("Saved as a copy beside the photo, under a name of its own, the photo untouched and nothing else left behind")
    func savesCopies() async throws {
        let folder = try ScratchFolder()
        let source = try await Self.noise(folder, width: 96, height: 64, sampling: "2x2")
        let photo = folder.url.appendingPathComponent("IMG_1.jpg")
        try FileManager.default.moveItem(at: source, to: photo)
        chmod(photo.path, 0o640)
        let before = try Data(contentsOf: photo)
        let edit = PhotoEdit(turn: PictureTurn(quarterTurns: 1))
        let first = try EditSaving.save(photo.path, edit: edit, mode: .copy).get()
        let second = try EditSaving.save(photo.path, edit: edit, mode: .copy, edited: "bearbeitet").get()
        #expect(first.path == folder.url.appendingPathComponent("IMG_1 (edited).jpg").path)
        #expect(second.path == folder.url.appendingPathComponent("IMG_1 (bearbeitet).jpg").path)
        let third = try EditSaving.save(photo.path, edit: edit, mode: .copy).get()
        #expect(third.path == folder.url.appendingPathComponent("IMG_1 (edited 2).jpg").path)
        #expect(try Data(contentsOf: photo) == before)
        #expect(try Pixels(try Data(contentsOf: URL(fileURLWithPath: first.path))).width == 64)
        var status = stat()
        #expect(stat(first.path, &status) == 0 && status.st_mode & 0o777 == 0o640)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        #expect(names == ["IMG_1 (bearbeitet).jpg", "IMG_1 (edited 2).jpg", "IMG_1 (edited).jpg", "IMG_1.jpg"])
    }

    @Test(
        "Save As writes where chosen, the photo's folder untouched; a file there already goes to the trash first and Undo brings it back; the photo itself chosen saves in place; an unwritable folder is said to be one"
    )
    func savesAs() async throws {
        let folder = try ScratchFolder()
        let photos = folder.url.appendingPathComponent("photos"), other = folder.url.appendingPathComponent("other")
        for made in [photos, other] {
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
        }
        let photo = photos.appendingPathComponent("IMG_5.jpg")
        try FileManager.default.moveItem(
            at: try await Self.noise(folder, width: 96, height: 64, sampling: "2x2"), to: photo)
        let before = try Data(contentsOf: photo)
        let chosen = other.appendingPathComponent("chosen.jpg")
        let edit = PhotoEdit(turn: PictureTurn(quarterTurns: 1))
        let fresh = try EditSaving.save(photo.path, edit: edit, mode: .copy, destination: chosen.path).get()
        #expect(fresh.path == chosen.path && fresh.trashed == nil && fresh.lossless)
        #expect(try Pixels(try Data(contentsOf: chosen)).width == 64)
        #expect(try FileManager.default.contentsOfDirectory(atPath: photos.path) == ["IMG_5.jpg"])
        #expect(try Data(contentsOf: photo) == before)

        // A file already there, which the person agreed to replace: kept in the trash first,
        // and Undo brings it back.
        let trash = folder.url.appendingPathComponent("Trash")
        for part in ["files", "info"] {
            try FileManager.default.createDirectory(
                at: trash.appendingPathComponent(part), withIntermediateDirectories: true)
        }
        let older = try Data(contentsOf: chosen)
        let over = try EditSaving.save(
            photo.path, edit: PhotoEdit(turn: PictureTurn(mirrored: true)), mode: .copy, trashes: [trash.path],
            destination: chosen.path
        ).get()
        #expect(over.path == chosen.path)
        let trashed = try #require(over.trashed)
        #expect(try Data(contentsOf: URL(fileURLWithPath: try #require(trashed.trashedPath))) == older)
        #expect(try Pixels(try Data(contentsOf: chosen)).width == 96)
        try EditSaving.takeBack(over).get()
        #expect(try Data(contentsOf: chosen) == older)
        #expect(try FileManager.default.contentsOfDirectory(atPath: other.path) == ["chosen.jpg"])

        // A name chosen without the photo's kind of extension gets it.
        #expect(EditSaving.destination("/p/beach", for: "/q/IMG_1.JPG") == "/p/beach.JPG")
        // A name the photo's ending is added to, taken already: nobody agreed to replace that file.
        let taken = other.appendingPathComponent("taken.jpg")
        try Data("kept".utf8).write(to: taken)
        guard
            case .failure(let refusal) = EditSaving.save(
                photo.path, edit: edit, mode: .copy, destination: taken.deletingPathExtension().path)
        else {
            Issue.record("a file nobody agreed to replace was replaced")
            return
        }
        #expect(refusal.message.contains("there already"))
        #expect(try Data(contentsOf: taken) == Data("kept".utf8))
        #expect(EditSaving.destination("/p/beach.png", for: "/q/IMG_1.jpg") == "/p/beach.png.jpg")
        #expect(EditSaving.destination("/p/beach.jpeg", for: "/q/IMG_1.jpg") == "/p/beach.jpeg")
        #expect(EditSaving.destination("/p/scan.TIF", for: "/q/scan.tiff") == "/p/scan.TIF")
        #expect(EditSaving.destination("/p/cat.png", for: "/q/cat.png") == "/p/cat.png")

        // The photo itself, by another spelling of its path: saved in place, the original kept.
        let same = other.appendingPathComponent("../photos/IMG_5.jpg").path
        let inPlace = try EditSaving.save(
            photo.path, edit: edit, mode: .copy, trashes: [trash.path], destination: same
        ).get()
        #expect(inPlace.path == photo.path && inPlace.trashed != nil)
        #expect(try Pixels(try Data(contentsOf: photo)).width == 64)

        // A folder that cannot be written, even by root (whom a folder's permissions do not
        // stop): sysfs's top refuses new files with "Permission denied".
        let refused = EditSaving.save(photo.path, edit: edit, mode: .copy, destination: "/sys/edited.jpg")
        guard case .failure(let failure) = refused else { Issue.record("saved into /sys"); return }
        #expect(failure.folderUnwritable, "\(failure.message)")
    }

    @Test(
        "Saved in place, the original goes to the trash (and comes back from it); a trash that fails leaves the photo as it was"
    )
    func replaces() async throws {
        let folder = try ScratchFolder()
        let trash = folder.url.appendingPathComponent("Trash")
        for part in ["files", "info"] {
            try FileManager.default.createDirectory(
                at: trash.appendingPathComponent(part), withIntermediateDirectories: true)
        }
        let photos = folder.url.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let photo = photos.appendingPathComponent("IMG_2.jpg")
        try FileManager.default.moveItem(
            at: try await Self.noise(folder, width: 96, height: 64, sampling: "2x2"), to: photo)
        let before = try Data(contentsOf: photo)

        // No trash to keep the original in: nothing is saved, and the person is told to save
        // a copy (the photo is never moved to a trash first and then written over).
        let refused = EditSaving.save(
            photo.path, edit: PhotoEdit(turn: PictureTurn(mirrored: true)), mode: .replace, trashes: [])
        guard case .failure(let failure) = refused else { Issue.record("saved with no trash"); return }
        #expect(failure.message.contains("save a copy"), "\(failure.message)")
        #expect(try Data(contentsOf: photo) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: photos.path) == ["IMG_2.jpg"])

        var status = stat()
        try #require(stat(photo.path, &status) == 0)
        let inode = status.st_ino
        let saved = try EditSaving.save(
            photo.path, edit: PhotoEdit(turn: PictureTurn(quarterTurns: 3)), mode: .replace, trashes: [trash.path]
        ).get()
        #expect(saved.path == photo.path)
        // The very file is in the trash (a second name of it, made before the new file took
        // the photo's name), with the .trashinfo GLib and the desktop read.
        try #require(stat(try #require(saved.trashed?.trashedPath), &status) == 0)
        #expect(status.st_ino == inode)
        let info = try String(contentsOfFile: try #require(saved.trashed?.infoPath), encoding: .utf8)
        #expect(info.hasPrefix("[Trash Info]\nPath=\(photo.path)\nDeletionDate=20"), "\(info)")
        #expect(PhotoFiles.originalPath(inInfo: try #require(saved.trashed?.infoPath), trash: trash.path) == photo.path)
        #expect(try Pixels(try Data(contentsOf: photo)).width == 64)
        let trashed = try #require(saved.trashed)
        #expect(try Data(contentsOf: URL(fileURLWithPath: try #require(trashed.trashedPath))) == before)
        // Undo: the edited file aside, the original back.
        try FileManager.default.removeItem(at: photo)
        try PhotoFiles.restore(trashed).get()
        #expect(try Data(contentsOf: photo) == before)
    }

    @Test(
        "A PNG, a TIFF and a WebP are turned and cut from their decoded pixels and saved again in their own format",
        arguments: ["png", "tiff", "webp"])
    func otherFormats(format: String) async throws {
        let folder = try ScratchFolder()
        let photo = folder.url.appendingPathComponent("picture.\(format)")
        let made = try await run(
            URL(fileURLWithPath: "/usr/bin/convert"),
            [
                "-seed", "9", "-size", "203x141", "plasma:fractal", "-blur", "0x1", "-depth", "8", "-strip", "-define",
                "png:exclude-chunk=gAMA,cHRM,sRGB,bKGD", "-quality", "100", photo.path,
            ])
        try #require(made.status == 0, "\(made.stderr)")
        let before = try Pixels(try Data(contentsOf: photo))
        let edit = PhotoEdit(turn: PictureTurn(quarterTurns: 1), crop: PixelRect(x: 10, y: 20, width: 100, height: 80))
        let saved = try EditSaving.save(photo.path, edit: edit, mode: .copy).get()
        #expect(saved.path == folder.url.appendingPathComponent("picture (edited).\(format)").path)
        #expect(!saved.lossless && saved.outcome.kept == edit.crop)
        var width: Int32 = 0, height: Int32 = 0
        let written = try #require(gdk_pixbuf_get_file_info(saved.path, &width, &height))
        #expect(String(cString: gdk_pixbuf_format_get_name(written)) == format && width == 100 && height == 80)
        let after = try Pixels(try Data(contentsOf: URL(fileURLWithPath: saved.path)))
        let expected = before.turned(edit.turn)
        var total = 0, largest = 0
        for y in 0..<80 {
            for x in 0..<100 {
                for c in 0..<3 {
                    let a = Int(after.rgb[(y * 100 + x) * 3 + c])
                    let b = Int(expected.rgb[((20 + y) * expected.width + 10 + x) * 3 + c])
                    total += abs(a - b)
                    largest = max(largest, abs(a - b))
                }
            }
        }
        let mean = Double(total) / Double(100 * 80 * 3)
        // PNG and TIFF keep every pixel; WebP is encoded again.
        if format == "webp" { #expect(mean < 3, "mean \(mean)") } else { #expect(largest == 0, "largest \(largest)") }
    }

    @Test(
        "Saved in place, the original is kept in a trash that already holds 1,200 photos of its name, and in the photo's own file system's top-level trash (made as GLib makes it) when the home trash is on another"
    )
    func keepsOriginalInAnyTrash() async throws {
        let folder = try ScratchFolder()
        let trash = folder.url.appendingPathComponent("Trash")
        for part in ["files", "info"] {
            try FileManager.default.createDirectory(
                at: trash.appendingPathComponent(part), withIntermediateDirectories: true)
        }
        let photo = folder.url.appendingPathComponent("IMG_4.jpg")
        try FileManager.default.moveItem(
            at: try await Self.noise(folder, width: 96, height: 64, sampling: "2x2"), to: photo)
        // GLib's names for it, taken (the old limit of 1,000 then moved the photo to the trash
        // before its new file was written over its name).
        for attempt in 1...1_200 {
            let name = PhotoFiles.trashName("IMG_4.jpg", try: attempt) + ".trashinfo"
            try Data().write(to: trash.appendingPathComponent("info").appendingPathComponent(name))
        }
        let before = try Data(contentsOf: photo)
        let crowded = try EditSaving.save(
            photo.path, edit: PhotoEdit(turn: PictureTurn(quarterTurns: 1)), mode: .replace, trashes: [trash.path]
        ).get()
        #expect(crowded.trashed?.trashedPath == trash.path + "/files/IMG_4.1201.jpg")
        #expect(try Data(contentsOf: URL(fileURLWithPath: try #require(crowded.trashed?.trashedPath))) == before)
        #expect(try Pixels(try Data(contentsOf: photo)).width == 64)

        // A photo on another file system (tmpfs here, a USB disk at home): the home trash
        // cannot take a second name of it; the top of its own file system gets a trash.
        var home = stat(), other = stat()
        try #require(stat(trash.path, &home) == 0 && stat("/dev/shm", &other) == 0)
        try #require(home.st_dev != other.st_dev, "/dev/shm is a file system of its own")
        let top = "/dev/shm/.Trash-\(getuid())"
        let hadTrash = FileManager.default.fileExists(atPath: top)
        let away = URL(fileURLWithPath: "/dev/shm/classic-photos-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: away, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: away)
            if !hadTrash { try? FileManager.default.removeItem(atPath: top) }
        }
        let moved = away.appendingPathComponent("IMG_5.jpg")
        try FileManager.default.copyItem(at: photo, to: moved)
        let trashes = EditSaving.keepingTrashes(for: moved.path)
        #expect(trashes.last == top, "\(trashes)")
        let saved = try EditSaving.save(
            moved.path, edit: PhotoEdit(turn: PictureTurn(quarterTurns: 1)), mode: .replace,
            trashes: [trash.path] + trashes
        ).get()
        let kept = try #require(saved.trashed)
        defer {
            kept.trashedPath.map { _ = unlink($0) }
            kept.infoPath.map { _ = unlink($0) }
        }
        #expect(kept.trashedPath?.hasPrefix(top + "/files/IMG_5") == true, "\(kept)")
        let info = try String(contentsOfFile: try #require(kept.infoPath), encoding: .utf8)
        #expect(info.hasPrefix("[Trash Info]\nPath=\(away.lastPathComponent)/IMG_5.jpg\n"), "\(info)")
        #expect(PhotoFiles.originalPath(inInfo: try #require(kept.infoPath), trash: top) == moved.path)
        // The copy of the turned photo, turned once more.
        #expect(try Pixels(try Data(contentsOf: moved)).width == 96)
        // Undo puts it back.
        try EditSaving.takeBack(saved).get()
        #expect(try Pixels(try Data(contentsOf: moved)).width == 64)
    }

    /// Waits until `count` changes (a file made, written, its mode set, closed, moved or
    /// removed) have been made in `folders`, or the probe whose output `pipe` reads has ended
    /// (a save failed); returns the output read meanwhile.
    private static func waitForChanges(_ count: Int, in folders: [URL], reading pipe: FileHandle) -> Data {
        var output = Data()
        let watch = inotify_init1(Int32(IN_CLOEXEC))
        guard watch >= 0 else { return output }
        defer { close(watch) }
        let mask = IN_CREATE | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE
        for folder in folders { inotify_add_watch(watch, folder.path, UInt32(mask)) }
        var seen = 0
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while seen < count {
            var ready = [
                pollfd(fd: watch, events: Int16(POLLIN), revents: 0),
                pollfd(fd: pipe.fileDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&ready, 2, -1) > 0 else { continue }
            if ready[1].revents != 0 {
                let chunk = pipe.availableData
                if chunk.isEmpty { return output } // ended
                output.append(chunk)
            }
            guard ready[0].revents != 0 else { continue }
            let length = read(watch, &buffer, buffer.count)
            guard length > 0 else { return output }
            var offset = 0
            // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name.
            while offset + 16 <= length {
                seen += 1
                offset +=
                    16 + Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) })
            }
        }
        return output
    }

    @Test(
        "Killed at any step of saving (20 times, as a copy and in place), the photo is whole, and so is every file saved"
    )
    func killedWhileSaving() async throws {
        let folder = try ScratchFolder()
        let photos = folder.url.appendingPathComponent("photos")
        let dataHome = folder.url.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let photo = photos.appendingPathComponent("IMG_3.jpg")
        try FileManager.default.moveItem(
            at: try await Self.noise(folder, width: 1600, height: 1200, sampling: "2x2"), to: photo)
        let trash = dataHome.appendingPathComponent("Trash/files")
        for part in ["files", "info"] {
            try FileManager.default.createDirectory(
                at: dataHome.appendingPathComponent("Trash/" + part), withIntermediateDirectories: true)
        }
        var random = SplitMix64(state: 20)
        var saves = 0
        for round in 0..<20 {
            let mode = round % 2 == 0 ? "copy" : "replace"
            // Killed just after one of the changes to the folders a save makes (the temporary
            // file made, written, its mode set, closed; the .trashinfo; the second name in the
            // trash; the rename), a different one each round, as inotify reports them.
            let changes = Int(1 + random.next() % 24)
            let output = try await onOwnThread {
                let process = Process()
                process.executableURL = Products.executable("glibkit-probe")
                process.arguments = ["edit-save", photo.path, mode]
                process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": dataHome.path]) {
                    $1
                }
                let pipe = Pipe()
                process.standardOutput = pipe
                try process.run()
                // Once it saves (a loaded machine takes a while to start it and its decoder
                // helper), the changes of the saves that follow are counted.
                var output = Data()
                while !output.contains(UInt8(ascii: "\n")) {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    output.append(chunk)
                }
                output.append(
                    Self.waitForChanges(
                        changes, in: [photos, trash, dataHome.appendingPathComponent("Trash/info")],
                        reading: pipe.fileHandleForReading))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                output.append(pipe.fileHandleForReading.readDataToEndOfFile())
                return String(decoding: output, as: UTF8.self)
            }
            saves += output.split(separator: "\n").count
            // The photo is whole, as it was or turned.
            let shown = try Pixels(try Data(contentsOf: photo))
            #expect(Set([shown.width, shown.height]) == [1600, 1200], "round \(round)")
            // So is every copy saved, and every version of it in the trash.
            let kept = (try? FileManager.default.contentsOfDirectory(atPath: trash.path)) ?? []
            let saved = try FileManager.default.contentsOfDirectory(atPath: photos.path)
            for (place, names) in [(photos, saved), (trash, kept)] {
                for name in names where !name.hasPrefix(".") && name != "IMG_3.jpg" {
                    let file = place.appendingPathComponent(name)
                    #expect((try? Pixels(try Data(contentsOf: file))) != nil, "round \(round): \(name) is whole")
                    try FileManager.default.removeItem(at: file)
                }
            }
        }
        // Every round saved before its kill (the probe did not fail).
        #expect(saves >= 20, "\(saves) saves")
        // What the kills left half written goes with the next save, once it is old enough to
        // be no other save's.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: photos.path).filter {
            $0.hasPrefix(EditSaving.temporaryPrefix)
        }
        for name in leftovers {
            var old = [timeval(tv_sec: time(nil) - 3600, tv_usec: 0), timeval(tv_sec: time(nil) - 3600, tv_usec: 0)]
            utimes(photos.appendingPathComponent(name).path, &old)
        }
        let fresh = photos.appendingPathComponent(EditSaving.temporaryPrefix + "under-way")
        try Data("a save under way".utf8).write(to: fresh)
        _ = try EditSaving.save(photo.path, edit: PhotoEdit(turn: PictureTurn(quarterTurns: 2)), mode: .copy).get()
        let names = try FileManager.default.contentsOfDirectory(atPath: photos.path)
        #expect(names.filter { $0.hasPrefix(EditSaving.temporaryPrefix) } == [fresh.lastPathComponent])
    }

    @Test(
        "Through the decoder helper; a damaged JPEG, a crop outside the photo and a GIF fail with a reason, no helper dies"
    )
    func failures() async throws {
        let folder = try ScratchFolder()
        let jpeg = try Data(contentsOf: try await Self.noise(folder, width: 96, height: 64, sampling: "2x2"))
        let pool = DecoderPool(configuration: AppConfiguration(), maxHelpers: 1, idleSeconds: 30)
        let (edited, outcome) = try Decoding.editedJPEG(
            jpeg, edit: PhotoEdit(turn: PictureTurn(quarterTurns: 2)), pool: pool)
        #expect(outcome.kept.width == 96 && outcome.kept.height == 64 && outcome.edgeDropped == 0)
        #expect(try Pixels(edited).width == 96)
        #expect(throws: PhotoFailure.self) { try Decoding.editedJPEG(jpeg.prefix(300), edit: PhotoEdit(), pool: pool) }
        #expect(throws: PhotoFailure.self) {
            try Decoding.editedJPEG(
                jpeg, edit: PhotoEdit(crop: PixelRect(x: 500, y: 0, width: 10, height: 10)), pool: pool)
        }
        var scrambled = jpeg
        for index in stride(from: 600, to: scrambled.count, by: 13) { scrambled[index] ^= 0xA5 }
        _ = try? Decoding.editedJPEG(scrambled, edit: PhotoEdit(turn: PictureTurn(quarterTurns: 1)), pool: pool)
        #expect(pool.counts.crashed == 0)
        let gif = folder.url.appendingPathComponent("plain.gif")
        let made = try await run(URL(fileURLWithPath: "/usr/bin/convert"), ["-size", "16x16", "xc:red", gif.path])
        try #require(made.status == 0, "\(made.stderr)")
        guard case .failure(let failure) = EditSaving.save(gif.path, edit: PhotoEdit(), mode: .copy) else {
            Issue.record("a GIF was saved")
            return
        }
        #expect(failure.message == "Pictures of this kind cannot be edited")
    }
}
