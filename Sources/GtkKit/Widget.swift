import CGLib
import CGtk
import GLibKit

// What every widget can do: be shown, sized, styled and described, and take event controllers.

extension Handle where Kind: WidgetKind {
    /// A widget that a GTK constructor (`gtk_box_new`, or the app's own C widget's) has just
    /// made as a `Kind`.
    public init(made widget: UnsafeMutablePointer<GtkWidget>) {
        self.init(UnsafeMutableRawPointer(widget))
        assert(isA(Kind.type), "the widget made is not a \(Kind.self)")
    }

    /// The widget as GTK's C type, for the functions that take a widget.
    public var widget: UnsafeMutablePointer<GtkWidget> { pointer(as: GtkWidget.self) }
    /// The same widget, of any class.
    public var anyWidget: Widget<AnyWidget> { Widget<AnyWidget>(raw) }

    /// Where the widget is, in `other`'s coordinates (nil where the two have no common ancestor).
    public func frame(in other: Widget<some WidgetKind>) -> GdkRectangle? {
        var x = 0.0, y = 0.0
        guard gtk_widget_translate_coordinates(widget, other.widget, 0, 0, &x, &y) != 0 else { return nil }
        return GdkRectangle(x: Int32(x.rounded()), y: Int32(y.rounded()), width: width, height: height)
    }

    public var isVisible: Bool {
        get { gtk_widget_get_visible(widget) != 0 }
        nonmutating set { gtk_widget_set_visible(widget, newValue ? 1 : 0) }
    }

    /// Whether pointer events may land on it (false: they go to what is beneath).
    /// Whether the keyboard focus may go into the widget or anything in it (GTK 4: its
    /// children too).
    public var canFocus: Bool {
        get { gtk_widget_get_can_focus(widget) != 0 }
        nonmutating set { gtk_widget_set_can_focus(widget, newValue ? 1 : 0) }
    }

    public var canTarget: Bool {
        get { gtk_widget_get_can_target(widget) != 0 }
        nonmutating set { gtk_widget_set_can_target(widget, newValue ? 1 : 0) }
    }

    /// Whether the widget is on screen (mapped): visible, and inside a window that is shown.
    public var isMapped: Bool { gtk_widget_get_mapped(widget) != 0 }

    /// Whether the widget itself has the keyboard focus.
    public var hasFocus: Bool { gtk_widget_has_focus(widget) != 0 }

    public var isSensitive: Bool {
        get { gtk_widget_get_sensitive(widget) != 0 }
        nonmutating set { gtk_widget_set_sensitive(widget, newValue ? 1 : 0) }
    }

    public var opacity: Double {
        get { gtk_widget_get_opacity(widget) }
        nonmutating set { gtk_widget_set_opacity(widget, newValue) }
    }

    public var width: Int32 { gtk_widget_get_width(widget) }
    public var height: Int32 { gtk_widget_get_height(widget) }
    /// Device pixels per logical pixel on the widget's display (2 on HiDPI).
    public var scaleFactor: Int32 { gtk_widget_get_scale_factor(widget) }
    /// The least width the widget asks for, as its parent's layout measures it.
    public var minimumWidth: Int32 {
        var minimum: Int32 = 0
        gtk_widget_measure(widget, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, nil, nil, nil)
        return minimum
    }
    /// The widget it is a child of, if any.
    public var parent: Widget<AnyWidget>? {
        gtk_widget_get_parent(widget).map { Widget<AnyWidget>(UnsafeMutableRawPointer($0)) }
    }
    /// The clock the widget's frames are painted by, once it is on screen.
    public var frameClock: Handle<FrameClock>? {
        gtk_widget_get_frame_clock(widget).map { Handle<FrameClock>(UnsafeMutableRawPointer($0)) }
    }

    /// Makes the widget a child of `parent` outside any layout of its own (a popover's place).
    public func setParent(_ parent: Widget<some WidgetKind>) { gtk_widget_set_parent(widget, parent.widget) }
    /// Takes the widget out of the parent `setParent` gave it, which lets go of it.
    public func unparent() { gtk_widget_unparent(widget) }

