import CExiv2Setup
import CTurboJPEG
import Foundation
import GLibKit

/// A JPEG turned, flipped and cropped without being decoded: TurboJPEG moves, mirrors and
/// transposes its compressed 8×8 blocks (the transforms jpegtran makes), so every pixel kept
/// is the one the camera wrote. Runs in a decoder helper: the file is untrusted input.
///
/// Two limits come with working on blocks, both said in `Outcome`:
/// - a crop's top-left corner must lie on the block grid (the MCU: 8 or 16 pixels, more for
///   4:1:1), so it moves up and left to the nearest line (by at most 15 pixels in photos);
///   the far edges stay where they were asked;
/// - a picture whose width or height is not a whole number of blocks has a partial block
///   along its right or bottom edge, which cannot be mirrored; a turn or flip that would bring
///   it to another edge drops it (jpegtran's `-trim`), at most 15 pixels on one side.
/// Every marker is kept as it was (EXIF, the ICC profile, XMP, comments), but for what the edit
/// made untrue: the EXIF orientation is set upright (the turn it asked for is now in the
/// blocks), the pixel size it states is the new one, and its thumbnail (the photo before) goes.
public enum LosslessJPEG {
    public struct Outcome: Sendable, Codable, Equatable {
        /// What was kept, in pixels of the photo as turned (upright, then the edit's turn):
        /// the crop asked for, its corner moved to the block grid, less any edge dropped.
        public var kept: PixelRect
        /// How far the crop's corner moved left and up to the block grid.
        public var cornerMoved: Int
        /// How many pixels of the edge the turn or flip dropped (partial blocks).
        public var edgeDropped: Int
    }

    /// `jpeg` with `edit` applied, its EXIF orientation (the turn that shows it upright) taken
    /// into the turn.
    /// A straightening cannot be done on blocks: `StraightenedJPEG` then decodes and encodes.
    public static func apply(_ edit: PhotoEdit, to jpeg: Data) throws(PhotoFailure) -> (Data, Outcome) {
        guard edit.isLosslessForJPEG else { return try StraightenedJPEG.apply(edit, to: jpeg) }
        guard let handle = tjInitTransform() else {
            throw PhotoFailure(.damaged(format: "jpeg"), detail: "TurboJPEG could not start")
        }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let read = jpeg.withUnsafeBytes { raw in
            tjDecompressHeader3(
                handle, raw.cBytes, UInt(raw.count), &width, &height, &subsampling,
                &colorspace)
        }
        guard read == 0, width > 0, height > 0 else { throw failure(handle) }
        let orientation = ExifOrientation.orientation(of: jpeg)
        let turn = PictureTurn(exifOrientation: orientation).then(edit.turn)
        guard
            let plan = Plan(
                turn: turn, width: Int(width), height: Int(height), block: Self.block(subsampling), crop: edit.crop)
        else {
            throw PhotoFailure(.damaged(format: "jpeg"), detail: "The crop keeps nothing of the photo")
        }

        var transform = tjtransform()
        transform.op = Int32(plan.operation.rawValue)
        transform.options = TJXOPT_TRIM
        if ProgressiveJPEG.isProgressive([UInt8](jpeg.prefix(64 << 10))) { transform.options |= TJXOPT_PROGRESSIVE }
        if let region = plan.region {
            transform.options |= TJXOPT_CROP
            transform.r = tjregion(
                x: Int32(region.x), y: Int32(region.y), w: Int32(region.width), h: Int32(region.height))
        }
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize: UInt = 0
        let status = jpeg.withUnsafeBytes { raw in
            tjTransform(
                handle, raw.cBytes, UInt(raw.count), 1, &output, &outputSize,
                &transform, 0)
        }
        defer { tjFree(output) }
        guard status == 0, let output else { throw failure(handle) }
        var transformed = Data(bytes: output, count: Int(outputSize))
        if orientation != 1 {
            do {
                transformed = try ExifOrientation.setting(transformed, to: 1)
            } catch {
                throw PhotoFailure(.damaged(format: "jpeg"), detail: error.message)
            }
        }
        // The EXIF made true to the picture: the size it states, and no thumbnail of the photo
        // as it was before.
        if PhotoDetails.exiv2Ready {
            var size = 0
            var message: UnsafeMutablePointer<CChar>?
            let fixed = transformed.withUnsafeBytes {
                cp_exiv2_exif_after_edit($0.cBytes, $0.count, plan.kept.width, plan.kept.height, &size, &message)
            }
            free(message)
            if let fixed {
                transformed = Data(bytes: fixed, count: size)
                free(fixed)
            }
        }
        let outcome = Outcome(kept: plan.kept, cornerMoved: plan.cornerMoved, edgeDropped: plan.edgeDropped)
        return (transformed, outcome)
    }

