import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// What the viewer does to a photo's file: move it to the desktop's trash and back, delete it,
/// turn it. Blocking file work: run it off the main thread.
public enum PhotoFiles {
    // MARK: Trash

    /// A photo moved to the trash: where it was, and where the trash keeps it (if it was found
    /// there: a trash of the desktop's own, such as a network share's, may keep it elsewhere).
    public struct Trashed: Sendable, Equatable {
        public let originalPath: String
        /// The file inside the trash's `files` folder.
        public let trashedPath: String?
        /// Its `.trashinfo` in the trash's `info` folder.
        public let infoPath: String?
        /// Files that go with the photo: its XMP sidecars and a Live Photo's clip, moved to the
        /// trash with it and put back after it.
        public internal(set) var companions: [Trashed] = []
    }

    /// Moves the file at `path` to the desktop's trash (`g_file_trash`: the trash Files shows,
    /// with a `.trashinfo` saying where it came from, so Files can put it back too).
    ///
    /// Its `.trashinfo` is found among the few names GLib may have given it (`trashName`),
    /// not by reading the whole trash: with thousands of photos there, that made moving a
    /// photo cost as much as listing all of them. `trashes` are the trash folders the file may
    /// go to (`trashFolders(for:)`; found for it when nil).
    public static func trash(_ path: String, trashes: [String]? = nil) -> Result<Trashed, PhotoFileFailure> {
        let file = ObjectRef(takingOpaque: g_file_new_for_path(path)!)
        let trashes = trashes ?? trashFolders(for: path)
        let name = (path as NSString).lastPathComponent
        let before = Set(trashes.flatMap { takenInfoFiles(for: name, in: $0) })
        var status = stat()
        let identity = lstat(path, &status) == 0 ? (status.st_dev, status.st_ino) : nil
        var error: UnsafeMutablePointer<GError>?
        guard g_file_trash(file.opaque, nil, &error) != 0 else { return .failure(failure(error)) }
        // The file GLib moved keeps its inode: a name of GLib's for it, new in the trash, that
        // holds that inode is it, and its .trashinfo need not be read. Else: among GLib's names
        // for it, by what its .trashinfo says; in a trash folder GLib has just made (the first
        // photo of a file system moved to the trash); anywhere in the trash, should GLib name it
        // otherwise.
        if let identity, let found = sameFile(identity, named: name, in: trashes, excluding: before) {
            return .success(Trashed(originalPath: path, trashedPath: found.kept, infoPath: found.info))
        }
        let place =
            locate(path, in: trashes, excluding: before) { takenInfoFiles(for: name, in: $0) }
            ?? locate(path, in: trashFolders(for: path), excluding: before) { takenInfoFiles(for: name, in: $0) }
            ?? locate(path, in: trashFolders(for: path), excluding: before, among: infoFiles(in:))
        return .success(Trashed(originalPath: path, trashedPath: place?.kept, infoPath: place?.info))
    }

    /// The file in one of `trashes`, under a name GLib gives `name` and whose `.trashinfo` is
    /// not one of `before`, that is the file `identity` (device, inode) names, and that
    /// `.trashinfo`.
    private static func sameFile(
        _ identity: (dev_t, ino_t), named name: String, in trashes: [String], excluding before: Set<String>
    ) -> (kept: String, info: String)? {
        for trash in trashes {
            for info in takenInfoFiles(for: name, in: trash) where !before.contains(info) {
                let kept = trash + "/files/" + ((info as NSString).lastPathComponent as NSString).deletingPathExtension
                var status = stat()
                if lstat(kept, &status) == 0, status.st_dev == identity.0, status.st_ino == identity.1 {
                    return (kept, info)
                }
            }
        }
        return nil
    }

    /// The `.trashinfo` among those `infos` gives for each of `trashes` that names `path` and
    /// is not one of `before`, and the file it keeps.
    private static func locate(
        _ path: String, in trashes: [String], excluding before: Set<String>, among infos: (String) -> [String]
    ) -> (kept: String, info: String)? {
        for trash in trashes {
            for info in infos(trash) where !before.contains(info) && originalPath(inInfo: info, trash: trash) == path {
                let kept = ((info as NSString).lastPathComponent as NSString).deletingPathExtension
                return (trash + "/files/" + kept, info)
            }
        }
        return nil
    }

    /// The trash folders of the folders photos are moved to the trash from, found once for a
    /// batch of them (`trashFolders(for:)` looks up every folder on the way to the top).
    public final class TrashFolders: Sendable {
        private let known = Locked<[String: [String]]>([:])

        public init() {}

