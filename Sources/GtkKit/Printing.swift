import CGLib
import CGtk
import GLibKit

// Printing: a print operation of one page, and drawing a picture on that page.

extension Handle where Kind == PrintOperation {
    /// A new operation printing one page as the job `name`, asynchronously where the platform
    /// can, on a page in `orientation` by default; as the reference that keeps it alive.
    public static func make(jobName name: String, orientation: GtkPageOrientation) -> ObjectRef<GObject> {
        let operation = gtk_print_operation_new()!
        gtk_print_operation_set_n_pages(operation, 1)
        gtk_print_operation_set_job_name(operation, name)
        gtk_print_operation_set_allow_async(operation, 1)
        let setup = gtk_page_setup_new()!
        gtk_page_setup_set_orientation(setup, orientation)
        gtk_print_operation_set_default_page_setup(operation, setup)
        g_object_unref(UnsafeMutableRawPointer(setup))
        return ObjectRef(taking: UnsafeMutableRawPointer(operation).assumingMemoryBound(to: GObject.self))
    }

    /// Connects `body` to "draw-page", which passes where the page is drawn.
    public func onDrawPage(_ body: @escaping (Handle<PrintContext>) -> Void) -> SignalConnection {
        SignalConnection.connect(
            raw, "draw-page", pointerInt: { context, _ in if let context { body(Handle<PrintContext>(context)) } })
    }

    /// Connects `body` to "done", with the error when printing failed (nil otherwise: printed,
    /// cancelled, or still going on in the background).
    public func onDone(_ body: @escaping (GLibError?) -> Void) -> SignalConnection {
        connect(
            "done",
            int: { result in
                guard result == Int32(GTK_PRINT_OPERATION_RESULT_ERROR.rawValue) else { return body(nil) }
                var error: UnsafeMutablePointer<GError>?
                gtk_print_operation_get_error(pointer(), &error)
                body(Self.failure(error))
            })
    }

    /// Shows the print dialog over `parent`, and prints what is chosen there.
    public func run(parent: Widget<some WindowKind>) throws(GLibError) {
        var error: UnsafeMutablePointer<GError>?
        let result = gtk_print_operation_run(pointer(), GTK_PRINT_OPERATION_ACTION_PRINT_DIALOG, parent.window, &error)
        if result == GTK_PRINT_OPERATION_RESULT_ERROR { throw Self.failure(error) }
    }

    private static func failure(_ error: UnsafeMutablePointer<GError>?) -> GLibError {
        error.map { GLibError(consuming: $0) } ?? GLibError(domain: "", code: 0, message: "")
    }
}

extension Handle where Kind == PrintContext {
    /// The page's printable size, in the units it is drawn in.
    public var width: Double { gtk_print_context_get_width(opaque) }
    public var height: Double { gtk_print_context_get_height(opaque) }

    /// Draws `pixbuf` scaled by `scale`, its top left corner at `x`, `y`.
    public func draw(_ pixbuf: OpaquePointer, scale: Double, x: Double, y: Double) {
        let cr = gtk_print_context_get_cairo_context(opaque)
        cairo_translate(cr, x, y)
        cairo_scale(cr, scale, scale)
        gdk_cairo_set_source_pixbuf(cr, pixbuf, 0, 0)
        cairo_paint(cr)
    }
}
