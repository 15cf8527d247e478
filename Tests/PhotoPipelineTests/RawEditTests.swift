import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// A RAW file's edit (`RawEdit`, through `EditSaving`): saved as a JPEG copy of its camera
/// preview, carrying what the RAW file says of the photo, the RAW file never written.
@Suite struct RawEditTests {
    private static let exiftool = URL(fileURLWithPath: "/usr/bin/exiftool")

    /// A DNG in `folder` whose camera held it turned (orientation 6) with a 640 × 480 red
    /// preview, and the facts a camera writes (exposure, lens, GPS, a title) and a RAW
    /// developer's setting, written by exiftool.
    private static func camera(in folder: ScratchFolder) async throws -> URL {
        let preview = try #require(CameraFiles.jpeg(width: 640, height: 480, rgb: 0xCC3333))
        let dng = folder.url.appendingPathComponent("IMG_0001.DNG")
        try CameraFiles.dng(
            preview: preview, previewWidth: 640, previewHeight: 480, width: 640, height: 480, orientation: 6,
            dateTime: "2021:07:04 18:30:05"
        ).write(to: dng)
        let tagged = try await run(
            exiftool,
            [
                "-q", "-overwrite_original", "-ExifIFD:ExposureTime=1/250", "-ExifIFD:FNumber=2.8", "-ExifIFD:ISO=200",
                "-ExifIFD:DateTimeOriginal=2021:07:04 18:30:05", "-ExifIFD:LensModel=RF 35mm F1.8",
                "-GPSLatitude=48.8566", "-GPSLatitudeRef=N", "-GPSLongitude=2.3522", "-GPSLongitudeRef=E",
                "-XMP-dc:Title=Pont Neuf", "-XMP-crs:Exposure2012=+0.50", dng.path,
            ])
        try #require(tagged.status == 0, "\(tagged.stderr)")
        return dng
    }

    @Test(
        "A RAW file's edit is a JPEG beside it, its preview turned without decoding, with the camera's facts and none of the RAW's own layout"
    )
    func savedAsJPEG() async throws {
        let folder = try ScratchFolder()
        let dng = try await Self.camera(in: folder)
        let before = try Data(contentsOf: dng)
        // Upright the preview is 480 × 640; a quarter turn more lays it 640 × 480 (whole blocks:
        // nothing trimmed).
        let saved = try EditSaving.save(dng.path, edit: PhotoEdit(turn: PictureTurn(quarterTurns: 1)), mode: .copy)
            .get()
        #expect(saved.path == folder.url.appendingPathComponent("IMG_0001 (edited).jpg").path)
        #expect(saved.lossless && saved.trashed == nil)
        #expect(saved.outcome.kept.width == 640 && saved.outcome.kept.height == 480, "\(saved.outcome)")
        #expect(try Data(contentsOf: dng) == before, "the RAW file as it was")
        let file = try Data(contentsOf: URL(fileURLWithPath: saved.path))
        #expect(PictureSignature.isJPEG(file.prefix(4)))
        let read = try await run(
            Self.exiftool,
            [
                "-s", "-n", "-Make", "-Model", "-EXIF:Orientation", "-ImageWidth", "-ImageHeight", "-ExifImageWidth",
                "-ExifImageHeight", "-ExposureTime", "-FNumber", "-ISO", "-DateTimeOriginal", "-LensModel",
                "-GPSLatitude", "-GPSLongitude", "-XMP-dc:Title", "-XMP-crs:all", "-DNGVersion",
                "-UniqueCameraModel", "-ColorMatrix1", "-StripOffsets", saved.path,
            ])
        let facts = Dictionary(
            read.stdout.split(separator: "\n").map { line -> (String, String) in
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { first, _ in first })
        #expect(facts["Make"] == "Test" && facts["Model"] == "Camera", "\(facts)")
        #expect(
            facts["Orientation"] == "1" && facts["ImageWidth"] == "640" && facts["ImageHeight"] == "480", "\(facts)")
        #expect(facts["ExifImageWidth"] == "640" && facts["ExifImageHeight"] == "480")
        #expect(facts["ExposureTime"] == "0.004" && facts["FNumber"] == "2.8" && facts["ISO"] == "200")
        #expect(facts["DateTimeOriginal"] == "2021:07:04 18:30:05" && facts["LensModel"] == "RF 35mm F1.8")
        #expect(
            facts["GPSLatitude"]?.hasPrefix("48.8566") == true && facts["GPSLongitude"]?.hasPrefix("2.3522") == true)
        #expect(facts["Title"] == "Pont Neuf")
        // What only a RAW file has, and a RAW developer's settings, stay behind.
        for raw in ["Exposure2012", "DNGVersion", "UniqueCameraModel", "ColorMatrix1", "StripOffsets"] {
            #expect(facts[raw] == nil, "\(raw) copied: \(facts)")
        }
        // The app's own reader says the same of the copy as of the RAW file.
        let details = try #require(PhotoDetails.read(file))
        #expect(details.dateTaken == "2021:07:04 18:30:05" && details.model == "Camera")
    }

    @Test("A RAW file is never saved over, nor by Save As to its own name; a straightened copy is a JPEG too")
    func neverReplaced() async throws {
        let folder = try ScratchFolder()
        let dng = try await Self.camera(in: folder)
        let before = try Data(contentsOf: dng)
        let edit = PhotoEdit(turn: PictureTurn(quarterTurns: 1))
        for attempt in [
            EditSaving.save(dng.path, edit: edit, mode: .replace),
            EditSaving.save(dng.path, edit: edit, mode: .copy, destination: dng.path),
        ] {
            guard case .failure(let failure) = attempt else {
                Issue.record("saved over the RAW file")
                continue
            }
            #expect(failure.message.contains("RAW"))
        }
        #expect(try Data(contentsOf: dng) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["IMG_0001.DNG"])
        // Save As's name for it is a JPEG's, whatever was typed.
        let chosen = folder.url.appendingPathComponent("bridge").path
        #expect(EditSaving.destination(chosen, for: dng.path) == chosen + ".jpg")
        #expect(EditSaving.destination(chosen + ".JPEG", for: dng.path) == chosen + ".JPEG")
        let straightened = try EditSaving.save(dng.path, edit: PhotoEdit(straighten: 3), mode: .copy).get()
        #expect(!straightened.lossless && straightened.path.hasSuffix("IMG_0001 (edited).jpg"))
        let pixels = try Decoding.picture(
            .bytes(Data(contentsOf: URL(fileURLWithPath: straightened.path))), size: .fit(1000),
            cancellable: Cancellable())
        // Upright 480 × 640, straightened: what stays inside the turned photo, taller than wide.
        #expect(pixels.width < 480 && pixels.height < 640 && pixels.height > pixels.width)
        #expect(try Data(contentsOf: dng) == before)
    }
}
