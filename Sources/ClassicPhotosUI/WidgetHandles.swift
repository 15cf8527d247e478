import CGLib
import CGtk
import CPhotoViewer
import Foundation
import GLibKit

// Typed handles on GTK objects: the one place where a pointer meets the C type a GTK function
// wants. Code that holds a `Widget<Label>` calls `setText`, never a cast; the class was checked
// once, when the handle was taken from a GtkBuilder file (`UIFile`), or is certain because the
// handle wraps what a GTK constructor has just returned (`init(made:)`).

/// A GObject class a handle can name.
@MainActor
protocol GObjectKind {
    static var type: GType { get }
}

/// A GtkWidget class.
@MainActor
protocol WidgetKind: GObjectKind {}

/// A GtkWindow class.
@MainActor
protocol WindowKind: WidgetKind {}

/// A GtkEventController class.
@MainActor
protocol ControllerKind: GObjectKind {}

/// The application (a `GtkApplication`; the app's own is an `AdwApplication`).
enum Application: GObjectKind { static var type: GType { gtk_application_get_type() } }
enum MenuModel: GObjectKind { static var type: GType { g_menu_model_get_type() } }
enum Overlay: WidgetKind { static var type: GType { gtk_overlay_get_type() } }
enum Bin: WidgetKind { static var type: GType { adw_bin_get_type() } }
enum Box: WidgetKind { static var type: GType { gtk_box_get_type() } }
enum Label: WidgetKind { static var type: GType { gtk_label_get_type() } }
enum Inscription: WidgetKind { static var type: GType { gtk_inscription_get_type() } }
enum Picture: WidgetKind { static var type: GType { gtk_picture_get_type() } }
enum Entry: WidgetKind { static var type: GType { gtk_entry_get_type() } }
enum Button: WidgetKind { static var type: GType { gtk_button_get_type() } }
enum ToggleButton: WidgetKind { static var type: GType { gtk_toggle_button_get_type() } }
enum MenuButton: WidgetKind { static var type: GType { gtk_menu_button_get_type() } }
enum Popover: WidgetKind { static var type: GType { gtk_popover_get_type() } }
enum Spinner: WidgetKind { static var type: GType { gtk_spinner_get_type() } }
enum ToastOverlay: WidgetKind { static var type: GType { adw_toast_overlay_get_type() } }
enum HeaderBar: WidgetKind { static var type: GType { adw_header_bar_get_type() } }
enum WindowTitle: WidgetKind { static var type: GType { adw_window_title_get_type() } }
enum Stack: WidgetKind { static var type: GType { gtk_stack_get_type() } }
enum StatusPage: WidgetKind { static var type: GType { adw_status_page_get_type() } }
enum ScrolledWindow: WidgetKind { static var type: GType { gtk_scrolled_window_get_type() } }
enum ListView: WidgetKind { static var type: GType { gtk_list_view_get_type() } }
enum AnyWidget: WidgetKind { static var type: GType { gtk_widget_get_type() } }
enum ApplicationWindow: WindowKind { static var type: GType { adw_application_window_get_type() } }
enum MessageDialog: WindowKind { static var type: GType { adw_message_dialog_get_type() } }
/// libadwaita's About window (`AdwAboutWindow`).
enum About: WindowKind { static var type: GType { adw_about_window_get_type() } }
/// The viewer's zoomable picture (`CpZoomPicture`, in C).
enum ZoomPicture: WidgetKind { static var type: GType { cp_zoom_picture_get_type() } }
enum Adjustment: GObjectKind { static var type: GType { gtk_adjustment_get_type() } }
enum SingleSelection: GObjectKind { static var type: GType { gtk_single_selection_get_type() } }
enum SignalListItemFactory: GObjectKind { static var type: GType { gtk_signal_list_item_factory_get_type() } }
enum ListItem: GObjectKind { static var type: GType { gtk_list_item_get_type() } }
enum FileChooserNative: GObjectKind { static var type: GType { gtk_file_chooser_native_get_type() } }
enum DropTarget: ControllerKind { static var type: GType { gtk_drop_target_get_type() } }
enum FrameClock: GObjectKind { static var type: GType { gdk_frame_clock_get_type() } }
/// The surface of a window on screen (a `GdkToplevel`).
enum ToplevelSurface: GObjectKind { static var type: GType { gdk_toplevel_get_type() } }

