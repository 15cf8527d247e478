import Foundation
import GLibKit
import PhotoPipeline

/// How many sub-folders each sub-folder shown holds, and how many pictures are in it and
/// beneath it, for its row and cell ("3 folders, 120 photos in all"): counted the first time
/// its row is shown, off the main thread, one folder after another (names only, as a folder
/// is listed), and kept until another list opens.
@MainActor
final class FolderCounts {
    private var counted: [String: (folders: Int, pictures: Int)] = [:]
    private var counting: Set<String> = []
    private let queue = DispatchQueue(label: "classic-photos.folder-counts", qos: .utility)
    private var cancellable = Cancellable()
    /// A folder was counted: its address (as its entry has it).
    var onCounted: ((String) -> Void)?

    /// What the folder `entry` holds, in words; nil until it is counted (counting begins).
    func summary(of entry: PhotoEntry) -> String? {
        let link = entry.link
        if let count = counted[link] {
            guard count.folders > 0, count.pictures > 0 else {
                return Self.text(folders: count.folders, pictures: count.pictures)
            }
            return String(
                format: ntr("%1$@ folder, %2$@ in all", "%1$@ folders, %2$@ in all", count.folders),
                Localization.number(count.folders),
                String(format: ntr("%@ photo", "%@ photos", count.pictures), Localization.number(count.pictures)))
        }
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

    /// "3 folders, 12 photos", "12 photos", "3 folders" or "Empty".
    static func text(folders: Int, pictures: Int) -> String {
        let photos = String(format: ntr("%@ photo", "%@ photos", pictures), Localization.number(pictures))
        switch (folders, pictures) {
        case (0, 0): return tr("Empty")
        case (0, _): return photos
        case (_, 0): return String(format: ntr("%@ folder", "%@ folders", folders), Localization.number(folders))
        default:
            return String(
                format: ntr("%1$@ folder, %2$@", "%1$@ folders, %2$@", folders), Localization.number(folders), photos)
        }
    }
}
