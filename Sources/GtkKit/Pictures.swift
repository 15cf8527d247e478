import CGLib
import CGtk
import GLibKit

// Pictures: the widget that shows one, the texture it shows, and the spinner shown meanwhile.

extension Handle where Kind == Picture {
    /// A new picture showing nothing.
    public static func make() -> Self { Self(made: gtk_picture_new()) }

    /// Shows `paintable` (a texture), or nothing.
    public func setPaintable(_ paintable: ObjectRef<GObject>?) { gtk_picture_set_paintable(opaque, paintable?.opaque) }
    public func setCanShrink(_ shrink: Bool) { gtk_picture_set_can_shrink(opaque, shrink ? 1 : 0) }
    public func setContentFit(_ fit: GtkContentFit) { gtk_picture_set_content_fit(opaque, fit) }
    public func setAlternativeText(_ text: String) { gtk_picture_set_alternative_text(opaque, text) }
}

extension Handle where Kind == Texture {
    /// A new texture of `pixbuf`'s pixels, as the reference that keeps it.
    public static func make(from pixbuf: OpaquePointer) -> ObjectRef<GObject> {
        ObjectRef(takingOpaque: gdk_texture_new_for_pixbuf(pixbuf))
    }
}

extension Handle where Kind == Spinner {
    /// A new spinner, not spinning.
    public static func make() -> Self { Self(made: gtk_spinner_new()) }

    public var isSpinning: Bool {
        get { gtk_spinner_get_spinning(opaque) != 0 }
        nonmutating set { gtk_spinner_set_spinning(opaque, newValue ? 1 : 0) }
    }
}
