import CGLib
import CPhotoViewer
import GLibKit
import GtkKit
import PhotoPipeline

/// The photo editor's canvas (`CpCropCanvas`, the app's own widget in C), as a handle kind.
enum CropCanvas: WidgetKind { static var type: GType { cp_crop_canvas_get_type() } }

extension Handle where Kind == CropCanvas {
    static func make() -> Self { Self(made: cp_crop_canvas_new()) }

    /// The photo drawn over `rect` (widget coordinates; nil: nothing).
    func setPhoto(_ paintable: ObjectRef<GObject>?, in rect: CropFrame) {
        cp_crop_canvas_set_photo(widget, paintable?.opaque, rect.x, rect.y, rect.width, rect.height)
    }

    /// The crop's frame (widget coordinates), with lines dividing it (3: thirds; 0: none).
    func setFrame(_ frame: CropFrame, divisions: Int32) {
        cp_crop_canvas_set_frame(widget, frame.x, frame.y, frame.width, frame.height, divisions)
    }

    /// A line drawn over the photo from `from` to `to` (widget coordinates; nil: none).
    func setLine(from: (x: Double, y: Double)?, to: (x: Double, y: Double)?) {
        guard let from, let to else { return cp_crop_canvas_set_line(widget, 0, 0, 0, 0, 0) }
        cp_crop_canvas_set_line(widget, 1, from.x, from.y, to.x, to.y)
    }

    /// Whether the angle is being slid (drawn quickly on GTK's software renderer).
    func setTurning(_ turning: Bool) {
        cp_crop_canvas_set_turning(widget, turning ? 1 : 0)
    }

    /// The photo drawn turned `degrees` clockwise about its centre.
    func setAngle(_ degrees: Double) {
        cp_crop_canvas_set_angle(widget, degrees)
    }
}
