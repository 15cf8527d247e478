import CGdkPixbuf
import Foundation

/// The box a row's or a cell's picture is made for, in device pixels: a square cut from the
/// middle of the photo (the list's rows), or the whole photo within a square (the grid's cells).
/// Every stage asks it the same questions: does this picture serve it, which cached size to
/// look in, what to decode, and how to turn a larger picture into the one shown.
public struct ThumbnailFrame: Sendable, Hashable, CustomStringConvertible {
    public enum Fill: String, Sendable, Hashable {
        /// A centred square of the photo fills the box.
        case crop
        /// The whole photo, scaled to fit the box (its longer side the box's side).
        case whole
    }

    /// The box's side, in device pixels.
    public var side: Int
    public var fill: Fill

    public init(side: Int, fill: Fill) {
        self.side = max(1, side)
        self.fill = fill
    }

    /// A square of `side` pixels cut from the middle of the photo.
    public static func square(_ side: Int) -> ThumbnailFrame { ThumbnailFrame(side: side, fill: .crop) }
    /// The whole photo within `side`×`side` pixels.
    public static func whole(_ side: Int) -> ThumbnailFrame { ThumbnailFrame(side: side, fill: .whole) }

    public var description: String { "\(fill.rawValue) \(side)" }

    /// Whether a picture of `width`×`height` holds enough pixels for the frame: shown in it,
    /// it is drawn at its own size or smaller, never enlarged.
    public func isCovered(width: Int, height: Int) -> Bool {
        switch fill {
        case .crop: min(width, height) >= side
        case .whole: max(width, height) >= side
        }
    }

    /// Whether a picture of `width`×`height` made for this frame's kind serves it without
    /// costing far more than it should: covering it, and less than twice as large (a picture
    /// for a much larger box costs memory and drawing time in a small one).
    func isServedWell(width: Int, height: Int) -> Bool {
        let measure = fill == .crop ? min(width, height) : max(width, height)
        return measure >= side && measure < 2 * side
    }

    /// What the decoder is asked for when the picture is not also kept in a thumbnail cache.
    public var decodeSize: DecodeSize {
        switch fill {
        case .crop: .square(side)
        case .whole: .fit(side)
        }
    }

    /// The shared thumbnail cache's smallest size whose thumbnails of photos up to 4:3 serve
    /// the frame: where to look first.
    public var servingCacheSize: ThumbnailCache.Size {
        switch fill {
        case .crop: .serving(squareSide: side)
        case .whole: ThumbnailCache.Size.allCases.first { $0.rawValue >= side } ?? .xxLarge
        }
    }

    /// What the decoder is asked for when the picture is kept in a thumbnail cache too: the
    /// whole photo, at the smallest cache size whose thumbnail serves the frame.
    public var cachedDecodeSize: DecodeSize {
        switch fill {
        case .crop: .thumbnail(square: side)
        case .whole: .fit(servingCacheSize.rawValue)
        }
    }

    /// The cache size a photo of `width`×`height` is decoded to when its thumbnail is kept: the
    /// smallest whose thumbnail still serves the frame.
    public func cacheSize(width: Int, height: Int) -> ThumbnailCache.Size {
        switch fill {
        case .crop: .fitting(square: side, width: width, height: height)
        case .whole: servingCacheSize
        }
    }

    /// The picture shown in the frame, made from `image` (a decode, a cached thumbnail, a
    /// photo's own thumbnail): its centred square, or the whole of it, scaled down to the
    /// frame if it is larger; never enlarged.
    public func shape(_ image: PhotoImage) -> PhotoImage {
        let shaped: PhotoImage
        switch fill {
        case .crop:
            shaped = ImageDecoder.centreSquare(of: image, side: side)
        case .whole:
            let (width, height) = ImageDecoder.scaledSize(width: image.width, height: image.height, for: .fit(side))
            guard width != image.width || height != image.height,
                let scaled = gdk_pixbuf_scale_simple(image.pixbuf, Int32(width), Int32(height), GDK_INTERP_BILINEAR)
            else { return image }
            shaped = PhotoImage(taking: scaled)
        }
        image.passVideoMarks(to: shaped)
        return shaped
    }
}
