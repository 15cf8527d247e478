import CGLib
import CGtk
import GLibKit

// Typed handles on GTK objects: the one place where a pointer meets the C type a GTK function
// wants. Code that holds a `Widget<Label>` calls `setText`, never a cast; the class was checked
// once, when the handle was taken from a GtkBuilder file (`UIFile`).

/// A GObject class a handle can name.
@MainActor
protocol GObjectKind {
    static var type: GType { get }
}

/// A GtkWidget class.
@MainActor
protocol WidgetKind: GObjectKind {}

enum MenuModel: GObjectKind { static var type: GType { g_menu_model_get_type() } }
enum Overlay: WidgetKind { static var type: GType { gtk_overlay_get_type() } }
enum Bin: WidgetKind { static var type: GType { adw_bin_get_type() } }
enum Box: WidgetKind { static var type: GType { gtk_box_get_type() } }
enum Label: WidgetKind { static var type: GType { gtk_label_get_type() } }
enum Button: WidgetKind { static var type: GType { gtk_button_get_type() } }
enum ToggleButton: WidgetKind { static var type: GType { gtk_toggle_button_get_type() } }
enum MenuButton: WidgetKind { static var type: GType { gtk_menu_button_get_type() } }
enum Spinner: WidgetKind { static var type: GType { gtk_spinner_get_type() } }
enum ToastOverlay: WidgetKind { static var type: GType { adw_toast_overlay_get_type() } }
enum HeaderBar: WidgetKind { static var type: GType { adw_header_bar_get_type() } }
enum WindowTitle: WidgetKind { static var type: GType { adw_window_title_get_type() } }
enum Stack: WidgetKind { static var type: GType { gtk_stack_get_type() } }
enum StatusPage: WidgetKind { static var type: GType { adw_status_page_get_type() } }
enum ScrolledWindow: WidgetKind { static var type: GType { gtk_scrolled_window_get_type() } }
enum ListView: WidgetKind { static var type: GType { gtk_list_view_get_type() } }
enum AnyWidget: WidgetKind { static var type: GType { gtk_widget_get_type() } }

/// Any GObject of class `Kind`, unowned: its owner is the tree (or builder) it came from.
@MainActor
struct Handle<Kind: GObjectKind> {
    let raw: UnsafeMutableRawPointer
    init(_ raw: UnsafeMutableRawPointer) { self.raw = raw }

    var opaque: OpaquePointer { OpaquePointer(raw) }
    func pointer<T>(as _: T.Type = T.self) -> UnsafeMutablePointer<T> { raw.assumingMemoryBound(to: T.self) }

    /// Whether the object is an instance of `type` (or of a subclass).
    func isA(_ type: GType) -> Bool {
        g_type_check_instance_is_a(pointer(as: GTypeInstance.self), type) != 0
    }

    /// Connects `body` to `signal` (no arguments); the connection lasts as long as it is kept.
    func connect(_ signal: String, _ body: @escaping () -> Void) -> SignalConnection {
        SignalConnection.connect(raw, signal, body)
    }
}

/// A widget of class `Kind`: a handle with the widget's own calls.
typealias Widget<Kind: WidgetKind> = Handle<Kind>

extension Handle where Kind: WidgetKind {
    var widget: UnsafeMutablePointer<GtkWidget> { pointer(as: GtkWidget.self) }

    var isVisible: Bool {
        get { gtk_widget_get_visible(widget) != 0 }
        nonmutating set { gtk_widget_set_visible(widget, newValue ? 1 : 0) }
    }

    var isSensitive: Bool {
        get { gtk_widget_get_sensitive(widget) != 0 }
        nonmutating set { gtk_widget_set_sensitive(widget, newValue ? 1 : 0) }
    }

    func setTooltip(_ text: String?) { gtk_widget_set_tooltip_text(widget, text) }
    func addCSSClass(_ name: String) { gtk_widget_add_css_class(widget, name) }
    func grabFocus() { gtk_widget_grab_focus(widget) }
}

extension Handle where Kind == Label {
    func setText(_ text: String) { gtk_label_set_text(gtkCast(widget), text) }
}

extension Handle where Kind == Button {
    func setIconName(_ name: String) { gtk_button_set_icon_name(gtkCast(widget), name) }
}

extension Handle where Kind == ToggleButton {
    var isActive: Bool {
        get { gtk_toggle_button_get_active(gtkCast(widget)) != 0 }
        nonmutating set { gtk_toggle_button_set_active(gtkCast(widget), newValue ? 1 : 0) }
    }
}

extension Handle where Kind == MenuButton {
    func setPopover(_ popover: UnsafeMutablePointer<GtkWidget>) {
        gtk_menu_button_set_popover(gtkCast(widget), popover)
    }
    func popUp() { gtk_menu_button_popup(gtkCast(widget)) }
    /// The button inside, which draws it.
    var innerButton: UnsafeMutablePointer<GtkWidget>? { gtk_widget_get_first_child(widget) }
}

extension Handle where Kind == Spinner {
    var isSpinning: Bool {
        get { gtk_spinner_get_spinning(gtkCast(widget)) != 0 }
        nonmutating set { gtk_spinner_set_spinning(gtkCast(widget), newValue ? 1 : 0) }
    }
}

extension Handle where Kind == Bin {
    func setChild(_ child: UnsafeMutablePointer<GtkWidget>?) { adw_bin_set_child(gtkCast(widget), child) }
}

extension Handle where Kind == ListView {
    /// Shows `model` through `factory`; the list view takes both references.
    func setModel(_ model: OpaquePointer, factory: OpaquePointer) {
        gtk_list_view_set_model(gtkCast(widget), model)
        gtk_list_view_set_factory(gtkCast(widget), factory)
        g_object_unref(UnsafeMutableRawPointer(model))
        g_object_unref(UnsafeMutableRawPointer(factory))
    }
}
