import CGLib
import Foundation
import GLibKit

/// Saves an edited photo without ever putting the original at risk.
///
/// The edited file is written whole to a hidden temporary file in the photo's own folder,
/// flushed to the disk, and only then given its name (a rename, which a crash cannot leave
/// half done), and the folder flushed. As a copy it takes a name of its own beside the photo
/// ("IMG_1 (edited).jpg"), never over another file. In place of the photo, the photo is put in
/// the trash (from where it can be restored) as a second name of the same file, its
/// `.trashinfo` written first, and the new file is then renamed over the photo's name: the
/// name never goes missing from its folder, so the list and the viewer see the photo changed,
/// not gone and come back. (On a file system without hard links, a camera's FAT card, the
/// trash gets a flushed copy of the original instead; where no trash on the photo's own file
/// system can be had, saving in place is refused and a copy offered.) A crash or a kill at any
/// moment leaves the original, or the original and the whole new file.
public enum EditSaving {
    public enum Mode: String, Sendable, Codable {
        /// A new file beside the photo.
        case copy
        /// The photo itself, the original moved to the trash.
        case replace
    }

    public struct Saved: Sendable, Equatable {
        /// The file written.
        public let path: String
        /// What the edit came to (the picture's size, the crop's corner moved to the grid).
        public let outcome: LosslessJPEG.Outcome
        /// Whether no pixel was decoded and encoded again.
        public let lossless: Bool
        /// The original, when it was replaced: in the trash.
        public let trashed: PhotoFiles.Trashed?
    }

