import Foundation

/// A crop being dragged into shape, in the photo's pixels (as turned): which part of its
/// frame a pointer holds, where that part goes as the pointer moves, and the shapes the
/// frame can be held to. Kept inside the photo and no smaller than `minimumSide`.
public struct CropFrame: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public init(_ rect: PixelRect) {
        self.init(x: Double(rect.x), y: Double(rect.y), width: Double(rect.width), height: Double(rect.height))
    }

    /// In whole pixels, as saved.
    public var pixels: PixelRect {
        let left = Int(x.rounded()), top = Int(y.rounded())
        return PixelRect(
            x: left, y: top, width: Int((x + width).rounded()) - left, height: Int((y + height).rounded()) - top)
    }

    public static let minimumSide = 16.0

    /// The part of the frame a pointer takes hold of.
    public enum Handle: Sendable, Equatable, CaseIterable {
        case topLeft, top, topRight, right, bottomRight, bottom, bottomLeft, left
        /// Inside the frame: the whole frame moves.
        case inside

        var movesLeft: Bool { [.topLeft, .left, .bottomLeft].contains(self) }
        var movesRight: Bool { [.topRight, .right, .bottomRight].contains(self) }
        var movesTop: Bool { [.topLeft, .top, .topRight].contains(self) }
        var movesBottom: Bool { [.bottomLeft, .bottom, .bottomRight].contains(self) }
    }

    /// What a pointer at (`px`, `py`) takes hold of, corners first, within `reach` of an edge
    /// (all in the photo's pixels); nil outside the frame and its edges.
    public func handle(atX px: Double, y py: Double, reach: Double) -> Handle? {
        let nearLeft = abs(px - x) <= reach, nearRight = abs(px - (x + width)) <= reach
        let nearTop = abs(py - y) <= reach, nearBottom = abs(py - (y + height)) <= reach
        let acrossX = px >= x - reach && px <= x + width + reach
        let acrossY = py >= y - reach && py <= y + height + reach
        guard acrossX, acrossY else { return nil }
        switch (nearLeft, nearRight, nearTop, nearBottom) {
        case (true, _, true, _): return .topLeft
        case (_, true, true, _): return .topRight
        case (true, _, _, true): return .bottomLeft
        case (_, true, _, true): return .bottomRight
        case (true, _, _, _): return .left
        case (_, true, _, _): return .right
        case (_, _, true, _): return .top
        case (_, _, _, true): return .bottom
        default: return px > x && px < x + width && py > y && py < y + height ? .inside : nil
        }
    }

    /// This frame with `handle` moved by (`dx`, `dy`), inside `bounds` (the picture, or what
    /// stays inside it once straightened), its width to height held at `ratio` when there is
    /// one.
    public func dragged(_ handle: Handle, dx: Double, dy: Double, bounds: CropFrame, ratio: Double?) -> CropFrame {
        let (minX, minY) = (bounds.x, bounds.y)
        let (maxX, maxY) = (bounds.x + bounds.width, bounds.y + bounds.height)
        if handle == .inside {
            return CropFrame(
                x: min(max(minX, x + dx), maxX - width), y: min(max(minY, y + dy), maxY - height),
                width: width, height: height)
        }
        let least = Self.minimumSide
        var left = x, right = x + width, top = y, bottom = y + height
        if handle.movesLeft { left = min(max(minX, left + dx), right - least) }
        if handle.movesRight { right = max(min(maxX, right + dx), left + least) }
        if handle.movesTop { top = min(max(minY, top + dy), bottom - least) }
        if handle.movesBottom { bottom = max(min(maxY, bottom + dy), top + least) }
        guard let ratio else { return CropFrame(x: left, y: top, width: right - left, height: bottom - top) }
        // Held to a shape: the side dragged leads (a corner: whichever moved more), the other
        // follows, anchored at the opposite edge or corner, and both shrink to stay inside.
        var w = right - left, h = bottom - top
        let sideways = handle == .left || handle == .right
        let upDown = handle == .top || handle == .bottom
        if sideways || (!upDown && abs(dx) >= abs(dy)) { h = w / ratio } else { w = h * ratio }
        let anchorX = handle.movesLeft ? right : handle.movesRight ? left : (left + right) / 2
        let anchorY = handle.movesTop ? bottom : handle.movesBottom ? top : (top + bottom) / 2
        let roomX = Self.room(anchorX, from: minX, to: maxX, before: handle.movesLeft, after: handle.movesRight)
        let roomY = Self.room(anchorY, from: minY, to: maxY, before: handle.movesTop, after: handle.movesBottom)
        let scale = min(1, roomX / w, roomY / h)
        w *= scale
        h *= scale
        let newX = handle.movesLeft ? anchorX - w : handle.movesRight ? anchorX : anchorX - w / 2
        let newY = handle.movesTop ? anchorY - h : handle.movesBottom ? anchorY : anchorY - h / 2
        return CropFrame(x: newX, y: newY, width: w, height: h)
    }

    /// The room along one axis for a side anchored at `anchor` between `low` and `high`:
    /// growing `before` it, `after` it, or both ways about it.
    private static func room(_ anchor: Double, from low: Double, to high: Double, before: Bool, after: Bool) -> Double {
        before ? anchor - low : after ? high - anchor : 2 * min(anchor - low, high - anchor)
    }

    /// This frame kept inside `bounds`: as it is where it fits, else what of it lies inside
    /// (`ratio`, when there is one, held about its centre).
    public func kept(inside bounds: CropFrame, ratio: Double?) -> CropFrame {
        let left = max(x, bounds.x), top = max(y, bounds.y)
        let right = min(x + width, bounds.x + bounds.width), bottom = min(y + height, bounds.y + bounds.height)
        guard right - left >= Self.minimumSide, bottom - top >= Self.minimumSide else { return bounds }
        let inside = CropFrame(x: left, y: top, width: right - left, height: bottom - top)
        guard inside != self, let ratio else { return inside }
        return inside.held(to: ratio)
    }

    /// The largest frame of width to height `ratio` inside this one, about its centre.
    public func held(to ratio: Double) -> CropFrame {
        let w = min(width, height * ratio), h = w / ratio
        return CropFrame(x: x + (width - w) / 2, y: y + (height - h) / 2, width: w, height: h)
    }

    /// This frame in the picture turned by `turn` (`picture` its size before).
    public func turned(_ turn: PictureTurn, in picture: (width: Double, height: Double)) -> CropFrame {
        // The frame's corners, turned as points on the continuous plane.
        var corners = [(x, y), (x + width, y + height)]
        var (w, h) = picture
        if turn.mirrored { corners = corners.map { (w - $0.0, $0.1) } }
        for _ in 0..<turn.quarterTurns {
            corners = corners.map { (h - $0.1, $0.0) }
            swap(&w, &h)
        }
        let xs = corners.map(\.0), ys = corners.map(\.1)
        return CropFrame(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
    }
}