/// Any GObject of class `Kind`, unowned: what holds the object (its widget tree, a builder, an
/// `ObjectRef`) keeps it alive.
@MainActor
struct Handle<Kind: GObjectKind> {
    let raw: UnsafeMutableRawPointer
    init(_ raw: UnsafeMutableRawPointer) { self.raw = raw }

    /// The object `object` holds, which must be a `Kind`; the handle is valid while it is held.
    init(_ object: ObjectRef<GObject>) {
        self.init(checking: UnsafeMutableRawPointer(object.pointer))
    }

    /// An object handed in from outside the module, which must be a `Kind`; the caller keeps
    /// it alive.
    init(checking raw: UnsafeMutableRawPointer) {
        self.init(raw)
        precondition(isA(Kind.type), "the object is not a \(Kind.self)")
    }

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

    /// Connects `body` to `signal`, whose one argument is an integer.
    func connect(_ signal: String, int body: @escaping (Int32) -> Void) -> SignalConnection {
        SignalConnection.connect(raw, signal, int: body)
    }

    /// Connects `body` to changes of the property `property`.
    func onNotify(_ property: String, _ body: @escaping () -> Void) -> SignalConnection {
        SignalConnection.connect(raw, "notify::\(property)", pointer: { _ in body() })
    }
}

/// A widget of class `Kind`: a handle with the widget's own calls.
typealias Widget<Kind: WidgetKind> = Handle<Kind>

extension Handle where Kind: WidgetKind {
    /// A widget that a GTK constructor (`gtk_box_new`, …) has just made as a `Kind`.
    init(made widget: UnsafeMutablePointer<GtkWidget>) {
        self.init(UnsafeMutableRawPointer(widget))
        assert(isA(Kind.type), "the widget made is not a \(Kind.self)")
    }

    var widget: UnsafeMutablePointer<GtkWidget> { pointer(as: GtkWidget.self) }

    var isVisible: Bool {
        get { gtk_widget_get_visible(widget) != 0 }
        nonmutating set { gtk_widget_set_visible(widget, newValue ? 1 : 0) }
    }

    /// Whether the widget is on screen (mapped): visible, and inside a window that is shown.
    var isMapped: Bool { gtk_widget_get_mapped(widget) != 0 }

    var isSensitive: Bool {
        get { gtk_widget_get_sensitive(widget) != 0 }
        nonmutating set { gtk_widget_set_sensitive(widget, newValue ? 1 : 0) }
    }

    var opacity: Double {
        get { gtk_widget_get_opacity(widget) }
        nonmutating set { gtk_widget_set_opacity(widget, newValue) }
    }

    var width: Int32 { gtk_widget_get_width(widget) }
    var height: Int32 { gtk_widget_get_height(widget) }
    /// Device pixels per logical pixel on the widget's display (2 on HiDPI).
    var scaleFactor: Int32 { gtk_widget_get_scale_factor(widget) }
    /// The widget it is a child of, if any.
    var parent: Widget<AnyWidget>? {
        gtk_widget_get_parent(widget).map { Widget<AnyWidget>(UnsafeMutableRawPointer($0)) }
    }
    /// The clock the widget's frames are painted by, once it is on screen.
    var frameClock: Handle<FrameClock>? {
        gtk_widget_get_frame_clock(widget).map { Handle<FrameClock>(UnsafeMutableRawPointer($0)) }
    }

    func setTooltip(_ text: String?) { gtk_widget_set_tooltip_text(widget, text) }
    func addCSSClass(_ name: String) { gtk_widget_add_css_class(widget, name) }
    func removeCSSClass(_ name: String) { gtk_widget_remove_css_class(widget, name) }
    func grabFocus() { gtk_widget_grab_focus(widget) }
    func setSizeRequest(width: Int32, height: Int32) { gtk_widget_set_size_request(widget, width, height) }
    func setVerticalAlign(_ align: GtkAlign) { gtk_widget_set_valign(widget, align) }
    func setHorizontalExpand(_ expand: Bool) { gtk_widget_set_hexpand(widget, expand ? 1 : 0) }
    func setMarginEnd(_ margin: Int32) { gtk_widget_set_margin_end(widget, margin) }
    /// Adds an event controller (a drop target); the widget takes its reference.
    func addController(_ controller: Handle<some ControllerKind>) {
        gtk_widget_add_controller(widget, controller.opaque)
    }
    /// Adds an event controller that a GTK constructor has just made (`gtk_gesture_drag_new`,
    /// `gtk_event_controller_key_new`, …); the widget takes its reference.
    func addController(_ controller: OpaquePointer) { gtk_widget_add_controller(widget, controller) }
    /// Puts `texture` on the clipboard of the widget's display.
    func copyToClipboard(_ texture: ObjectRef<GObject>) {
        gdk_clipboard_set_texture(gtk_widget_get_clipboard(widget), texture.opaque)
    }
    /// Sets what a screen reader says for the widget: its name and a description.
    func setAccessibleLabel(_ label: String, description: String) {
        cp_accessible_set_label(opaque, label, description)
    }
}