    /// Saves the photo at `path` with `edit` applied, as `mode` says; a copy's name says
    /// `edited` (the word in the person's language).
    /// `trashes` are the trash folders to try (nil: the ones the desktop uses for `path`, see
    /// `keepingTrashes(for:)`).
    /// With a `destination` (Save As, a name the person chose and agreed to replace), the
    /// edited photo is written there instead, in the same safe way, whatever `mode` says: a
    /// file already there is replaced as the photo would be (kept in a trash first), and a
    /// destination that is the photo itself saves in its place. A name without the ending of
    /// the photo's kind gets it (`destination(_:for:)`); a file already there by that name,
    /// which nobody agreed to replace, is not replaced: the save fails, saying so.
    public static func save(
        _ path: String, edit: PhotoEdit, mode: Mode, edited: String = "edited", trashes: [String]? = nil,
        destination chosen: String? = nil
    ) -> Result<Saved, PhotoFileFailure> {
        let destination = chosen.map { Self.destination($0, for: path) }
        if let destination, destination != chosen, access(destination, F_OK) == 0 {
            return .failure(
                PhotoFileFailure(
                    message: translatable(
                        "A file by that name with the photo's file ending is there already; choose another name")))
        }
        // A RAW file is never written: its edit is a JPEG beside it (or where Save As says).
        // Nor is it read here: the decoder helper is handed its descriptor, and maps it.
        let raw = RawPhoto.isRaw(URL(fileURLWithPath: path))
        let original = raw ? Data() : FileManager.default.contents(atPath: path)
        guard let original, let rawFile = raw ? openRegular(path) : (nil, 0) else {
            return .failure(PhotoFileFailure(message: translatable("The file cannot be read")))
        }
        let file: Data, outcome: LosslessJPEG.Outcome
        let lossless: Bool
        var status = stat()
        let permissions = stat(path, &status) == 0 ? status.st_mode & 0o7777 : 0o644
        // (The RAW file itself chosen in Save As is refused too, not saved under its name plus ".jpg".)
        let ontoItself = [chosen, destination].contains { $0.map { isSameFile($0, as: status) } ?? false }
        if raw, ontoItself || (chosen == nil && mode == .replace) {
            return .failure(
                PhotoFileFailure(message: translatable("A RAW file is kept as it is; its edit is saved as a JPEG copy"))
            )
        }
        switch raw ? .losslessJPEG : PhotoFiles.turnKind(of: path) {
        case .losslessJPEG:
            do throws(PhotoFailure) {
                if let stream = rawFile.stream {
                    (file, outcome) = try Decoding.editedRaw(.stream(stream), byteCount: rawFile.size, edit: edit)
                } else {
                    (file, outcome) = try Decoding.editedJPEG(original, edit: edit)
                }
                lossless = edit.isLosslessForJPEG
            } catch {
                return .failure(PhotoFileFailure(message: error.detail))
            }
        case .losslessHEIF(let format):
            // Quarter turns alone by the container's turn; anything else encoded again.
            if edit.crop == nil, edit.straighten == 0, let turned = HEIFTurn.turned(original, by: edit.turn) {
                do throws(PhotoFailure) {
                    let info = try Decoding.info(original, details: false, cancellable: Cancellable())
                    let size = edit.turn.size(width: info.width, height: info.height)
                    (file, outcome) = (
                        turned,
                        LosslessJPEG.Outcome(
                            kept: PixelRect(x: 0, y: 0, width: size.width, height: size.height), cornerMoved: 0,
                            edgeDropped: 0)
                    )
                } catch {
                    return .failure(PhotoFileFailure(message: error.detail))
                }
                lossless = true
            } else {
                guard ReencodedEdit.formats.contains(format) else {
                    return .failure(PhotoFileFailure(message: translatable("Pictures of this kind cannot be edited")))
                }
                switch ReencodedEdit.apply(edit, to: original, format: format) {
                case .failure(let failure): return .failure(failure)
                case .success(let edited): (file, outcome) = edited
                }
                lossless = false
            }
        case .reencode(let format):
            switch ReencodedEdit.apply(edit, to: original, format: format) {
            case .failure(let failure): return .failure(failure)
            case .success(let edited): (file, outcome) = edited
            }
            lossless = false
        case .unsupported:
            return .failure(PhotoFileFailure(message: translatable("Pictures of this kind cannot be edited")))
        }
        let elsewhere = destination.flatMap { isSameFile($0, as: status) ? nil : $0 }
        // A file chosen elsewhere that is there already is replaced as the photo itself is: kept
        // in a trash first (so Undo can bring it back), with its own permissions.
        var existing = stat()
        let replacing = elsewhere.map { stat($0, &existing) == 0 } ?? false
        let replaced: Data
        if let elsewhere, replacing {
            guard let read = FileManager.default.contents(atPath: elsewhere) else {
                return .failure(PhotoFileFailure(message: translatable("The file chosen cannot be read")))
            }
            replaced = read
        } else {
            replaced = original
        }
        let mode = destination != nil && (elsewhere == nil || replacing) ? .replace : mode
        let target = elsewhere ?? path
        let folder = (target as NSString).deletingLastPathComponent
        let temporary: String
        let kept = replacing ? existing.st_mode & 0o7777 : elsewhere == nil ? permissions : 0o644
        switch writeDurably(file, in: folder, permissions: kept) {
        case .failure(let failure): return .failure(failure)
        case .success(let written): temporary = written
        }
        if let elsewhere, !replacing {
            guard rename(temporary, elsewhere) == 0 else {
                let failed = errno
                unlink(temporary)
                return .failure(failure(errno: failed))
            }
            syncFolder(folder)
            return .success(Saved(path: elsewhere, outcome: outcome, lossless: lossless, trashed: nil))
        }
        switch mode {
        case .copy:
            for attempt in 1...1000 {
                let name = copyName(for: path, edited: edited, attempt: attempt)
                // A hard link fails where the name is taken, where a rename would replace it.
                if link(temporary, name) == 0 {
                    unlink(temporary)
                    syncFolder(folder)
                    return .success(Saved(path: name, outcome: outcome, lossless: lossless, trashed: nil))
                }
                if errno == EEXIST { continue }
                // A file system without hard links (FAT on a camera's card, some shares): the
                // name is taken by an empty file first, then the temporary file renamed over it.
                let taken = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                if taken < 0, errno == EEXIST { continue }
                guard taken >= 0 else { break }
                close(taken)
                guard rename(temporary, name) == 0 else {
                    let failed = errno
                    unlink(name)
                    errno = failed
                    break
                }
                syncFolder(folder)
                return .success(Saved(path: name, outcome: outcome, lossless: lossless, trashed: nil))
            }
            let message = String(cString: strerror(errno))
            unlink(temporary)
            return .failure(PhotoFileFailure(message: message))
        case .replace:
            guard let trashed = keepInTrash(target, original: replaced, trashes: trashes ?? keepingTrashes(for: target))
            else {
                unlink(temporary)
                return .failure(
                    PhotoFileFailure(
                        message: elsewhere == nil
                            ? translatable("The original cannot be kept in a trash here; save a copy instead")
                            : translatable("The file chosen cannot be kept in a trash; choose another name")))
            }
            guard rename(temporary, target) == 0 else {
                let message = String(cString: strerror(errno))
                // The photo is still where it was: its second name in the trash goes.
                if let kept = trashed.trashedPath { unlink(kept) }
                if let info = trashed.infoPath { unlink(info) }
                unlink(temporary)
                return .failure(PhotoFileFailure(message: message))
            }
            syncFolder(folder)
            return .success(Saved(path: target, outcome: outcome, lossless: lossless, trashed: trashed))
        }
    }

    /// Takes a save back (Undo): a copy is deleted; a photo saved in place gets its original
    /// back from the trash, renamed over the edited file (so, again, its name never goes
    /// missing), and the trash forgets it.
    public static func takeBack(_ saved: Saved) -> Result<Void, PhotoFileFailure> {
        guard let trashed = saved.trashed else {
            return unlink(saved.path) == 0 || errno == ENOENT
                ? .success(()) : .failure(PhotoFileFailure(message: String(cString: strerror(errno))))
        }
        guard let kept = trashed.trashedPath, access(kept, F_OK) == 0 else {
            return .failure(PhotoFileFailure(message: translatable("The photo is no longer in the trash")))
        }
        if rename(kept, trashed.originalPath) == 0 {
            if let info = trashed.infoPath { unlink(info) }
            syncFolder((trashed.originalPath as NSString).deletingLastPathComponent)
            return .success(())
        }
        guard errno == EXDEV else { return .failure(PhotoFileFailure(message: String(cString: strerror(errno)))) }
        // A trash on another file system: the edited file goes, the original comes back.
        unlink(trashed.originalPath)
        return PhotoFiles.restore(trashed)
    }