        /// Moves the file at `path` to the trash, as `PhotoFiles.trash` does.
        public func trash(_ path: String) -> Result<Trashed, PhotoFileFailure> {
            let folder = (path as NSString).deletingLastPathComponent
            let trashes =
                known.withLock { $0[folder] }
                ?? {
                    let found = PhotoFiles.trashFolders(for: path)
                    known.withLock { $0[folder] = found }
                    return found
                }()
            // A Live Photo's clip and the photo's sidecars go with it, found before it has gone.
            // One that cannot be moved stays (a clip is a video of its own once the folder is
            // read again; a sidecar is no picture).
            let companions = PhotoFiles.companions(of: path)
            return PhotoFiles.trash(path, trashes: trashes).map { photo in
                var moved = photo
                for companion in companions {
                    if case .success(let gone) = PhotoFiles.trash(companion, trashes: trashes) {
                        moved.companions.append(gone)
                    }
                }
                return moved
            }
        }
    }

    /// The names GLib gives a file called `name` in a trash, in the order it tries them: the
    /// name itself, then the name with ".2", ".3", … put before its first dot (or after it, if
    /// it has none), until one is free.
    static func trashName(_ name: String, try attempt: Int) -> String {
        guard attempt > 1 else { return name }
        guard let dot = name.firstIndex(of: ".") else { return "\(name).\(attempt)" }
        return "\(name[..<dot]).\(attempt)\(name[dot...])"
    }

    /// The `.trashinfo` files in `trash` under the names GLib would give `name`, up to the
    /// first that is free.
    private static func takenInfoFiles(for name: String, in trash: String) -> [String] {
        var taken: [String] = []
        for attempt in 1... {
            let info = trash + "/info/" + trashName(name, try: attempt) + ".trashinfo"
            guard access(info, F_OK) == 0 else { break }
            taken.append(info)
        }
        return taken
    }

    /// Puts a trashed photo back where it was: the file the trash keeps is moved back and its
    /// `.trashinfo` removed. Nothing is overwritten: a new file where the photo was makes this
    /// fail. Fails too when the trash keeps the photo where it was not found (a trash of the
    /// desktop's own): `restore(_:from:)` then takes the item `trash:///` lists for it.
    public static func restore(_ trashed: Trashed) -> Result<Void, PhotoFileFailure> {
        guard let kept = trashed.trashedPath, FileManager.default.fileExists(atPath: kept) else {
            return .failure(PhotoFileFailure(message: translatable("The photo is no longer in the trash")))
        }
        let source = ObjectRef(takingOpaque: g_file_new_for_path(kept)!)
        if case .failure(let failure) = move(source, to: trashed.originalPath) { return .failure(failure) }
        if let info = trashed.infoPath { unlink(info) }
        restoreCompanions(of: trashed)
        return .success(())
    }

    /// Puts a trashed photo back from `item`, its entry in the desktop's trash (`trash:///`,
    /// whose backend removes its `.trashinfo`).
    public static func restore(_ trashed: Trashed, from item: ObjectRef<GObject>) -> Result<Void, PhotoFileFailure> {
        move(item, to: trashed.originalPath).map { restoreCompanions(of: trashed) }
    }

    /// The photo's companions back beside it, once it is back (so that a clip arriving in a
    /// watched folder is seen as the still's, not as a video of its own, and a sidecar's marks
    /// as the photo's).
    private static func restoreCompanions(of trashed: Trashed) {
        for companion in trashed.companions { _ = restore(companion) }
    }

    private static func move(_ source: ObjectRef<GObject>, to path: String) -> Result<Void, PhotoFileFailure> {
        let target = ObjectRef(takingOpaque: g_file_new_for_path(path)!)
        var error: UnsafeMutablePointer<GError>?
        guard g_file_move(source.opaque, target.opaque, G_FILE_COPY_NOFOLLOW_SYMLINKS, nil, nil, nil, &error) != 0
        else {
            return .failure(failure(error))
        }
        return .success(())
    }

    /// Deletes the photo at `path` for good, and its companions: a Live Photo's clip beside it
    /// (that still's alone) and its sidecars (`MarksFiles.ownSidecars`).
    public static func delete(photoAt path: String) -> Result<Void, PhotoFileFailure> {
        let companions = companions(of: path)
        return delete(path).map { for companion in companions { _ = delete(companion) } }
    }

    /// The files that go with the photo at `path` wherever it goes: a Live Photo's clip that is
    /// its alone, and its own sidecars.
    static func companions(of path: String) -> [String] {
        (LivePhoto.soleClip(besidePhotoAt: path).map { [$0] } ?? []) + MarksFiles.ownSidecars(of: path)
    }