// MARK: Windows

extension Handle where Kind: WindowKind {
    /// The window as GTK's C type, for the functions that take a parent window.
    var window: UnsafeMutablePointer<GtkWindow> { pointer(as: GtkWindow.self) }

    func setTitle(_ title: String) { gtk_window_set_title(window, title) }
    func setIconName(_ name: String) { gtk_window_set_icon_name(window, name) }
    func setTransientFor(_ parent: Widget<some WindowKind>) { gtk_window_set_transient_for(window, parent.window) }
    func setModal(_ modal: Bool) { gtk_window_set_modal(window, modal ? 1 : 0) }
    func present() { gtk_window_present(window) }
    func close() { gtk_window_close(window) }
    func destroy() { gtk_window_destroy(window) }
    func setFullscreen(_ fullscreen: Bool) {
        if fullscreen { gtk_window_fullscreen(window) } else { gtk_window_unfullscreen(window) }
    }
    func maximize() { gtk_window_maximize(window) }
    var isMaximized: Bool { gtk_window_is_maximized(window) != 0 }

    /// The size the window opens at, in logical pixels.
    var defaultSize: (width: Int32, height: Int32) {
        get {
            var (width, height) = (Int32(0), Int32(0))
            gtk_window_get_default_size(window, &width, &height)
            return (width, height)
        }
        nonmutating set { gtk_window_set_default_size(window, newValue.width, newValue.height) }
    }

    /// The window's surface while it is on screen.
    var surface: Handle<ToplevelSurface>? {
        gtk_native_get_surface(opaque).map { Handle<ToplevelSurface>(UnsafeMutableRawPointer($0)) }
    }

    /// Connects `body` to "close-request": returning true keeps the window open.
    func onCloseRequest(_ body: @escaping () -> Bool) -> SignalConnection {
        SignalConnection.connectReturning(raw, "close-request", body)
    }
}

extension Handle where Kind == ApplicationWindow {
    /// A new window of `application` (not yet shown).
    init(application: Handle<Application>) {
        self.init(made: adw_application_window_new(application.pointer()))
    }

    func setContent(_ content: Widget<some WidgetKind>) {
        adw_application_window_set_content(pointer(), content.widget)
    }
    /// Adds `action` to the window's actions (`win.` and its name).
    func addAction(_ action: ObjectRef<GObject>) { g_action_map_add_action(opaque, action.opaque) }
}

extension Handle where Kind == MessageDialog {
    func setHeading(_ heading: String) { adw_message_dialog_set_heading(pointer(), heading) }
    func setBody(_ body: String) { adw_message_dialog_set_body(pointer(), body) }

    /// Connects `body` to "response", which passes the chosen response's ID (the close
    /// response's when the dialog was closed otherwise).
    func onResponse(_ body: @escaping (String?) -> Void) -> SignalConnection {
        SignalConnection.connect(
            raw, "response",
            pointer: { id in body(id.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }) })
    }
}

extension Handle where Kind == About {
    func setApplicationName(_ name: String) { adw_about_window_set_application_name(opaque, name) }
    func setApplicationIcon(_ name: String) { adw_about_window_set_application_icon(opaque, name) }
    func setVersion(_ version: String) { adw_about_window_set_version(opaque, version) }
    func setDeveloperName(_ name: String) { adw_about_window_set_developer_name(opaque, name) }
    func setComments(_ comments: String) { adw_about_window_set_comments(opaque, comments) }
    func setWebsite(_ address: String) { adw_about_window_set_website(opaque, address) }
    func setIssueURL(_ address: String) { adw_about_window_set_issue_url(opaque, address) }
    func setLicenseType(_ license: GtkLicense) { adw_about_window_set_license_type(opaque, license) }
    func setCopyright(_ copyright: String) { adw_about_window_set_copyright(opaque, copyright) }
    /// The Troubleshooting page's text, and the name it is saved under.
    func setDebugInfo(_ text: String, filename: String) {
        adw_about_window_set_debug_info(opaque, text)
        adw_about_window_set_debug_info_filename(opaque, filename)
    }
}

