import CGLib
import CGtk
import GLibKit

// The list: its scrolled window and adjustment, the list view, its selection, and the factory
// and items its rows are made and bound through.

extension Handle where Kind == ScrolledWindow {
    public var verticalAdjustment: Handle<Adjustment>? {
        gtk_scrolled_window_get_vadjustment(opaque).map { Handle<Adjustment>(UnsafeMutableRawPointer($0)) }
    }
    public var verticalScrollbar: Widget<AnyWidget>? {
        gtk_scrolled_window_get_vscrollbar(opaque).map { Widget<AnyWidget>(UnsafeMutableRawPointer($0)) }
    }
}

extension Handle where Kind == ScrolledWindow {
    /// Puts `child` (a list or grid view) in the window in place of the one there; the one
    /// taken out is kept alive only by what else holds it.
    public func setChild(_ child: Widget<some WidgetKind>) { gtk_scrolled_window_set_child(opaque, child.widget) }
}

extension Handle where Kind == Adjustment {
    public var value: Double {
        get { gtk_adjustment_get_value(pointer()) }
        nonmutating set { gtk_adjustment_set_value(pointer(), newValue) }
    }
    public var upper: Double { gtk_adjustment_get_upper(pointer()) }
    public var pageSize: Double { gtk_adjustment_get_page_size(pointer()) }
}

extension Handle where Kind == ListView {
    /// Shows `model` through `factory`; the list view takes both references.
    public func setModel(_ model: Handle<SingleSelection>, factory: Handle<SignalListItemFactory>) {
        gtk_list_view_set_model(opaque, model.opaque)
        gtk_list_view_set_factory(opaque, factory.opaque)
        g_object_unref(model.raw)
        g_object_unref(factory.raw)
    }

    /// Whether a single click activates a row (a double click otherwise).
    public func setSingleClickActivate(_ single: Bool) {
        gtk_list_view_set_single_click_activate(opaque, single ? 1 : 0)
    }

    /// Scrolls the row at `position` into view (GTK 4.8 has no function for it, only the action).
    public func scrollTo(_ position: Int) {
        gtk_widget_activate_action_variant(widget, "list.scroll-to-item", g_variant_new_uint32(guint32(position)))
    }

    /// Shows `model` (nil: none, and no row is bound) through `factory`; the view holds
    /// references of its own to both.
    public func show(_ model: Handle<MultiSelection>?, factory: Handle<SignalListItemFactory>) {
        gtk_list_view_set_factory(opaque, factory.opaque)
        gtk_list_view_set_model(opaque, model?.opaque)
    }

    /// Whether dragging over empty space (or from outside any row's own drag) selects a band.
    public func setRubberband(_ enabled: Bool) { gtk_list_view_set_enable_rubberband(opaque, enabled ? 1 : 0) }
}

extension Handle where Kind == GridView {
    /// A new grid view, with no model yet.
    public static func make() -> Widget<GridView> { Widget(made: gtk_grid_view_new(nil, nil)) }

    /// Shows `model` (nil: none, and no cell is bound) through `factory`; the view holds
    /// references of its own to both.
    public func show(_ model: Handle<MultiSelection>?, factory: Handle<SignalListItemFactory>) {
        gtk_grid_view_set_factory(opaque, factory.opaque)
        gtk_grid_view_set_model(opaque, model?.opaque)
    }

    /// Whether dragging over empty space (or from outside any cell's own drag) selects a band.
    public func setRubberband(_ enabled: Bool) { gtk_grid_view_set_enable_rubberband(opaque, enabled ? 1 : 0) }

    /// The most cells a row may have (GTK's default is 7, too few for small cells on a wide window).
    public func setMaxColumns(_ columns: Int) { gtk_grid_view_set_max_columns(opaque, guint(columns)) }

    /// Whether a single click activates a cell (a double click otherwise).
    public func setSingleClickActivate(_ single: Bool) {
        gtk_grid_view_set_single_click_activate(opaque, single ? 1 : 0)
    }

    /// Scrolls the cell at `position` into view (GTK 4.8 has no function for it, only the action).
    public func scrollTo(_ position: Int) {
        gtk_widget_activate_action_variant(widget, "list.scroll-to-item", g_variant_new_uint32(guint32(position)))
    }
}

