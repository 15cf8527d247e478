import Foundation
import PhotoPipeline
import Testing
import TestSupport

/// The crop's frame as the editor drags it (`CropFrame`): what a pointer takes hold of, where
/// the frame goes, the shapes it keeps, and how it turns with the photo.
@Suite struct CropFrameTests {
    let frame = CropFrame(x: 100, y: 50, width: 400, height: 300)
    let bounds = CropFrame(x: 0, y: 0, width: 800, height: 600)

    @Test("A pointer takes a corner before an edge, an edge before the inside, and nothing far outside")
    func handles() {
        #expect(frame.handle(atX: 102, y: 48, reach: 10) == .topLeft)
        #expect(frame.handle(atX: 495, y: 355, reach: 10) == .bottomRight)
        #expect(frame.handle(atX: 300, y: 52, reach: 10) == .top)
        #expect(frame.handle(atX: 505, y: 200, reach: 10) == .right)
        #expect(frame.handle(atX: 300, y: 200, reach: 10) == .inside)
        #expect(frame.handle(atX: 700, y: 200, reach: 10) == nil)
        #expect(frame.handle(atX: 300, y: 500, reach: 10) == nil)
    }

    @Test("Free: the edge held follows the pointer, within the photo and never under the smallest size")
    func free() {
        #expect(
            frame.dragged(.left, dx: -30, dy: 99, bounds: bounds, ratio: nil)
                == CropFrame(x: 70, y: 50, width: 430, height: 300))
        #expect(
            frame.dragged(.topLeft, dx: -500, dy: -500, bounds: bounds, ratio: nil)
                == CropFrame(x: 0, y: 0, width: 500, height: 350))
        let squeezed = frame.dragged(.right, dx: -1000, dy: 0, bounds: bounds, ratio: nil)
        #expect(squeezed.width == CropFrame.minimumSide && squeezed.x == 100)
        #expect(
            frame.dragged(.inside, dx: 1000, dy: -20, bounds: bounds, ratio: nil)
                == CropFrame(x: 400, y: 30, width: 400, height: 300))
    }

    @Test("Held to a shape, every drag keeps it and stays inside the photo, its far corner or edge anchored")
    func shaped() {
        var random = SplitMix64(state: 52)
        let handles = CropFrame.Handle.allCases.filter { $0 != .inside }
        for _ in 0..<2000 {
            let ratios: [Double] = [1, 4.0 / 3, 1.5, 16.0 / 9, 2.0 / 3]
            let ratio = ratios[Int(random.next() % 5)]
            let start = frame.held(to: ratio)
            let handle = handles[Int(random.next() % UInt64(handles.count))]
            let dx = Double(Int(random.next() % 1200)) - 600, dy = Double(Int(random.next() % 1200)) - 600
            let moved = start.dragged(handle, dx: dx, dy: dy, bounds: bounds, ratio: ratio)
            #expect(abs(moved.width / moved.height - ratio) < 1e-9, "\(handle) \(dx) \(dy)")
            #expect(moved.x >= -1e-9 && moved.y >= -1e-9, "\(handle) \(dx) \(dy): \(moved)")
            #expect(moved.x + moved.width <= bounds.width + 1e-9 && moved.y + moved.height <= bounds.height + 1e-9)
            if handle == .bottomRight {
                #expect(abs(moved.x - start.x) < 1e-9 && abs(moved.y - start.y) < 1e-9, "the top-left corner stays")
            }
        }
        let square = frame.held(to: 1)
        #expect(square == CropFrame(x: 150, y: 50, width: 300, height: 300))
    }

    @Test(
        "Inside what stays of a straightened photo (bounds not at the origin), every drag stays in it; a frame it no longer holds is cut to it, its shape kept"
    )
    func straightenedRoom() {
        let room = CropFrame(StraightenedJPEG.inscribed(width: 800, height: 600, degrees: 5))
        #expect(room.x > 0 && room.y > 0)
        var random = SplitMix64(state: 53)
        for _ in 0..<1000 {
            let handle = CropFrame.Handle.allCases[Int(random.next() % UInt64(CropFrame.Handle.allCases.count))]
            let dx = Double(Int(random.next() % 1600)) - 800, dy = Double(Int(random.next() % 1200)) - 600
            let ratio: Double? = random.next() % 2 == 0 ? nil : 1.5
            let start = (ratio.map { room.held(to: $0) } ?? room)
            let moved = start.dragged(handle, dx: dx, dy: dy, bounds: room, ratio: ratio)
            #expect(moved.x >= room.x - 1e-9 && moved.y >= room.y - 1e-9, "\(handle) \(dx) \(dy): \(moved)")
            #expect(
                moved.x + moved.width <= room.x + room.width + 1e-9
                    && moved.y + moved.height <= room.y + room.height + 1e-9, "\(handle) \(dx) \(dy): \(moved)")
        }
        // The whole photo, straightened: what stays.
        #expect(bounds.kept(inside: room, ratio: nil) == room)
        // A frame inside stays as it is; one across the edge is cut, held to its shape.
        let inside = CropFrame(x: 200, y: 200, width: 100, height: 100)
        #expect(inside.kept(inside: room, ratio: 1) == inside)
        let across = CropFrame(x: 0, y: 100, width: 300, height: 200)
        let cut = across.kept(inside: room, ratio: 1.5)
        #expect(abs(cut.width / cut.height - 1.5) < 1e-9 && cut.x >= room.x && cut.y >= room.y)
    }

    @Test(
        "A line drawn along what should be level or upright gives the angle that makes it so, whichever way it is drawn"
    )
    func levelling() {
        // 3° down to the right: turned 3° back.
        let drop = tan(3 * Double.pi / 180) * 300
        #expect(Levelling.angle(current: 0, lineDX: 300, lineDY: drop) == -3)
        #expect(Levelling.angle(current: 0, lineDX: -300, lineDY: -drop) == -3)
        // On a photo already turned 2°, what is still 3° off.
        #expect(Levelling.angle(current: 2, lineDX: 300, lineDY: drop) == -1)
        // Nearer upright: a post whose top leans 5° to the right is turned 5° back.
        let lean = tan(5 * Double.pi / 180) * 400
        #expect(Levelling.angle(current: 0, lineDX: lean, lineDY: -400) == -5)
        #expect(Levelling.angle(current: 0, lineDX: -lean, lineDY: 400) == -5)
        // Never beyond the slider's ends.
        #expect(Levelling.angle(current: 40, lineDX: 100, lineDY: -30) == 45)
    }

    @Test("Turned with the photo, the frame covers the pixels the turn moves it to; four quarter turns bring it back")
    func turning() {
        let rect = PixelRect(x: 100, y: 50, width: 400, height: 300)
        for mirrored in [false, true] {
            for quarterTurns in 0..<4 {
                let turn = PictureTurn(mirrored: mirrored, quarterTurns: quarterTurns)
                let turned = CropFrame(rect).turned(turn, in: (bounds.width, bounds.height))
                #expect(turned.pixels == turn.place(rect, width: 800, height: 600), "\(turn)")
            }
        }
        var frame = self.frame
        var size = (width: bounds.width, height: bounds.height)
        for _ in 0..<4 {
            frame = frame.turned(PictureTurn(quarterTurns: 1), in: size)
            size = (size.height, size.width)
        }
        #expect(frame == self.frame)
    }

    @Test("The shapes lie as asked; the original shape is the photo's own")
    func shapes() {
        #expect(CropShape.free.ratio(landscape: true, photo: (800, 600)) == nil)
        #expect(CropShape.threeTwo.ratio(landscape: true, photo: (800, 600)) == 1.5)
        #expect(CropShape.threeTwo.ratio(landscape: false, photo: (800, 600)) == 2.0 / 3.0)
        #expect(CropShape.original.ratio(landscape: false, photo: (600, 800)) == 0.75)
    }
}
