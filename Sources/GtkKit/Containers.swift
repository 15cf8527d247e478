import CGtk

// Widgets that hold others: boxes, libadwaita's bin, overlays and stacks.

extension Handle where Kind == Box {
    /// A new box laying its children out along `orientation`, `spacing` pixels apart.
    public static func make(_ orientation: GtkOrientation, spacing: Int32) -> Self {
        Self(made: gtk_box_new(orientation, spacing))
    }

    public func append(_ child: Widget<some WidgetKind>) { gtk_box_append(pointer(), child.widget) }
    /// Puts `child` right after `sibling`, a child of the box already.
    public func insert(_ child: Widget<some WidgetKind>, after sibling: Widget<some WidgetKind>) {
        gtk_box_insert_child_after(pointer(), child.widget, sibling.widget)
    }
    /// Lays the children out along `orientation` from now on.
    public func setOrientation(_ orientation: GtkOrientation) { gtk_orientable_set_orientation(opaque, orientation) }
    /// Whether every child gets the same room.
    public func setHomogeneous(_ homogeneous: Bool) { gtk_box_set_homogeneous(pointer(), homogeneous ? 1 : 0) }
    /// Takes every child out.
    public func removeAll() {
        while let child = gtk_widget_get_first_child(widget) { gtk_box_remove(pointer(), child) }
    }
}

extension Handle where Kind == Bin {
    public func setChild(_ child: Widget<some WidgetKind>) { adw_bin_set_child(pointer(), child.widget) }
}

extension Handle where Kind == Overlay {
    public static func make() -> Self { Self(made: gtk_overlay_new()) }
    public func setChild(_ child: Widget<some WidgetKind>) { gtk_overlay_set_child(opaque, child.widget) }
    /// Adds `child` over the overlay's main child (above those added before).
    public func addOverlay(_ child: Widget<some WidgetKind>) { gtk_overlay_add_overlay(opaque, child.widget) }
}

extension Handle where Kind == Revealer {
    public func setChild(_ child: Widget<some WidgetKind>) { gtk_revealer_set_child(opaque, child.widget) }
    /// Whether the child is shown (sliding in or out as `setTransition` says).
    public var reveals: Bool {
        get { gtk_revealer_get_reveal_child(opaque) != 0 }
        nonmutating set { gtk_revealer_set_reveal_child(opaque, newValue ? 1 : 0) }
    }
    /// Whether the child is all in (its transition over), as `reveals` asked.
    public var isChildRevealed: Bool { gtk_revealer_get_child_revealed(opaque) != 0 }
    public func setTransition(_ transition: GtkRevealerTransitionType) {
        gtk_revealer_set_transition_type(opaque, transition)
    }
}

extension Handle where Kind == Stack {
    /// Shows the page named `name`.
    public func showPage(_ name: String) { gtk_stack_set_visible_child_name(opaque, name) }
}