extension Handle where Kind == SingleSelection {
    /// A new selection over `model` (a reference of its own, for `ListView.setModel`), with no
    /// row selected until one is, and none selected again when it is clicked twice.
    public static func make(over model: OpaquePointer) -> Self {
        let selection = gtk_single_selection_new(OpaquePointer(g_object_ref(UnsafeMutableRawPointer(model))))!
        gtk_single_selection_set_autoselect(selection, 0)
        gtk_single_selection_set_can_unselect(selection, 1)
        gtk_single_selection_set_selected(selection, GTK_INVALID_LIST_POSITION)
        return Self(UnsafeMutableRawPointer(selection))
    }

    /// The selected row's position; nil when none is.
    public var selected: Int? {
        get {
            let position = gtk_single_selection_get_selected(opaque)
            return position == GTK_INVALID_LIST_POSITION ? nil : Int(position)
        }
        nonmutating set {
            gtk_single_selection_set_selected(opaque, newValue.map { guint($0) } ?? GTK_INVALID_LIST_POSITION)
        }
    }
}

extension Handle where Kind == MultiSelection {
    /// A new selection over `model`, nothing selected (a reference of its own).
    public static func make(over model: OpaquePointer) -> Self {
        let selection = gtk_multi_selection_new(OpaquePointer(g_object_ref(UnsafeMutableRawPointer(model))))!
        return Self(UnsafeMutableRawPointer(selection))
    }

    /// The positions selected, in order.
    public var positions: [Int] {
        let set = gtk_selection_model_get_selection(opaque)!
        defer { gtk_bitset_unref(set) }
        var positions: [Int] = []
        positions.reserveCapacity(Int(gtk_bitset_get_size(set)))
        var iterator = GtkBitsetIter()
        var value: guint = 0
        var more = gtk_bitset_iter_init_first(&iterator, set, &value) != 0
        while more {
            positions.append(Int(value))
            more = gtk_bitset_iter_next(&iterator, &value) != 0
        }
        return positions
    }

    /// How many positions are selected.
    public var count: Int {
        let set = gtk_selection_model_get_selection(opaque)!
        defer { gtk_bitset_unref(set) }
        return Int(gtk_bitset_get_size(set))
    }

    public func isSelected(_ position: Int) -> Bool { gtk_selection_model_is_selected(opaque, guint(position)) != 0 }

    /// Selects `position` alone.
    public func selectOnly(_ position: Int) { gtk_selection_model_select_item(opaque, guint(position), 1) }

    /// Selects exactly `positions` (all others unselected).
    public func setSelected(_ positions: [Int]) {
        let selected = gtk_bitset_new_empty()!
        let mask = gtk_bitset_new_empty()!
        defer {
            gtk_bitset_unref(selected)
            gtk_bitset_unref(mask)
        }
        for position in positions { gtk_bitset_add(selected, guint(position)) }
        let count = g_list_model_get_n_items(opaque)
        if count > 0 { gtk_bitset_add_range(mask, 0, count) }
        gtk_selection_model_set_selection(opaque, selected, mask)
    }

    public func unselectAll() { gtk_selection_model_unselect_all(opaque) }
}

extension Handle where Kind == SignalListItemFactory {
    /// A new factory (a reference of its own, for `ListView.setModel`).
    public static func make() -> Self { Self(UnsafeMutableRawPointer(gtk_signal_list_item_factory_new()!)) }

    /// Connects `body` to `signal` ("setup", "bind", "unbind" or "teardown"), which passes a list item.
    public func connectItem(_ signal: String, _ body: @escaping (Handle<ListItem>) -> Void) -> SignalConnection {
        SignalConnection.connect(raw, signal, pointer: { item in if let item { body(Handle<ListItem>(item)) } })
    }
}

extension Handle where Kind == ListItem {
    public func setChild(_ child: Widget<some WidgetKind>) { gtk_list_item_set_child(opaque, child.widget) }
    /// The model's item shown in the row, if the row is bound.
    public var item: OpaquePointer? { gtk_list_item_get_item(opaque).map { OpaquePointer($0) } }
    public var position: Int { Int(gtk_list_item_get_position(opaque)) }
}
