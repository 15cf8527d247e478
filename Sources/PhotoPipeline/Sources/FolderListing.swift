import CGLib
import Foundation
import GLibKit

/// The pictures of one folder as `readdir` gives them, in no particular order.
///
/// GIO's enumerator `stat`s every file to fill in a `GFileInfo`, which took over a second for
/// 100,000 files here; the directory's own entries already say which are regular files
/// (`d_type`), so only symbolic links and file systems that leave `d_type` unknown cost a
/// `stat`. Hidden means what it means to GIO: a name starting with a dot, ending with `~`, or
/// listed in the folder's `.hidden` file.
struct FolderListing {
    var names = PackedTexts()
    var links = PackedTexts()
    /// Each picture's sort facts, when asked for, and its path (what the index keys it by).
    var facts: [SortFacts?] = []
    var paths: [String] = []
    /// Each picture's path as a number (`PathKey`), when asked for instead.
    var pathKeys: [UInt64] = []
    /// The index of the picture asked for by name, if it was found.
    var selected: Int?
    /// The folder's own sub-folders (not hidden): their names and `file:` addresses, each
    /// ending in "/", and their names as on disk.
    var folderNames: [String] = []
    var folderLinks: [String] = []
    var folderFileNames: [[CChar]] = []

    /// What is kept of each picture besides its name and address.
    enum Details: Sendable {
        case none
        /// Its modification time and size (a `stat` each; no date taken), and its path.
        case status
        /// Its path as a number, to look it up in the index without a `stat`.
        case pathKeys
    }

    /// Reads `folder`; `selecting` is a file name (as on disk) to find and list even if hidden.
    /// `details` says what else is read of each picture. `pictures` is the recogniser to use
    /// (and whose answers to keep), for several folders read one after another on one thread.
    static func read(
        _ folder: URL, selecting: String?, details: Details = .none,
        pictures: PictureTypes = PictureTypes(), cancellable: Cancellable
    ) throws(PhotoSourceError) -> FolderListing {
        let path = folder.withUnsafeFileSystemRepresentation {
            Array(UnsafeBufferPointer(start: $0!, count: strlen($0!)))
        }
        return try read(
            path: path, folder: folder, selecting: selecting, details: details, pictures: pictures,
            cancellable: cancellable)
    }