    /// The MCU's width and height for TurboJPEG's subsampling constant.
    private static func block(_ subsampling: Int32) -> (width: Int, height: Int) {
        switch subsampling {
        case Int32(TJSAMP_422.rawValue): (16, 8)
        case Int32(TJSAMP_420.rawValue): (16, 16)
        case Int32(TJSAMP_440.rawValue): (8, 16)
        case Int32(TJSAMP_411.rawValue): (32, 8)
        default: (8, 8)
        }
    }

    private static func failure(_ handle: tjhandle) -> PhotoFailure {
        let message = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown error"
        return PhotoFailure(.damaged(format: "jpeg"), detail: "TurboJPEG: \(message)")
    }

    /// What TurboJPEG is asked for, worked out from the picture's size and block grid.
    struct Plan: Equatable {
        let operation: TJXOP
        /// The crop, in the transformed picture as TurboJPEG lays it out (the dropped edge
        /// gone), its corner on the block grid; nil: no crop.
        let region: PixelRect?
        /// What is kept, in the picture turned whole.
        let kept: PixelRect
        let cornerMoved: Int
        let edgeDropped: Int

        /// Nil when `crop` keeps nothing.
        init?(turn: PictureTurn, width: Int, height: Int, block: (width: Int, height: Int), crop: PixelRect?) {
            operation = Self.operation(turn)
            let turned = turn.size(width: width, height: height)
            let turnedBlock = turn.swapsSides ? (width: block.height, height: block.width) : block
            // A partial block is dropped from the transformed picture's right or bottom edge
            // where the transform cannot leave it there (libjpeg's trim rules).
            let (trimsRight, trimsBottom) = Self.trims(operation)
            // (A picture smaller than one block keeps it.)
            func trimmed(_ side: Int, _ block: Int, _ trims: Bool) -> Int {
                trims && side >= block ? side - side % block : side
            }
            let kept = (
                width: trimmed(turned.width, turnedBlock.width, trimsRight),
                height: trimmed(turned.height, turnedBlock.height, trimsBottom)
            )
            // What stays is the stored picture without its partial blocks, turned: where that
            // lies in the picture turned whole.
            let source = (
                width: turn.swapsSides ? kept.height : kept.width, height: turn.swapsSides ? kept.width : kept.height
            )
            let origin = turn.place(
                PixelRect(x: 0, y: 0, width: source.width, height: source.height), width: width, height: height)
            let whole = PixelRect(x: 0, y: 0, width: kept.width, height: kept.height)
            guard let crop else {
                region = nil
                self.kept = PixelRect(x: origin.x, y: origin.y, width: kept.width, height: kept.height)
                cornerMoved = 0
                edgeDropped = (turned.width - kept.width) + (turned.height - kept.height)
                return
            }
            guard
                let asked = PixelRect(
                    x: crop.x - origin.x, y: crop.y - origin.y, width: crop.width, height: crop.height
                )
                .intersection(whole)
            else { return nil }
            // TurboJPEG checks the corner against the stored picture's grid, libjpeg against
            // the turned one's: on both.
            let step = (width: max(block.width, turnedBlock.width), height: max(block.height, turnedBlock.height))
            let x = asked.x - asked.x % step.width, y = asked.y - asked.y % step.height
            let cropped = PixelRect(
                x: x, y: y, width: asked.x + asked.width - x, height: asked.y + asked.height - y)
            region = cropped
            self.kept = PixelRect(
                x: origin.x + cropped.x, y: origin.y + cropped.y, width: cropped.width, height: cropped.height)
            cornerMoved = max(asked.x - x, asked.y - y)
            // What the crop asked for beyond what stays.
            edgeDropped = (crop.width - asked.width) + (crop.height - asked.height)
        }

        /// TurboJPEG's transform for a turn.
        static func operation(_ turn: PictureTurn) -> TJXOP {
            switch (turn.mirrored, turn.quarterTurns) {
            case (false, 1): TJXOP_ROT90
            case (false, 2): TJXOP_ROT180
            case (false, 3): TJXOP_ROT270
            case (true, 0): TJXOP_HFLIP
            case (true, 1): TJXOP_TRANSVERSE
            case (true, 2): TJXOP_VFLIP
            case (true, 3): TJXOP_TRANSPOSE
            default: TJXOP_NONE
            }
        }

        /// Whether the transform drops a partial block from its result's right and bottom edges.
        static func trims(_ operation: TJXOP) -> (right: Bool, bottom: Bool) {
            switch operation {
            case TJXOP_HFLIP, TJXOP_ROT90: (true, false)
            case TJXOP_VFLIP, TJXOP_ROT270: (false, true)
            case TJXOP_TRANSVERSE, TJXOP_ROT180: (true, true)
            default: (false, false)
            }
        }
    }
}
