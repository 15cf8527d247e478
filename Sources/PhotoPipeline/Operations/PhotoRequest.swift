import Foundation

/// What shared photo work is of (see `WorkSharing`): a photo by its address, the size it is
/// wanted at, and which work.
public struct PhotoRequest: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// A row's or cell's picture: decoded for a frame of `size` pixels (a square cut from
        /// the photo, or the whole of it), and sepia.
        case picture(ThumbnailFrame.Fill)
        /// The download of the row showing the photo `PhotoID` (which the viewer joins).
        case rowDownload(PhotoID)
    }

    public let address: URL
    /// In pixels; nil where the work does not depend on it.
    public let size: Int?
    public let kind: Kind

    public init(address: URL, size: Int?, kind: Kind) {
        self.address = address
        self.size = size
        self.kind = kind
    }
}