extension Handle where Kind == ToplevelSurface {
    var isMinimized: Bool {
        (gdk_toplevel_get_state(opaque).rawValue & GDK_TOPLEVEL_STATE_MINIMIZED.rawValue) != 0
    }
}

// MARK: Widgets

extension Handle where Kind == Label {
    func setText(_ text: String) { gtk_label_set_text(opaque, text) }
}

extension Handle where Kind == Inscription {
    /// Sets the text (the same text again changes nothing).
    func setText(_ text: String) { gtk_inscription_set_text(opaque, text) }
    func setTextOverflow(_ overflow: GtkInscriptionOverflow) { gtk_inscription_set_text_overflow(opaque, overflow) }
    func setXAlign(_ xalign: Float) { gtk_inscription_set_xalign(opaque, xalign) }
    /// The number of lines it asks room for.
    func setNaturalLines(_ lines: UInt32) { gtk_inscription_set_nat_lines(opaque, lines) }
}

extension Handle where Kind == Entry {
    var text: String { String(cString: gtk_editable_get_text(opaque)) }
}

extension Handle where Kind == Picture {
    /// Shows `paintable` (a texture), or nothing.
    func setPaintable(_ paintable: OpaquePointer?) { gtk_picture_set_paintable(opaque, paintable) }
    func setCanShrink(_ shrink: Bool) { gtk_picture_set_can_shrink(opaque, shrink ? 1 : 0) }
    func setContentFit(_ fit: GtkContentFit) { gtk_picture_set_content_fit(opaque, fit) }
    func setAlternativeText(_ text: String) { gtk_picture_set_alternative_text(opaque, text) }
}

extension Handle where Kind == Button {
    func setIconName(_ name: String) { gtk_button_set_icon_name(pointer(), name) }
}

extension Handle where Kind == ToggleButton {
    var isActive: Bool {
        get { gtk_toggle_button_get_active(pointer()) != 0 }
        nonmutating set { gtk_toggle_button_set_active(pointer(), newValue ? 1 : 0) }
    }
}

extension Handle where Kind == MenuButton {
    func setPopover(_ popover: Widget<Popover>) {
        gtk_menu_button_set_popover(opaque, popover.widget)
    }
    func popUp() { gtk_menu_button_popup(opaque) }
    func popDown() { gtk_menu_button_popdown(opaque) }
    /// The button inside, which draws it.
    var innerButton: Widget<AnyWidget>? {
        gtk_widget_get_first_child(widget).map { Widget<AnyWidget>(UnsafeMutableRawPointer($0)) }
    }
}

extension Handle where Kind == Popover {
    func popDown() { gtk_popover_popdown(pointer()) }
}

extension Handle where Kind == Spinner {
    var isSpinning: Bool {
        get { gtk_spinner_get_spinning(opaque) != 0 }
        nonmutating set { gtk_spinner_set_spinning(opaque, newValue ? 1 : 0) }
    }
}

extension Handle where Kind == Box {
    func append(_ child: Widget<some WidgetKind>) { gtk_box_append(pointer(), child.widget) }
    /// Puts `child` right after `sibling`, a child of the box already.
    func insert(_ child: Widget<some WidgetKind>, after sibling: Widget<some WidgetKind>) {
        gtk_box_insert_child_after(pointer(), child.widget, sibling.widget)
    }
}

extension Handle where Kind == Bin {
    func setChild(_ child: Widget<some WidgetKind>) { adw_bin_set_child(pointer(), child.widget) }
}

extension Handle where Kind == Overlay {
    /// Adds `child` over the overlay's main child (above those added before).
    func addOverlay(_ child: Widget<some WidgetKind>) { gtk_overlay_add_overlay(opaque, child.widget) }
}

extension Handle where Kind == Stack {
    /// Shows the page named `name`.
    func showPage(_ name: String) { gtk_stack_set_visible_child_name(opaque, name) }
}

extension Handle where Kind == StatusPage {
    func setIconName(_ name: String) { adw_status_page_set_icon_name(opaque, name) }
    func setTitle(_ title: String) { adw_status_page_set_title(opaque, title) }
    /// Sets the text under the title, which is read as Pango markup.
    func setDescription(markup: String?) { adw_status_page_set_description(opaque, markup) }
}

extension Handle where Kind == WindowTitle {
    func setTitle(_ title: String) { adw_window_title_set_title(opaque, title) }
    func setSubtitle(_ subtitle: String) { adw_window_title_set_subtitle(opaque, subtitle) }
}

