/// One of the eight ways a picture can lie: mirrored left to right or not, then turned a
/// number of quarter turns clockwise. EXIF's eight orientations are these, and so are
/// TurboJPEG's lossless transforms; an edit's turns and flips compose into one.
public struct PictureTurn: Sendable, Hashable, Codable {
    /// Mirrored left to right first.
    public let mirrored: Bool
    /// Then turned this many quarter turns clockwise (0–3).
    public let quarterTurns: Int

    public init(mirrored: Bool = false, quarterTurns: Int = 0) {
        self.mirrored = mirrored
        self.quarterTurns = (quarterTurns % 4 + 4) % 4
    }

    public static let upright = PictureTurn()

    /// The turn that shows a picture stored with EXIF orientation `orientation` (1–8)
    /// upright (anything else is taken as 1).
    public init(exifOrientation orientation: Int) {
        switch orientation {
        case 2: self.init(mirrored: true)
        case 3: self.init(quarterTurns: 2)
        case 4: self.init(mirrored: true, quarterTurns: 2)
        case 5: self.init(mirrored: true, quarterTurns: 3)
        case 6: self.init(quarterTurns: 1)
        case 7: self.init(mirrored: true, quarterTurns: 1)
        case 8: self.init(quarterTurns: 3)
        default: self.init()
        }
    }

    /// The EXIF orientation that asks for this turn (the inverse of `init(exifOrientation:)`).
    public var exifOrientation: Int {
        (1...8).first { PictureTurn(exifOrientation: $0) == self } ?? 1
    }

    /// This turn, and then `next`.
    public func then(_ next: PictureTurn) -> PictureTurn {
        // A mirror after a turn is the mirror before the opposite turn.
        next.mirrored
            ? PictureTurn(mirrored: !mirrored, quarterTurns: next.quarterTurns - quarterTurns)
            : PictureTurn(mirrored: mirrored, quarterTurns: quarterTurns + next.quarterTurns)
    }

    /// A quarter turn clockwise (or counter-clockwise) more.
    public func turned(clockwise: Bool) -> PictureTurn {
        then(PictureTurn(quarterTurns: clockwise ? 1 : 3))
    }

    /// Mirrored left to right (or, `vertically`, top to bottom) as the picture now lies.
    public func flipped(vertically: Bool = false) -> PictureTurn {
        then(PictureTurn(mirrored: true, quarterTurns: vertically ? 2 : 0))
    }

    /// Whether width and height trade places.
    public var swapsSides: Bool { quarterTurns % 2 == 1 }

    /// The size of a `width` × `height` picture once turned.
    public func size(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsSides ? (height, width) : (width, height)
    }

    /// Where the pixel at (`x`, `y`) of a `width` × `height` picture lands once turned.
    public func place(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        var (x, y, width, height) = (mirrored ? width - 1 - x : x, y, width, height)
        for _ in 0..<quarterTurns {
            (x, y) = (height - 1 - y, x)
            swap(&width, &height)
        }
        return (x, y)
    }

    /// Where the rectangle `rect` of a `width` × `height` picture lands once turned.
    public func place(_ rect: PixelRect, width: Int, height: Int) -> PixelRect {
        let first = place(x: rect.x, y: rect.y, width: width, height: height)
        let last = place(x: rect.x + rect.width - 1, y: rect.y + rect.height - 1, width: width, height: height)
        return PixelRect(
            x: min(first.x, last.x), y: min(first.y, last.y), width: abs(last.x - first.x) + 1,
            height: abs(last.y - first.y) + 1)
    }
}

/// A rectangle of whole pixels.
public struct PixelRect: Sendable, Hashable, Codable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// What this and `other` share (nil: nothing).
    public func intersection(_ other: PixelRect) -> PixelRect? {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
        guard right > left, bottom > top else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}

/// What a person did to a photo in the editor: turned and flipped it as it is shown (upright),
/// straightened it by a few degrees, then kept part of it.
public struct PhotoEdit: Sendable, Hashable, Codable {
    /// How the upright photo is turned and mirrored.
    public var turn: PictureTurn
    /// Degrees the turned photo is then turned about its centre, clockwise (−45…45; 0: none).
    /// Straightened, the photo keeps at most the largest rectangle of its own shape inside it
    /// (`StraightenedJPEG.inscribed`).
    public var straighten: Double
    /// What is kept, in pixels of the photo as turned and straightened; nil: all of it (once
    /// straightened, all that stays inside).
    public var crop: PixelRect?

    public init(turn: PictureTurn = .upright, straighten: Double = 0, crop: PixelRect? = nil) {
        self.turn = turn
        self.straighten = min(max(straighten, -45), 45)
        self.crop = crop
    }

    /// Whether saving it would change nothing.
    public var isEmpty: Bool { turn == .upright && straighten == 0 && crop == nil }

    /// Whether it can be saved without decoding a JPEG (no straightening).
    public var isLosslessForJPEG: Bool { straighten == 0 }
}