    public func setTooltip(_ text: String?) { gtk_widget_set_tooltip_text(widget, text) }
    /// Asks for the tooltip again where the pointer rests on the widget (its text changed).
    public func refreshTooltip() { gtk_widget_trigger_tooltip_query(widget) }
    /// Gives the widget a tooltip whose text is asked of `text` only when it is about to show
    /// (nil or empty: none). Setting a tooltip's text asks the display where the pointer is, a
    /// round trip to the X server of about 70 µs: too much for a row or cell that is bound to
    /// another photo a hundred times in one frame of a fast scroll.
    public func setTooltipSource(_ text: @escaping () -> String?) -> SignalConnection {
        gtk_widget_set_has_tooltip(widget, 1)
        return SignalConnection.connect(
            raw, "query-tooltip",
            tooltip: { tooltip in
                guard let tooltip, let text = text(), !text.isEmpty else { return false }
                gtk_tooltip_set_text(OpaquePointer(tooltip), text)
                return true
            })
    }
    public func addCSSClass(_ name: String) { gtk_widget_add_css_class(widget, name) }
    public func removeCSSClass(_ name: String) { gtk_widget_remove_css_class(widget, name) }
    public func grabFocus() { gtk_widget_grab_focus(widget) }
    public func setSizeRequest(width: Int32, height: Int32) { gtk_widget_set_size_request(widget, width, height) }
    public func setVerticalAlign(_ align: GtkAlign) { gtk_widget_set_valign(widget, align) }
    public func setHorizontalAlign(_ align: GtkAlign) { gtk_widget_set_halign(widget, align) }
    public func setMargin(_ margin: Int32) {
        gtk_widget_set_margin_top(widget, margin)
        gtk_widget_set_margin_bottom(widget, margin)
        gtk_widget_set_margin_start(widget, margin)
        gtk_widget_set_margin_end(widget, margin)
    }
    /// The same margin at the start and end, and another at the top and bottom.
    public func setMargins(horizontal: Int32, vertical: Int32) {
        gtk_widget_set_margin_start(widget, horizontal)
        gtk_widget_set_margin_end(widget, horizontal)
        gtk_widget_set_margin_top(widget, vertical)
        gtk_widget_set_margin_bottom(widget, vertical)
    }
    public func setHorizontalExpand(_ expand: Bool) { gtk_widget_set_hexpand(widget, expand ? 1 : 0) }
    public func setVerticalExpand(_ expand: Bool) { gtk_widget_set_vexpand(widget, expand ? 1 : 0) }
    public func setMarginEnd(_ margin: Int32) { gtk_widget_set_margin_end(widget, margin) }
    /// Shows the pointer over the widget as the cursor named `name` ("none" hides it); nil
    /// gives it back its usual look.
    public func setCursor(named name: String?) { gtk_widget_set_cursor_from_name(widget, name) }

    /// Adds an event controller (made by its kind's `make`); the widget takes its reference.
    public func addController(_ controller: Handle<some ControllerKind>) {
        gtk_widget_add_controller(widget, controller.opaque)
    }

    /// Puts `texture` on the clipboard of the widget's display.
    public func copyToClipboard(_ texture: ObjectRef<GObject>) {
        gdk_clipboard_set_texture(gtk_widget_get_clipboard(widget), texture.opaque)
    }
    /// Activates the action `name` ("win.details") as the widget's ancestors know it.
    public func activateAction(_ name: String) { gtk_widget_activate_action_variant(widget, name, nil) }
    /// Puts `text` on the clipboard of the widget's display.
    public func copyToClipboard(text: String) { gdk_clipboard_set_text(gtk_widget_get_clipboard(widget), text) }

    /// Sets what a screen reader says for the widget: its name and a description.
    public func setAccessibleLabel(_ label: String, description: String) {
        cp_accessible_set_label(opaque, label, description)
    }

    /// Sets what a screen reader calls the widget, leaving its description as it is.
    public func setAccessibleName(_ label: String) { cp_accessible_set_name(opaque, label) }

    /// Keeps the widget out of what screen readers see (what it shows is said by a widget
    /// around it).
    public func hideFromScreenReaders() { cp_accessible_hide(opaque) }
}

extension Handle where Kind == FrameClock {
    /// The frame being drawn or last drawn; it goes up by one as each frame begins.
    public var frameCounter: Int { gdk_frame_clock_get_frame_counter(OpaquePointer(raw)) }
}