/// The shapes a crop can be held to.
public enum CropShape: String, Sendable, CaseIterable {
    case free, original, square
    case fourThree = "4:3"
    case threeTwo = "3:2"
    case sixteenNine = "16:9"

    /// Width over height, lying the way `landscape` says (nil: any shape); `original` is the
    /// photo's own, as turned.
    public func ratio(landscape: Bool, photo: (width: Double, height: Double)) -> Double? {
        let wide: Double? =
            switch self {
            case .free: nil
            case .original: max(photo.width, photo.height) / min(photo.width, photo.height)
            case .square: 1
            case .fourThree: 4 / 3
            case .threeTwo: 3 / 2
            case .sixteenNine: 16 / 9
            }
        return wide.map { landscape ? $0 : 1 / $0 }
    }
}

/// Straightening by a line drawn on the photo as shown: the angle that makes it level, or
/// upright when it is nearer upright.
public enum Levelling {
    /// The straightening that makes level (or upright) a line going `dx`, `dy` across the photo
    /// as shown now, straightened by `current` degrees; to a tenth of a degree, within ±45°.
    public static func angle(current: Double, lineDX dx: Double, lineDY dy: Double) -> Double {
        // Clockwise from the right, as the screen's y grows downwards.
        var slope = atan2(dy, dx) * 180 / .pi
        // A line drawn right to left is the same line.
        if slope > 90 { slope -= 180 } else if slope < -90 { slope += 180 }
        // Nearer upright: made upright.
        if slope > 45 { slope -= 90 } else if slope < -45 { slope += 90 }
        let wanted = ((current - slope) * 10).rounded() / 10
        return min(max(wanted, -45), 45)
    }
}