    /// Reads the folder at `path` (its bytes, without a terminating zero; `folder` is its
    /// address, for what went wrong), as `read(_:…)` does. Each picture is named with `prefix`
    /// before its own name.
    static func read(
        path folderPath: [CChar], folder: URL, selecting: String?, details: Details = .none, prefix: String = "",
        pictures: PictureTypes = PictureTypes(), cancellable: Cancellable
    ) throws(PhotoSourceError) -> FolderListing {
        // Paths are the folder's path and each file name, as bytes: file names need not be UTF-8.
        var path = folderPath
        if path.last != 0x2F { path.append(0x2F) } // "/"
        let prefixLength = path.count
        path.append(0)
        guard let directory = path.withUnsafeBufferPointer({ opendir($0.baseAddress!) }) else {
            let code = errno
            throw error(code, folder: folder)
        }
        defer { closedir(directory) }
        let descriptor = dirfd(directory)
        let hiddenNames = Self.hiddenNames(in: descriptor)
        // The folder's own address, made once: a picture whose name needs no escaping has this
        // and its name as its address (GLib's, made afresh for each of 100,000 paths, was a
        // sixth of a tree's listing).
        let folderLink = path.withUnsafeBufferPointer { buffer -> [UInt8]? in
            guard let uri = g_filename_to_uri(buffer.baseAddress!, nil, nil) else { return nil }
            defer { g_free(uri) }
            let link = Array(String(cString: uri).utf8)
            return link.last == UInt8(ascii: "/") ? link : link + [UInt8(ascii: "/")]
        }
        let prefix = Array(prefix.utf8)
        var listing = FolderListing()
        var seen = 0

        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 {
                    throw error(errno, folder: folder)
                }
                break
            }
            seen += 1
            if seen % 4096 == 0, cancellable.isCancelled { throw .cancelled }
            let type = entry.pointee.d_type
            let keep = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: 256) { name -> Bool in
                    if name[0] == 0x2E, name[1] == 0 || (name[1] == 0x2E && name[2] == 0) { return false } // . and ..
                    let isSelected = selecting.map { strcmp($0, name) == 0 } ?? false
                    guard isSelected || !isHidden(name, hiddenNames) else { return false }
                    let length = strlen(name)
                    path.removeLast(path.count - prefixLength)
                    path.append(contentsOf: UnsafeBufferPointer(start: name, count: length))
                    path.append(0)
                    if isFolder(name, type: type, in: descriptor) {
                        if let uri = path.withUnsafeBufferPointer({ g_filename_to_uri($0.baseAddress!, nil, nil) }) {
                            listing.folderNames.append(displayName(name))
                            listing.folderLinks.append(String(cString: uri) + "/")
                            listing.folderFileNames.append(Array(UnsafeBufferPointer(start: name, count: length)))
                            g_free(uri)
                        }
                        return false
                    }
                    guard isRegularFile(name, type: type, in: descriptor) else { return false }
                    let isPicture =
                        switch pictures.verdict(forName: name) {
                        case .picture: true
                        case .other: false
                        case .unknown:
                            path.withUnsafeBufferPointer { pictures.isPicture(path: $0.baseAddress!, nameType: nil) }
                        }
                    // A Live Photo's clip is played by its still, not listed apart.
                    guard isPicture, isSelected || !LivePhoto.isPairedClip(name, in: descriptor) else { return false }
                    // The name as shown: the file's own where it is UTF-8 (as nearly all are).
                    let shown = g_utf8_validate(name, length, nil) != 0 ? nil : displayName(name)
                    let added = name.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                        let nameBytes = UnsafeBufferPointer(start: bytes, count: length)
                        if let folderLink, isPlain(name) {
                            folderLink.withUnsafeBufferPointer { listing.links.append($0, nameBytes) }
                        } else {
                            guard
                                let uri = path.withUnsafeBufferPointer({ g_filename_to_uri($0.baseAddress!, nil, nil) })
                            else { return false }
                            listing.links.append(UnsafeBufferPointer(start: nil, count: 0), cString: uri)
                            g_free(uri)
                        }
                        if isSelected { listing.selected = listing.names.count }
                        prefix.withUnsafeBufferPointer { prefix in
                            if let shown {
                                var shown = shown
                                shown.withUTF8 { listing.names.append(prefix, $0) }
                            } else {
                                listing.names.append(prefix, nameBytes)
                            }
                        }
                        return true
                    }
                    guard added else { return false }
                    switch details {
                    case .none: break
                    case .status:
                        // Beside the folder, not by the whole path: no walk down it for each file.
                        var status = stat()
                        listing.facts.append(fstatat(descriptor, name, &status, 0) == 0 ? SortFacts(status) : nil)
                        listing.paths.append(path.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
                    case .pathKeys:
                        listing.pathKeys.append(path.withUnsafeBytes { PathKey.of($0.dropLast()) })
                    }
                    return true
                }
            }
            _ = keep
        }
        return listing
    }

    /// Reads each picture's status (its modification time and size) and keeps its path, as
    /// `Details.status` does while listing.
    mutating func readStatus() {
        facts = []
        paths = []
        facts.reserveCapacity(links.count)
        paths.reserveCapacity(links.count)
        for link in links {
            guard let path = g_filename_from_uri(link, nil, nil) else {
                facts.append(nil)
                paths.append("")
                continue
            }
            defer { g_free(path) }
            var status = stat()
            facts.append(stat(path, &status) == 0 ? SortFacts(status) : nil)
            paths.append(String(cString: path))
        }
    }

    /// The entry for the file at `path` (one that appeared in a folder being watched), if it
    /// is a picture the folder would list: not hidden, a regular file, a picture by its name
    /// (or, where the name says nothing, by its content); with `folders`, also a sub-folder
    /// (not hidden) as an item.
    static func entry(forFile path: String, hiddenNames: Set<String>, folders: Bool = false) -> PhotoEntry? {
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        return name.withCString { name -> PhotoEntry? in
            guard !isHidden(name, hiddenNames) else { return nil }
            if folders, isFolder(name, type: UInt8(DT_UNKNOWN), in: AT_FDCWD, path: path) {
                guard let uri = g_filename_to_uri(path, nil, nil) else { return nil }
                defer { g_free(uri) }
                return PhotoEntry(name: displayName(name), link: String(cString: uri) + "/", base: nil)
            }
            guard isRegularFile(name, type: UInt8(DT_UNKNOWN), in: AT_FDCWD, path: path) else { return nil }
            let pictures = PictureTypes()
            let isPicture =
                switch pictures.verdict(forName: name) {
                case .picture: true
                case .other: false
                case .unknown: pictures.isPicture(path: path, nameType: nil)
                }
            guard isPicture, !LivePhoto.isPairedClip(path: path), let uri = g_filename_to_uri(path, nil, nil)
            else { return nil }
            defer { g_free(uri) }
            return PhotoEntry(name: displayName(name), link: String(cString: uri), base: nil)
        }
    }

    /// The names a folder's `.hidden` file lists.
    static func hiddenNames(inFolder path: String) -> Set<String> {
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return [] }
        defer { close(directory) }
        return hiddenNames(in: directory)
    }

    /// Whether `name` is a regular file (or a symbolic link to one), from the directory
    /// entry's type where it gives one.
    private static func isRegularFile(
        _ name: UnsafePointer<CChar>, type: UInt8, in directory: Int32,
        path: String? = nil
    ) -> Bool {
        switch Int32(type) {
        case Int32(DT_REG): return true
        case Int32(DT_LNK), Int32(DT_UNKNOWN):
            var status = stat()
            let found = path.map { stat($0, &status) } ?? fstatat(directory, name, &status, 0)
            return found == 0 && (status.st_mode & S_IFMT) == S_IFREG
        default: return false
        }
    }

    /// Whether `name` is a folder (or a symbolic link to one), from the directory entry's type
    /// where it gives one.
    static func isFolder(
        _ name: UnsafePointer<CChar>, type: UInt8, in directory: Int32, path: String? = nil
    ) -> Bool {
        switch Int32(type) {
        case Int32(DT_DIR): return true
        case Int32(DT_LNK), Int32(DT_UNKNOWN):
            var status = stat()
            let found = path.map { stat($0, &status) } ?? fstatat(directory, name, &status, 0)
            return found == 0 && (status.st_mode & S_IFMT) == S_IFDIR
        default: return false
        }
    }

    /// Whether a file name is made only of characters an address carries as they are
    /// (letters, digits, `-`, `.`, `_` and `~`, which no URI escapes).
    private static func isPlain(_ name: UnsafePointer<CChar>) -> Bool {
        var at = name
        while at.pointee != 0 {
            switch UInt8(bitPattern: at.pointee) {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                at += 1
            default: return false
            }
        }
        return true
    }

    private static func isHidden(_ name: UnsafePointer<CChar>, _ hiddenNames: Set<String>) -> Bool {
        if name[0] == 0x2E { return true }
        let length = strlen(name)
        if length > 0, name[length - 1] == 0x7E { return true } // "~": a backup
        return !hiddenNames.isEmpty && hiddenNames.contains(String(cString: name))
    }

    /// The names the folder's `.hidden` file lists, one per line, as file managers read it.
    private static func hiddenNames(in directory: Int32) -> Set<String> {
        let file = openat(directory, ".hidden", O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard file >= 0 else { return [] }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size <= 1 << 20 else {
            return []
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        let count = bytes.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress, $0.count) }
        guard count > 0 else { return [] }
        return Set(bytes[..<count].split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) })
    }

    /// The name as shown: the file name itself when it is UTF-8, GLib's rendering otherwise.
    private static func displayName(_ name: UnsafePointer<CChar>) -> String {
        if g_utf8_validate(name, -1, nil) != 0 { return String(cString: name) }
        let shown = g_filename_display_name(name)!
        defer { g_free(shown) }
        return String(cString: shown)
    }

    /// Why a folder could not be read, from `errno`.
    static func error(_ code: Int32, folder: URL) -> PhotoSourceError {
        switch code {
        case ENOENT: .notFound(path: folder.path)
        case ENOTDIR: .notAFolder(path: folder.path)
        case EACCES, EPERM: .permissionDenied(path: folder.path)
        default: .unreadable(path: folder.path, detail: String(cString: strerror(code)))
        }
    }
}

