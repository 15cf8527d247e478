import Foundation

/// How many of a list's items are videos: in the whole list, and among those its filter shows.
/// What the window's subtitle counts ("120 photos, 8 videos").
public struct VideoTally: Sendable, Equatable {
    public let whole: Int
    public let shown: Int

    public init(whole: Int, shown: Int) {
        self.whole = whole
        self.shown = shown
    }

    /// What a tally reads of a list, taken on the main actor (a snapshot of the whole list, and
    /// which photos the filter shows), to count on any thread.
    public struct Source: Sendable {
        let photos: PhotoCollectionSnapshot
        let shown: [UInt64]?
        /// The list's edit this was taken at.
        public let version: Int
        public var count: Int { photos.count }

        /// Counts the videos (by their names, as a folder lists them): a fifth of a microsecond
        /// a photo, so a big list's tally is made off the main thread.
        public func tally() -> VideoTally {
            var videos = Set<UInt64>()
            for position in 0..<photos.count where PhotoEntry.isVideo(link: photos.link(at: position)) {
                videos.insert(photos.id(at: position).rawValue)
            }
            guard let shown else { return VideoTally(whole: videos.count, shown: videos.count) }
            return VideoTally(whole: videos.count, shown: videos.isEmpty ? 0 : shown.count { videos.contains($0) })
        }
    }
}

extension PhotoList {
    /// What `VideoTally.Source.tally()` counts, as the list is now.
    public func videoTallySource() -> VideoTally.Source {
        VideoTally.Source(photos: snapshot(), shown: shownIDs, version: version)
    }
}
