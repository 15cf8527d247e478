import CGLib
import Foundation

/// Where a photo saved in place keeps its original: a trash folder on the photo's own file
/// system, which gets a second name of the file (or, without hard links, a flushed copy of it)
/// and its `.trashinfo` before the edited file takes the photo's name.
extension EditSaving {
    /// The trash folders to keep the original of the photo at `path` in, in the order tried:
    /// the desktop's (`PhotoFiles.trashFolders(for:)`), then the top-level `.Trash-UID` of the
    /// photo's file system, which is made when first used, as GLib makes it for a USB disk.
    static func keepingTrashes(for path: String) -> [String] {
        var trashes = PhotoFiles.trashFolders(for: path)
        var status = stat()
        var top = (path as NSString).deletingLastPathComponent
        guard stat(top, &status) == 0 else { return trashes }
        let device = status.st_dev
        // The top of the file system: the last folder up on the same device.
        while top != "/" {
            let parent = (top as NSString).deletingLastPathComponent
            guard stat(parent, &status) == 0, status.st_dev == device else { break }
            top = parent
        }
        let own = (top == "/" ? "" : top) + "/.Trash-\(getuid())"
        if !trashes.contains(own) { trashes.append(own) }
        return trashes
    }

    /// The photo at `path` (whose bytes are `original`) kept in the first of `trashes` on its
    /// own file system that can take it, with its `.trashinfo` (written and flushed first, as
    /// GLib does), under the first name GLib would give it that is free; nil when none can.
    static func keepInTrash(_ path: String, original: Data, trashes: [String]) -> PhotoFiles.Trashed? {
        var photo = stat()
        guard stat(path, &photo) == 0 else { return nil }
        let name = (path as NSString).lastPathComponent
        let now = g_date_time_new_now_local()!
        defer { g_date_time_unref(now) }
        let deleted = g_date_time_format(now, "%Y-%m-%dT%H:%M:%S").map { text in
            defer { g_free(text) }
            return String(cString: text)
        }
        for trash in trashes {
            guard let named = nameInTrash(path, trash: trash), usable(trash, device: photo.st_dev),
                let escaped = g_uri_escape_string(named, "/", 0)
            else { continue }
            let info = "[Trash Info]\nPath=\(String(cString: escaped))\nDeletionDate=\(deleted ?? "")\n"
            g_free(escaped)
            // As many names as it takes: GLib's own naming has no end either.
            for attempt in 1... {
                let candidate = PhotoFiles.trashName(name, try: attempt)
                let infoPath = trash + "/info/" + candidate + ".trashinfo"
                let fd = open(infoPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                if fd < 0 {
                    if errno == EEXIST { continue }
                    break
                }
                let wrote = info.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress, $0.count - 1) }
                let flushed = fsync(fd) == 0
                close(fd)
                let kept = trash + "/files/" + candidate
                if wrote == info.utf8.count, flushed, keep(path, original: original, status: photo, at: kept) {
                    // On the disk before the photo's name is given to the new file.
                    syncFolder(trash + "/info")
                    syncFolder(trash + "/files")
                    return PhotoFiles.Trashed(originalPath: path, trashedPath: kept, infoPath: infoPath)
                }
                let failed = errno
                unlink(infoPath)
                // A name taken in `files` without its info: the next one. Anything else: the
                // next trash.
                if failed == EEXIST { continue }
                break
            }
        }
        return nil
    }

    /// What `trash`'s `.trashinfo` calls the photo at `path`: its path, or, in a top-level
    /// trash, its path from the top of its file system (nil: not below that top).
    private static func nameInTrash(_ path: String, trash: String) -> String? {
        guard let top = topLevelTop(of: trash) else { return path }
        let prefix = top == "/" ? "/" : top + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : nil
    }

    /// The folder a top-level trash (`.Trash-UID`, or `.Trash/UID`) stands for; nil for the
    /// home trash.
    private static func topLevelTop(of trash: String) -> String? {
        let parent = (trash as NSString).deletingLastPathComponent
        if (trash as NSString).lastPathComponent.hasPrefix(".Trash-") { return parent }
        if (parent as NSString).lastPathComponent == ".Trash" { return (parent as NSString).deletingLastPathComponent }
        return nil
    }

    /// Whether `trash` has (or has now been given) its `files` and `info` folders, and is on
    /// the file system `device`; a top-level trash must also be a folder of this user's, not a
    /// link (a shared disk's could lead anywhere).
    private static func usable(_ trash: String, device: dev_t) -> Bool {
        for part in ["files", "info"] { g_mkdir_with_parents(trash + "/" + part, 0o700) }
        var status = stat()
        if topLevelTop(of: trash) != nil {
            guard lstat(trash, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid() else {
                return false
            }
        } else if stat(trash, &status) != 0 {
            return false
        }
        return status.st_dev == device
    }

    /// Gives the photo at `path` a second name `kept`; where the file system has no hard links,
    /// writes `original` there instead (its permissions and times as the photo's) and flushes
    /// it. False, with `errno` set, when neither could be done.
    private static func keep(_ path: String, original: Data, status: stat, at kept: String) -> Bool {
        if link(path, kept) == 0 { return true }
        guard [EPERM, EOPNOTSUPP, EMLINK, ENOSYS].contains(errno) else { return false }
        let fd = open(kept, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        var times = [status.st_atim, status.st_mtim]
        let complete =
            writeAll(original, to: fd) && fchmod(fd, status.st_mode & 0o7777) == 0 && futimens(fd, &times) == 0
            && fsync(fd) == 0
        let failed = errno
        close(fd)
        guard complete else {
            unlink(kept)
            errno = failed == EEXIST ? EIO : failed
            return false
        }
        return true
    }
}
