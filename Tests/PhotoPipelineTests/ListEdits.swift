@testable import PhotoPipeline

/// The list a processor works on, filled directly (the app fills it through `PhotoListFeed`).
extension PhotoProcessor {
    /// Replaces the list with `entries` in one edit.
    func setEntries(_ entries: [PhotoEntry]) {
        list.apply(.replaceAll(entries))
    }

    /// Adds photos after the last row; the positions they took.
    @discardableResult
    func append(_ entries: [PhotoEntry]) -> Range<Int> {
        let start = list.count
        list.apply(.append(PackedEntries(entries)))
        return start..<list.count
    }
}
