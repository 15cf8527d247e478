import Foundation
import GLibKit

/// How many sub-folders each sub-folder shown holds, and how many pictures are in it and
/// beneath it, for its row and cell ("3 folders, 120 photos in all"): counted the first time
/// its row is shown, off the main thread, one folder after another (names only, as a folder
/// is listed), and kept until another list opens. The words for them are the views' (see
/// `summary(of:)` in the UI).
@MainActor
public final class FolderCounts {
    private var counted: [String: (folders: Int, pictures: Int)] = [:]
    private var counting: Set<String> = []
    private let queue = DispatchQueue(label: "classic-photos.folder-counts", qos: .utility)
    private var cancellable = Cancellable()

    public init() {}

    /// A folder was counted: its address (as its entry has it).
    public var onCounted: ((String) -> Void)?

    /// What the folder `entry` holds: how many sub-folders, and pictures in it and beneath it;
    /// nil until it is counted (counting begins, and `onCounted` tells when it is done).
    public func count(of entry: PhotoEntry) -> (folders: Int, pictures: Int)? {
        let link = entry.link
        if let count = counted[link] { return count }
        guard !counting.contains(link), let url = URL(string: link) else { return nil }
        counting.insert(link)
        let cancellable = cancellable
        queue.async {
            guard !cancellable.isCancelled else { return }
            let count = FolderSource.contents(of: url, cancellable: cancellable)
            MainLoop.onMainActor { [weak self] in
                guard let self, !cancellable.isCancelled else { return }
                counting.remove(link)
                guard let count else { return }
                counted[link] = count
                onCounted?(link)
            }
        }
        return nil
    }

    /// Another list opened: what was counted may have changed since.
    func forget() {
        cancellable.cancel()
        cancellable = Cancellable()
        counted = [:]
        counting = []
    }
}
