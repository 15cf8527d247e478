import Foundation

/// How much the app's caches take on disk.
public enum DiskUsage {
    /// The bytes of every file under `folder`, sub-folders included (0 if there is none).
    public static func bytes(under folder: URL) -> Int {
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey])
        var total = 0
        while let file = files?.nextObject() as? URL {
            total += (try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
        }
        return total
    }
}
