import Foundation
import TestSupport

/// What a soak run shows the app: a big folder of photos with a few sub-folders, a Pictures
/// tree by year and month, a web list served on loopback, and a WebDAV share (GVfs, on a D-Bus
/// session of the run's own); each of `photos` photos and more. Photos are hard links to a few
/// files (the bundled photos and a camera-size JPEG), so making 10,000 takes a second.
final class Fixtures {
    let top: URL
    let folder: URL
    let tree: URL
    let shared: URL
    let server: LoopbackServer
    let share: LoopbackShare
    let bus: PrivateBus
    /// Where the app's settings, cache and trash live for the run.
    let home: URL
    /// The runtime folder the app and GVfs's daemons share (as a desktop session's is).
    let runtime: URL
    /// Whether the photos, settings and traces stay after the run (a failed run keeps them).
    var keep: Bool
    /// Files the run adds to the big folder while the app shows it (and removes again).
    private(set) var added: [URL] = []
    private var addedCount = 0

    init(photos: Int, keep: Bool) throws {
        self.keep = keep
        top = try TestPictures.makeFolder("soak")
        folder = top.appendingPathComponent("Camera")
        tree = top.appendingPathComponent("Pictures")
        shared = top.appendingPathComponent("Share/photos")
        home = top.appendingPathComponent("home")
        runtime = top.appendingPathComponent("runtime")
        for made in [folder, tree, shared, home, runtime] {
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
        }
        chmod(runtime.path, 0o700)
        let sources = try Self.sources(in: top.appendingPathComponent("sources"))
        var linked = 0
        func link(_ name: URL) throws {
            // A file takes at most 65,000 links: the sources are used in turn.
            guard Foundation.link(sources[linked % sources.count].path, name.path) == 0 else {
                throw OptionsError("cannot link \(name.path): \(String(cString: strerror(errno)))")
            }
            linked += 1
        }
        // The big folder: photos named as a camera names them, and five sub-folders of 40.
        for n in 0..<photos { try link(folder.appendingPathComponent(String(format: "IMG_%05d.jpg", n))) }
        for sub in 1...5 {
            let made = folder.appendingPathComponent("Trip \(sub)")
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
            for n in 0..<40 { try link(made.appendingPathComponent(String(format: "DSC_%04d.jpg", n))) }
        }
        // A tree of two years by month, as many photos in all as the folder and a tenth more.
        let months = 24, perMonth = photos * 11 / 10 / months
        for month in 0..<months {
            let made = tree.appendingPathComponent(String(format: "%d/%02d", 2023 + month / 12, month % 12 + 1))
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
            for n in 0..<perMonth { try link(made.appendingPathComponent(String(format: "PXL_%05d.jpg", n))) }
        }
        // The share: one folder as big as the big one.
        for n in 0..<photos { try link(shared.appendingPathComponent(String(format: "photo_%05d.jpg", n))) }
        server = try LoopbackServer()
        bus = try PrivateBus(environment: ["XDG_RUNTIME_DIR": runtime.path])
        share = try LoopbackShare(serving: top.appendingPathComponent("Share"), logging: false)
    }

    deinit {
        // What the run started goes first: the GVfs and portal daemons on the run's bus hold
        // files under it (the document portal's FUSE mount, which goes a moment after them).
        share.stop()
        bus.stop()
        guard !keep else { return }
        for _ in 0..<50 {
            if (try? FileManager.default.removeItem(at: top)) != nil
                || !FileManager.default.fileExists(atPath: top.path)
            {
                return
            }
            usleep(100_000)
        }
    }

    /// The web list, of as many photos as the folder and a fifth more.
    func listAddress(photos: Int) -> String { server.url("/list.plist?rows=\(photos * 6 / 5)").absoluteString }

    var shareAddress: String { share.address("photos/") }

    /// Adds `count` photos to the big folder.
    func addPhotos(_ count: Int) {
        let source = folder.appendingPathComponent("IMG_00000.jpg").path
        for _ in 0..<count {
            addedCount += 1
            let name = folder.appendingPathComponent(String(format: "ZZ_added_%05d.jpg", addedCount))
            if Foundation.link(source, name.path) == 0 { added.append(name) }
        }
    }

    /// Removes up to `count` of the photos added, the oldest first.
    func removeAdded(_ count: Int) {
        for name in added.prefix(count) { try? FileManager.default.removeItem(at: name) }
        added.removeFirst(min(count, added.count))
    }

    /// A few distinct files to link to: the bundled photos and a 12-megapixel camera JPEG with
    /// its EXIF thumbnail.
    private static func sources(in folder: URL) throws -> [URL] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let bundled = Products.packageRoot.appendingPathComponent("data/photos")
        var sources: [URL] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: bundled.path).sorted()
        where name.hasSuffix(".jpg") {
            let copy = folder.appendingPathComponent(name)
            try FileManager.default.copyItem(at: bundled.appendingPathComponent(name), to: copy)
            sources.append(copy)
        }
        if let camera = CameraFiles.jpegWithThumbnail(
            width: 4000, height: 3000, rgb: 0x8A_6A_4A, thumbWidth: 160, thumbHeight: 120, thumbRGB: 0x8A_6A_4A)
        {
            let file = folder.appendingPathComponent("camera.jpg")
            try camera.write(to: file)
            sources.append(file)
        }
        return sources
    }
}
