import CGLib
import CGtk

// Buttons, and the popovers a button or a click opens.

extension Handle where Kind == Button {
    /// A new button showing the icon named `iconName`.
    public static func make(iconName: String) -> Self { Self(made: gtk_button_new_from_icon_name(iconName)) }
    /// A new button labelled `label`, whose underlined letter (after `_`) is its mnemonic.
    public static func make(mnemonic label: String) -> Self { Self(made: gtk_button_new_with_mnemonic(label)) }

    public func setIconName(_ name: String) { gtk_button_set_icon_name(pointer(), name) }
    /// Shows `child` as the button's content.
    public func setChild(_ child: Widget<some WidgetKind>) { gtk_button_set_child(pointer(), child.widget) }
    /// A new button showing `child`.
    public static func make(child: Widget<some WidgetKind>) -> Self {
        let button = Self(made: gtk_button_new())
        button.setChild(child)
        return button
    }
}

extension Handle where Kind == ToggleButton {
    /// The words on the button (translated, as the UI file gave them).
    public var label: String { gtk_button_get_label(pointer()).map { String(cString: $0) } ?? "" }

    public var isActive: Bool {
        get { gtk_toggle_button_get_active(pointer()) != 0 }
        nonmutating set { gtk_toggle_button_set_active(pointer(), newValue ? 1 : 0) }
    }
}

extension Handle where Kind == MenuButton {
    /// The popover it opens (for a menu model, the popover menu made from it).
    public var popover: Widget<Popover>? {
        gtk_menu_button_get_popover(opaque).map { Widget<Popover>(UnsafeMutableRawPointer($0)) }
    }
    public func setPopover(_ popover: Widget<some PopoverKind>) {
        gtk_menu_button_set_popover(opaque, popover.widget)
    }
    public func popUp() { gtk_menu_button_popup(opaque) }
    public func popDown() { gtk_menu_button_popdown(opaque) }
    /// The words on the button (with the arrow beside them).
    public func setLabel(_ label: String) { gtk_menu_button_set_label(opaque, label) }
    /// The button inside, which draws it.
    public var innerButton: Widget<AnyWidget>? {
        gtk_widget_get_first_child(widget).map { Widget<AnyWidget>(UnsafeMutableRawPointer($0)) }
    }
}

extension Handle where Kind: PopoverKind {
    /// Whether it points at what it opened from with an arrow.
    public func setHasArrow(_ arrow: Bool) { gtk_popover_set_has_arrow(pointer(), arrow ? 1 : 0) }
    public func popUp() { gtk_popover_popup(pointer()) }
    /// Opens it pointing at `x`, `y` in its parent's coordinates.
    public func popUp(at x: Double, _ y: Double) {
        var point = GdkRectangle(x: Int32(x), y: Int32(y), width: 1, height: 1)
        gtk_popover_set_pointing_to(pointer(), &point)
        gtk_popover_popup(pointer())
    }
    public func popDown() { gtk_popover_popdown(pointer()) }
    /// Opens it again at the size its content asks for now (a parent that is not made for
    /// popovers, a list view, does not do so when the content changes).
    public func present() { gtk_popover_present(pointer()) }
    /// Points it at `rect` (in its parent's coordinates) the next time it opens.
    public func point(at rect: GdkRectangle) {
        var rect = rect
        gtk_popover_set_pointing_to(pointer(), &rect)
    }
    /// Where it opens, beside what it points at (above it, below it…).
    public func setPosition(_ position: GtkPositionType) { gtk_popover_set_position(pointer(), position) }
}

extension Handle where Kind == Menu {
    public func removeAll() { g_menu_remove_all(opaque) }
    /// Adds an item labelled `label` (taken as it is: an underscore is not a mnemonic) that
    /// activates `action` with the text `target`: a radio item where the action's state is text.
    public func append(label: String, action: String, target: String) {
        let escaped = label.replacingOccurrences(of: "_", with: "__")
        let item = g_menu_item_new(escaped, nil)
        g_menu_item_set_action_and_target_value(item, action, g_variant_new_string(target))
        g_menu_append_item(opaque, item)
        g_object_unref(UnsafeMutableRawPointer(item))
    }
}

extension Handle where Kind == PopoverMenu {
    /// A new popover menu of `model`'s items (to be given a parent with `setParent`).
    public static func make(from model: Handle<MenuModel>) -> Self {
        Self(made: gtk_popover_menu_new_from_model(model.pointer(as: GMenuModel.self)))
    }
}

extension Handle where Kind == Scale {
    /// Where the slider stands (setting it emits "value-changed" when it moves).
    public var value: Double {
        get { gtk_range_get_value(pointer()) }
        nonmutating set { gtk_range_set_value(pointer(), newValue) }
    }

    /// A mark under the slider at `value`, with `text` beside it (nil: none).
    public func addMark(_ value: Double, text: String?) {
        gtk_scale_add_mark(pointer(), value, GTK_POS_BOTTOM, text)
    }
}
