import CGLib
import Foundation

/// Saves an edited photo without ever putting the original at risk.
///
/// The edited file is written whole to a hidden temporary file in the photo's own folder,
/// flushed to the disk, and only then given its name (a rename, which a crash cannot leave
/// half done), and the folder flushed. As a copy it takes a name of its own beside the photo
/// ("IMG_1 (edited).jpg"), never over another file; in place of the photo, the photo goes to
/// the trash first (from where it can be restored) and the new file takes its name. A crash or
/// a kill at any moment leaves the original, or the original and the whole new file.
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
    public static func save(
        _ path: String, edit: PhotoEdit, mode: Mode, edited: String = "edited",
        trash: (String) -> Result<PhotoFiles.Trashed, PhotoFileFailure> = { PhotoFiles.trash($0) }
    ) -> Result<Saved, PhotoFileFailure> {
        guard let original = FileManager.default.contents(atPath: path) else {
            return .failure(PhotoFileFailure(message: translatable("The file cannot be read")))
        }
        guard PictureSignature.isJPEG(original) else {
            return .failure(PhotoFileFailure(message: translatable("Only JPEG photos can be edited yet")))
        }
        let file: Data, outcome: LosslessJPEG.Outcome
        do throws(PhotoFailure) {
            (file, outcome) = try Decoding.editedJPEG(original, edit: edit)
        } catch {
            return .failure(PhotoFileFailure(message: error.detail))
        }
        var status = stat()
        let permissions = stat(path, &status) == 0 ? status.st_mode & 0o7777 : 0o644
        let folder = (path as NSString).deletingLastPathComponent
        let temporary: String
        switch writeDurably(file, in: folder, permissions: permissions) {
        case .failure(let failure): return .failure(failure)
        case .success(let written): temporary = written
        }
        switch mode {
        case .copy:
            for attempt in 1...1000 {
                let name = copyName(for: path, edited: edited, attempt: attempt)
                // A hard link fails where the name is taken, where a rename would replace it.
                if link(temporary, name) == 0 {
                    unlink(temporary)
                    syncFolder(folder)
                    return .success(Saved(path: name, outcome: outcome, lossless: true, trashed: nil))
                }
                guard errno == EEXIST else { break }
            }
            let message = String(cString: strerror(errno))
            unlink(temporary)
            return .failure(PhotoFileFailure(message: message))
        case .replace:
            let trashed: PhotoFiles.Trashed
            switch trash(path) {
            case .failure(let failure):
                unlink(temporary)
                return .failure(failure)
            case .success(let moved): trashed = moved
            }
            guard rename(temporary, path) == 0 else {
                let message = String(cString: strerror(errno))
                // The original comes back rather than the photo going missing.
                _ = PhotoFiles.restore(trashed)
                unlink(temporary)
                return .failure(PhotoFileFailure(message: message))
            }
            syncFolder(folder)
            return .success(Saved(path: path, outcome: outcome, lossless: true, trashed: trashed))
        }
    }

    /// The name of an edited copy of `path`: "IMG_1 (edited).jpg", then "IMG_1 (edited 2).jpg", ….
    public static func copyName(for path: String, edited: String = "edited", attempt: Int = 1) -> String {
        let url = URL(fileURLWithPath: path)
        let stem = url.deletingPathExtension().lastPathComponent
        let suffix = url.pathExtension.isEmpty ? "" : "." + url.pathExtension
        let mark = attempt == 1 ? "(\(edited))" : "(\(edited) \(attempt))"
        return url.deletingLastPathComponent().appendingPathComponent("\(stem) \(mark)\(suffix)").path
    }

    /// `data` written to a new hidden file in `folder` and flushed to the disk: its path.
    private static func writeDurably(
        _ data: Data, in folder: String, permissions: mode_t
    ) -> Result<String, PhotoFileFailure> {
        var template = Array((folder as NSString).appendingPathComponent(".classic-photos-edit-XXXXXX").utf8CString)
        let fd = g_mkstemp_full(&template, O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return .failure(PhotoFileFailure(message: String(cString: strerror(errno)))) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var written = 0
        let complete = data.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let count = write(fd, raw.baseAddress! + written, raw.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                written += count
            }
            return fchmod(fd, permissions) == 0 && fsync(fd) == 0
        }
        let failure = complete ? nil : String(cString: strerror(errno))
        close(fd)
        if let failure {
            unlink(temporary)
            return .failure(PhotoFileFailure(message: failure))
        }
        return .success(temporary)
    }

    /// Flushes `folder`'s entries (the new name) to the disk.
    private static func syncFolder(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