    /// Deletes the file at `path` for good (`g_file_delete`).
    public static func delete(_ path: String) -> Result<Void, PhotoFileFailure> {
        let file = ObjectRef(takingOpaque: g_file_new_for_path(path)!)
        var error: UnsafeMutablePointer<GError>?
        guard g_file_delete(file.opaque, nil, &error) != 0 else { return .failure(failure(error)) }
        return .success(())
    }

    /// The trash folders a file at `path` may go to: the user's (`$XDG_DATA_HOME/Trash`) and
    /// those at the top of other file systems on its way up (`.Trash-UID`, `.Trash/UID`).
    static func trashFolders(for path: String) -> [String] {
        var folders = [String(cString: g_get_user_data_dir()) + "/Trash"]
        let uid = getuid()
        var directory = (path as NSString).deletingLastPathComponent
        while !directory.isEmpty {
            for candidate in [directory + "/.Trash-\(uid)", directory + "/.Trash/\(uid)"]
            where FileManager.default.fileExists(atPath: candidate + "/info") {
                folders.append(candidate)
            }
            if directory == "/" { break }
            directory = (directory as NSString).deletingLastPathComponent
        }
        return folders
    }

    private static func infoFiles(in trash: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: trash + "/info")) ?? []
        return names.filter { $0.hasSuffix(".trashinfo") }.map { trash + "/info/" + $0 }
    }

    /// The `Path` a `.trashinfo` names (absolute; a top-level trash's may be relative to its
    /// file system's top).
    static func originalPath(inInfo info: String, trash: String) -> String? {
        let keyFile = g_key_file_new()!
        defer { g_key_file_free(keyFile) }
        guard g_key_file_load_from_file(keyFile, info, G_KEY_FILE_NONE, nil) != 0,
            let escaped = g_key_file_get_string(keyFile, "Trash Info", "Path", nil)
        else { return nil }
        defer { g_free(escaped) }
        guard let unescaped = g_uri_unescape_string(escaped, nil) else { return nil }
        defer { g_free(unescaped) }
        let path = String(cString: unescaped)
        if path.hasPrefix("/") { return path }
        // Relative: to the folder holding the top-level trash.
        var top = (trash as NSString).deletingLastPathComponent
        if (top as NSString).lastPathComponent == ".Trash" { top = (top as NSString).deletingLastPathComponent }
        return (top as NSString).appendingPathComponent(path)
    }

    // MARK: Turning

    /// How a photo can be turned.
    public enum TurnKind: Sendable, Equatable {
        /// A JPEG: by its EXIF orientation, without touching its pixels.
        case losslessJPEG
        /// A HEIC or AVIF: by its container's turn (`irot`), without touching its pixels
        /// (`HEIFTurn`); `format` is what it is saved again as for an edit that needs it.
        case losslessHEIF(format: String)
        /// Decoded, turned and saved again in its format (`png`, `tiff`, …).
        case reencode(format: String)
        /// Not a file, or a format that cannot be written.
        case unsupported
    }

    /// How the picture at `path` can be turned (read from its first bytes).
    public static func turnKind(of path: String) -> TurnKind {
        // A RAW file is the camera's record of the photo, never written again: by its
        // TIFF-shaped head a DNG, NEF or CR2 was saved as a TIFF of its small preview, the
        // sensor's data gone.
        guard !RawPhoto.isRaw(URL(fileURLWithPath: path)) else { return .unsupported }
        guard let handle = FileHandle(forReadingAtPath: path) else { return .unsupported }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 64)) ?? Data()
        if head.starts(with: PictureSignature.jpeg) { return .losslessJPEG }
        if PictureSignature.isHEIF(head) {
            // A HEIC is written again by libheif, an AVIF by gdk-pixbuf's loader for it.
            let format = PictureSignature.isAVIF(head) ? "avif" : PictureWriter.heif
            // Its `meta` box, which says how it is turned, is at its start (phones' are some
            // kilobytes).
            let start = head + ((try? handle.read(upToCount: 1 << 20)) ?? Data())
            if HEIFTurn.canTurn(head: start) { return .losslessHEIF(format: format) }
            if !PictureSignature.isAVIF(head) {
                return PictureWriter.canWriteHEIF ? .reencode(format: PictureWriter.heif) : .unsupported
            }
        }
        guard let format = gdk_pixbuf_get_file_info(path, nil, nil), let name = gdk_pixbuf_format_get_name(format)
        else { return .unsupported }
        defer { g_free(name) }
        return gdk_pixbuf_format_is_writable(format) != 0 ? .reencode(format: String(cString: name)) : .unsupported
    }

    /// What turning did: the orientation written (a JPEG's), or the format saved again.
    public struct Turned: Sendable, Equatable {
        public let kind: TurnKind
        public let orientation: Int?
    }

    /// Turns the photo at `path` a quarter turn clockwise (or counter-clockwise): a JPEG by
    /// its EXIF orientation (two bytes written in place where the tag is there), any other
    /// writable format by decoding it whole, turning the pixels and saving it again in its
    /// format (through a temporary file, `g_file_replace_contents`).
    public static func turn(_ path: String, clockwise: Bool) -> Result<Turned, PhotoFileFailure> {
        let kind = turnKind(of: path)
        switch kind {
        case .unsupported:
            return .failure(PhotoFileFailure(message: translatable("Pictures of this kind cannot be turned")))
        case .losslessJPEG:
            guard let data = FileManager.default.contents(atPath: path) else {
                return .failure(PhotoFileFailure(message: translatable("The file cannot be read")))
            }
            let orientation = ExifOrientation.turned(ExifOrientation.orientation(of: data), clockwise: clockwise)
            do throws(PhotoFileFailure) {
                switch try ExifOrientation.change(data, to: orientation) {
                case .patch(let offset, let bytes):
                    let fd = open(path, O_WRONLY | O_CLOEXEC)
                    guard fd >= 0 else { return .failure(PhotoFileFailure(message: String(cString: strerror(errno)))) }
                    defer { close(fd) }
                    let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
                    guard written == bytes.count else {
                        return .failure(PhotoFileFailure(message: String(cString: strerror(errno))))
                    }
                case .rewrite(let rewritten):
                    if case .failure(let failure) = replace(path, with: rewritten) { return .failure(failure) }
                }
            } catch {
                return .failure(error)
            }
            return .success(Turned(kind: kind, orientation: orientation))
        case .losslessHEIF:
            guard let data = FileManager.default.contents(atPath: path) else {
                return .failure(PhotoFileFailure(message: translatable("The file cannot be read")))
            }
            guard let turned = HEIFTurn.turned(data, by: PictureTurn(quarterTurns: clockwise ? 1 : 3)) else {
                return .failure(PhotoFileFailure(message: translatable("The file is damaged, or changed meanwhile")))
            }
            if case .failure(let failure) = replace(path, with: turned) { return .failure(failure) }
            return .success(Turned(kind: kind, orientation: nil))
        case .reencode(let format):
            guard let data = FileManager.default.contents(atPath: path) else {
                return .failure(PhotoFileFailure(message: translatable("The file cannot be read")))
            }
            let cancellable = Cancellable()
            do throws(PhotoFailure) {
                let info = try Decoding.info(data, details: false, cancellable: cancellable)
                let side = ViewerLimits.decodeSide(width: info.width, height: info.height, wanted: 0)
                guard side >= max(info.width, info.height) else {
                    return .failure(PhotoFileFailure(message: translatable("The picture is too large to be turned")))
                }
                let image = try Decoding.picture(.bytes(data), size: .fit(side), cancellable: cancellable)
                let turned = gdk_pixbuf_rotate_simple(
                    image.pixbuf, clockwise ? GDK_PIXBUF_ROTATE_CLOCKWISE : GDK_PIXBUF_ROTATE_COUNTERCLOCKWISE)!
                defer { g_object_unref(UnsafeMutableRawPointer(turned)) }
                let exif =
                    format == PictureWriter.heif
                    ? PictureWriter.uprightHEIFExif(
                        of: data, width: Int(gdk_pixbuf_get_width(turned)), height: Int(gdk_pixbuf_get_height(turned)))
                    : nil
                let encoded: Data
                switch PictureWriter.encode(turned, format: format, exif: exif) {
                case .failure(let failure): return .failure(failure)
                case .success(let written): encoded = written
                }
                if case .failure(let failure) = replace(path, with: encoded) { return .failure(failure) }
                return .success(Turned(kind: kind, orientation: nil))
            } catch {
                return .failure(PhotoFileFailure(message: error.detail))
            }
        }
    }

    /// Writes `data` as the file at `path`, whole or not at all (GIO writes a temporary file
    /// beside it and renames it over the old one, keeping its permissions).
    private static func replace(_ path: String, with data: Data) -> Result<Void, PhotoFileFailure> {
        let file = ObjectRef(takingOpaque: g_file_new_for_path(path)!)
        var error: UnsafeMutablePointer<GError>?
        let ok = data.withUnsafeBytes {
            g_file_replace_contents(
                file.opaque, $0.cChars, gsize($0.count), nil, 0,
                G_FILE_CREATE_NONE, nil, nil, &error)
        }
        return ok != 0 ? .success(()) : .failure(failure(error))
    }

    private static func failure(_ error: UnsafeMutablePointer<GError>?) -> PhotoFileFailure {
        defer { if let error { g_error_free(error) } }
        return PhotoFileFailure(
            message: error.map { String(cString: $0.pointee.message) } ?? translatable("Unknown error"))
    }
}