/// A path as a 64-bit number (FNV-1a over its bytes), to match the files of a listing with the
/// index's rows without making a string of either: a hundred thousand paths made into strings
/// and hashed as such were a fifth of the time a tree's listing took.
enum PathKey {
    static func of<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    static func of(_ path: String) -> UInt64 { of(path.utf8) }
}

/// Values by `PathKey`, in one flat table: the keys are hashes already, so a slot is found
/// from the key's own bits, with no hashing of it again, and the table is made at its whole
/// size at once. (A `Dictionary` took 15 ms to look a tree's 100,000 pictures up, most of the
/// time from its index to its first row in order.) Where two paths share a key, the later
/// value is kept, as a dictionary assigned to would keep it.
struct PathKeyTable<Value: Sendable>: Sendable {
    private var keys: [UInt64]
    private var values: [Value?]
    private let shift: UInt64
    /// How many keys it holds.
    private(set) var count = 0

    /// The table of `values[i]` by `keys[i]`.
    init(keys newKeys: [UInt64], values newValues: [Value]) {
        precondition(newKeys.count == newValues.count)
        // At most half full: a key is found within a slot or two.
        var bits: UInt64 = 4
        while 1 << bits < 2 * newKeys.count { bits += 1 }
        shift = 64 - bits
        keys = [UInt64](repeating: 0, count: 1 << bits)
        values = [Value?](repeating: nil, count: 1 << bits)
        for (key, value) in zip(newKeys, newValues) {
            var slot = slot(of: key)
            while values[slot] != nil, keys[slot] != key { slot = (slot + 1) & (keys.count - 1) }
            if values[slot] == nil { count += 1 }
            keys[slot] = key
            values[slot] = value
        }
    }

    subscript(key: UInt64) -> Value? {
        var slot = slot(of: key)
        while let value = values[slot] {
            if keys[slot] == key { return value }
            slot = (slot + 1) & (keys.count - 1)
        }
        return nil
    }

    /// The key's first slot, from its bits multiplied by the golden ratio's (Fibonacci
    /// hashing), which spreads keys that differ in a few bits only.
    private func slot(of key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }
}