extension Handle where Kind == ToastOverlay {
    /// Shows a toast titled `markup` (Pango markup), with a button that activates `action`.
    func addToast(markup: String, button: (label: String, action: String)?) {
        let toast = adw_toast_new(markup)!
        if let button {
            adw_toast_set_button_label(toast, button.label)
            adw_toast_set_action_name(toast, button.action)
        }
        adw_toast_overlay_add_toast(opaque, toast) // takes the toast's reference
    }
}

// MARK: The list

extension Handle where Kind == ScrolledWindow {
    var verticalAdjustment: Handle<Adjustment>? {
        gtk_scrolled_window_get_vadjustment(opaque).map { Handle<Adjustment>(UnsafeMutableRawPointer($0)) }
    }
    var verticalScrollbar: Widget<AnyWidget>? {
        gtk_scrolled_window_get_vscrollbar(opaque).map { Widget<AnyWidget>(UnsafeMutableRawPointer($0)) }
    }
}

extension Handle where Kind == Adjustment {
    var value: Double {
        get { gtk_adjustment_get_value(pointer()) }
        nonmutating set { gtk_adjustment_set_value(pointer(), newValue) }
    }
    var upper: Double { gtk_adjustment_get_upper(pointer()) }
    var pageSize: Double { gtk_adjustment_get_page_size(pointer()) }
}

extension Handle where Kind == ListView {
    /// Shows `model` through `factory`; the list view takes both references.
    func setModel(_ model: Handle<SingleSelection>, factory: Handle<SignalListItemFactory>) {
        gtk_list_view_set_model(opaque, model.opaque)
        gtk_list_view_set_factory(opaque, factory.opaque)
        g_object_unref(model.raw)
        g_object_unref(factory.raw)
    }

    /// Whether a single click activates a row (a double click otherwise).
    func setSingleClickActivate(_ single: Bool) { gtk_list_view_set_single_click_activate(opaque, single ? 1 : 0) }

    /// Scrolls the row at `position` into view (GTK 4.8 has no function for it, only the action).
    func scrollTo(_ position: Int) {
        gtk_widget_activate_action_variant(widget, "list.scroll-to-item", g_variant_new_uint32(guint32(position)))
    }
}

extension Handle where Kind == SingleSelection {
    /// A new selection over `model` (a reference of its own, for `ListView.setModel`), with no
    /// row selected until one is, and none selected again when it is clicked twice.
    static func make(over model: OpaquePointer) -> Self {
        let selection = gtk_single_selection_new(OpaquePointer(g_object_ref(UnsafeMutableRawPointer(model))))!
        gtk_single_selection_set_autoselect(selection, 0)
        gtk_single_selection_set_can_unselect(selection, 1)
        gtk_single_selection_set_selected(selection, GTK_INVALID_LIST_POSITION)
        return Self(UnsafeMutableRawPointer(selection))
    }

    /// The selected row's position; nil when none is.
    var selected: Int? {
        get {
            let position = gtk_single_selection_get_selected(opaque)
            return position == GTK_INVALID_LIST_POSITION ? nil : Int(position)
        }
        nonmutating set {
            gtk_single_selection_set_selected(opaque, newValue.map { guint($0) } ?? GTK_INVALID_LIST_POSITION)
        }
    }
}

extension Handle where Kind == SignalListItemFactory {
    /// A new factory (a reference of its own, for `ListView.setModel`).
    static func make() -> Self { Self(UnsafeMutableRawPointer(gtk_signal_list_item_factory_new()!)) }

    /// Connects `body` to `signal` ("setup", "bind", "unbind" or "teardown"), which passes a list item.
    func connectItem(_ signal: String, _ body: @escaping (Handle<ListItem>) -> Void) -> SignalConnection {
        SignalConnection.connect(raw, signal, pointer: { item in if let item { body(Handle<ListItem>(item)) } })
    }
}

extension Handle where Kind == ListItem {
    func setChild(_ child: Widget<some WidgetKind>) { gtk_list_item_set_child(opaque, child.widget) }
    /// The model's item shown in the row, if the row is bound.
    var item: OpaquePointer? { gtk_list_item_get_item(opaque).map { OpaquePointer($0) } }
    var position: Int { Int(gtk_list_item_get_position(opaque)) }
}

// MARK: Drag and drop