    /// The name chosen in Save As for an edited copy of `photo`, with the photo's extension
    /// added when the name has none of that kind ("beach" or "beach.png" for a JPEG becomes
    /// "beach.jpg", "beach.png.jpg"): the file is written in the photo's own format.
    public static func destination(_ chosen: String, for photo: String) -> String {
        let kinds: [Set<String>] = [["jpg", "jpeg", "jpe", "jfif"], ["tif", "tiff"]]
        // A RAW file's edit is a JPEG.
        let raw = RawPhoto.isRaw(URL(fileURLWithPath: photo))
        let ending = raw ? RawEdit.savedExtension : (photo as NSString).pathExtension
        let own = ending.lowercased(),
            named = (chosen as NSString).pathExtension.lowercased()
        guard !own.isEmpty, named != own, !kinds.contains(where: { $0.contains(own) && $0.contains(named) }) else {
            return chosen
        }
        return chosen + "." + ending
    }

    /// The name of an edited copy of `path`: "IMG_1 (edited).jpg", then "IMG_1 (edited 2).jpg", …;
    /// a RAW file's is a JPEG ("IMG_1.CR2" → "IMG_1 (edited).jpg").
    public static func copyName(for path: String, edited: String = "edited", attempt: Int = 1) -> String {
        let url = URL(fileURLWithPath: path)
        let stem = url.deletingPathExtension().lastPathComponent
        let ending = RawPhoto.isRaw(url) ? RawEdit.savedExtension : url.pathExtension
        let suffix = ending.isEmpty ? "" : "." + ending
        let mark = attempt == 1 ? "(\(edited))" : "(\(edited) \(attempt))"
        return url.deletingLastPathComponent().appendingPathComponent("\(stem) \(mark)\(suffix)").path
    }

    /// What temporary files are called: a save killed before its rename leaves one behind.
    static let temporaryPrefix = ".classic-photos-edit-"

    /// Removes the temporary files in `folder` that saves killed before their rename left
    /// there, a quarter of an hour ago and more (younger ones may be another save's, under way).
    static func removeLeftovers(in folder: String, olderThan seconds: Double = 900) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let now = Date().timeIntervalSince1970
        for name in names where name.hasPrefix(temporaryPrefix) {
            let path = (folder as NSString).appendingPathComponent(name)
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
                now - Double(status.st_mtim.tv_sec) >= seconds
            else { continue }
            unlink(path)
        }
    }

    /// `data` written to a new hidden file in `folder` and flushed to the disk: its path.
    private static func writeDurably(
        _ data: Data, in folder: String, permissions: mode_t
    ) -> Result<String, PhotoFileFailure> {
        removeLeftovers(in: folder)
        var template = Array((folder as NSString).appendingPathComponent(temporaryPrefix + "XXXXXX").utf8CString)
        let fd = g_mkstemp_full(&template, O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return .failure(failure(errno: errno)) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let complete = writeAll(data, to: fd) && fchmod(fd, permissions) == 0 && fsync(fd) == 0
        let failure = complete ? nil : String(cString: strerror(errno))
        close(fd)
        if let failure {
            unlink(temporary)
            return .failure(PhotoFileFailure(message: failure))
        }
        return .success(temporary)
    }

    /// The C library's words for `errno`, said to be about the folder when it cannot be
    /// written at all.
    private static func failure(errno code: Int32) -> PhotoFileFailure {
        PhotoFileFailure(
            message: String(cString: strerror(code)), folderUnwritable: [EACCES, EPERM, EROFS].contains(code))
    }

    /// The regular file at `path`, open, and its size; nil where it cannot be opened or is no
    /// regular file (a FIFO does not hold the save up).
    private static func openRegular(_ path: String) -> (stream: ObjectRef<GInputStream>?, size: Int)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        let stream = ObjectRef(taking: g_unix_input_stream_new(fd, 1)!)
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return (stream, Int(status.st_size))
    }

    /// Whether `path` names the file `status` describes (the same device and inode).
    private static func isSameFile(_ path: String, as status: stat) -> Bool {
        var other = stat()
        return stat(path, &other) == 0 && other.st_dev == status.st_dev && other.st_ino == status.st_ino
    }

    /// Writes the whole of `data` to `fd`; false, with `errno` set, when it could not.
    static func writeAll(_ data: Data, to fd: Int32) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            var written = 0
            while written < raw.count {
                let count = write(fd, raw.baseAddress! + written, raw.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    if count == 0 { errno = ENOSPC }
                    return false
                }
                written += count
            }
            return true
        }
    }

    /// Flushes `folder`'s entries (the new name) to the disk.
    static func syncFolder(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
