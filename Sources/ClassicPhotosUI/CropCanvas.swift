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

    /// The crop's frame (widget coordinates), with the thirds drawn in it or not.
    func setFrame(_ frame: CropFrame, thirds: Bool) {
        cp_crop_canvas_set_frame(widget, frame.x, frame.y, frame.width, frame.height, thirds ? 1 : 0)
    }
}