extension Handle where Kind == DropTarget {
    /// A new drop target (for `addController`) taking copies of files (a file list, which is
    /// also how links arrive from browsers and file managers) or text.
    static func forLocations() -> Self { Self(UnsafeMutableRawPointer(cp_drop_target_new_for_locations()!)) }

    /// Connects `body` to "drop", with what was dropped as strings (each file's URI, or the
    /// text); `body` says whether it took the drop. Anything else dropped is refused.
    func onDrop(_ body: @escaping ([String]) -> Bool) -> SignalConnection {
        SignalConnection.connect(
            raw, "drop",
            pointerDoubles: { value, _, _ in
                guard let value, let strings = cp_drop_value_strings(value.assumingMemoryBound(to: GValue.self))
                else { return false }
                defer { g_strfreev(strings) }
                var dropped: [String] = []
                var index = 0
                while let string = strings[index] {
                    dropped.append(String(cString: string))
                    index += 1
                }
                return body(dropped)
            })
    }
}

// MARK: Dialogs

extension Handle where Kind == FileChooserNative {
    /// A new file chooser (the desktop's, a portal where there is one) over `parent`, as the
    /// reference that keeps it alive while it is open.
    static func make(
        title: String, parent: Widget<some WindowKind>, action: GtkFileChooserAction, accept: String, cancel: String
    ) -> ObjectRef<GObject> {
        ObjectRef(takingOpaque: gtk_file_chooser_native_new(title, parent.window, action, accept, cancel)!)
    }

    /// The file name a save chooser proposes.
    func setCurrentName(_ name: String) { gtk_file_chooser_set_current_name(opaque, name) }

    var selectsMultiple: Bool {
        get { gtk_file_chooser_get_select_multiple(opaque) != 0 }
        nonmutating set { gtk_file_chooser_set_select_multiple(opaque, newValue ? 1 : 0) }
    }

    /// Adds a choice of what files to show: those named `name`, of the formats GdkPixbuf reads
    /// (when `pictures`), of `mimeTypes`, or matching `patterns`.
    func addFilter(_ name: String, pictures: Bool = false, mimeTypes: [String] = [], patterns: [String] = []) {
        let filter = gtk_file_filter_new()!
        gtk_file_filter_set_name(filter, name)
        if pictures { gtk_file_filter_add_pixbuf_formats(filter) }
        for type in mimeTypes { gtk_file_filter_add_mime_type(filter, type) }
        for pattern in patterns { gtk_file_filter_add_pattern(filter, pattern) }
        gtk_file_chooser_add_filter(opaque, filter)
        g_object_unref(UnsafeMutableRawPointer(filter))
    }

    /// The addresses of the files chosen.
    var chosenURIs: [String] {
        guard let files = gtk_file_chooser_get_files(opaque) else { return [] }
        defer { g_object_unref(UnsafeMutableRawPointer(files)) }
        var uris: [String] = []
        for index in 0..<g_list_model_get_n_items(files) {
            guard let file = g_list_model_get_item(files, index) else { continue }
            if let uri = g_file_get_uri(OpaquePointer(file)) {
                uris.append(String(cString: uri))
                g_free(uri)
            }
            g_object_unref(file)
        }
        return uris
    }

    /// The path of the file chosen (the one file of a save chooser), if it has one.
    var chosenPath: String? {
        guard let file = gtk_file_chooser_get_file(opaque) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        guard let path = g_file_get_path(file) else { return nil }
        defer { g_free(path) }
        return String(cString: path)
    }

    func show() { gtk_native_dialog_show(pointer()) }
}

// MARK: The application

extension Handle where Kind == Application {
    /// A new libadwaita application (`AdwApplication`), as the reference that keeps it alive.
    static func make(id: String, flags: GApplicationFlags) -> ObjectRef<GObject> {
        ObjectRef(takingOpaque: OpaquePointer(adw_application_new(id, flags)!))
    }

    /// Runs the application with the command line `arguments` until it quits; returns the
    /// process exit status.
    func run(_ arguments: [String]) -> Int32 {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        return g_application_run(pointer(), Int32(arguments.count), &argv)
    }

    func quit() { g_application_quit(pointer()) }

    /// Adds `action` to the application's actions (`app.` and its name).
    func addAction(_ action: ObjectRef<GObject>) { g_action_map_add_action(opaque, action.opaque) }

    /// Sets the shortcuts of `action` (a detailed action name, such as `app.quit`).
    func setAccelerators(_ accelerators: [String], for action: String) {
        let copies = accelerators.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var list: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
        gtk_application_set_accels_for_action(pointer(), action, &list)
    }
}
