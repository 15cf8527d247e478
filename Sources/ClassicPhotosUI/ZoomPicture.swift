import CGLib
import CPhotoViewer
import GLibKit
import GtkKit

/// The viewer's zoomable picture (`CpZoomPicture`, the app's own widget in C), as a handle kind.
enum ZoomPicture: WidgetKind { static var type: GType { cp_zoom_picture_get_type() } }

extension Handle where Kind == ZoomPicture {
    /// A new picture drawing nothing.
    static func make() -> Self { Self(made: cp_zoom_picture_new()) }

    /// The picture drawn over the whole image's rectangle (nil: nothing).
    func setPaintable(_ paintable: ObjectRef<GObject>?) { cp_zoom_picture_set_paintable(widget, paintable?.opaque) }

    /// Where the whole image is drawn, in the widget's coordinates (the widget clips it).
    func setView(x: Double, y: Double, width: Double, height: Double) {
        cp_zoom_picture_set_view(widget, x, y, width, height)
    }
}
