import PhotoPipeline

/// What a sub-folder holds, in words, for its row and cell.
extension FolderCounts {
    /// "3 folders, 120 photos in all", "12 photos", "Empty"; nil until the folder is counted
    /// (counting begins).
    func summary(of entry: PhotoEntry) -> String? {
        guard let count = count(of: entry) else { return nil }
        guard count.folders > 0, count.pictures > 0 else {
            return Self.text(folders: count.folders, pictures: count.pictures)
        }
        return String(
            format: ntr("%1$@ folder, %2$@ in all", "%1$@ folders, %2$@ in all", count.folders),
            Localization.number(count.folders),
            String(format: ntr("%@ photo", "%@ photos", count.pictures), Localization.number(count.pictures)))
    }

    /// "3 folders, 12 photos", "12 photos", "3 folders" or "Empty"; with videos among the
    /// pictures, "3 folders, 12 photos, 2 videos" ("2 videos" alone).
    static func text(folders: Int, pictures: Int, videos: Int = 0) -> String {
        switch (folders, pictures) {
        case (0, 0): return tr("Empty")
        case (0, _): return items(pictures: pictures, videos: videos)
        case (_, 0): return String(format: ntr("%@ folder", "%@ folders", folders), Localization.number(folders))
        default:
            return String(
                format: ntr("%1$@ folder, %2$@", "%1$@ folders, %2$@", folders), Localization.number(folders),
                items(pictures: pictures, videos: videos))
        }
    }

    /// "12 photos", "12 photos, 2 videos", "2 videos" ("0 photos" for none) for `pictures`
    /// of which `videos` are videos.
    static func items(pictures: Int, videos: Int) -> String {
        let stills = pictures - videos
        let photos = String(format: ntr("%@ photo", "%@ photos", stills), Localization.number(stills))
        guard videos > 0 else { return photos }
        guard stills > 0 else {
            return String(format: ntr("%@ video", "%@ videos", videos), Localization.number(videos))
        }
        return String(
            format: ntr("%1$@, %2$@ video", "%1$@, %2$@ videos", videos), photos, Localization.number(videos))
    }
}
