import CGtk

// Widgets that show or take text: labels, one-line inscriptions, titles, status pages, toasts
// and entries.

extension Handle where Kind == Label {
    /// A new label showing `text`.
    public static func make(_ text: String = "") -> Self { Self(made: gtk_label_new(text)) }

    public func setText(_ text: String) { gtk_label_set_text(opaque, text) }
    /// Where the text sits across the label's width (0: at the start).
    public func setXAlign(_ xalign: Float) { gtk_label_set_xalign(opaque, xalign) }
    /// Ends the text with "…" where it does not fit, at most `chars` characters wide.
    public func ellipsize(atChars chars: Int32) {
        gtk_label_set_ellipsize(opaque, PANGO_ELLIPSIZE_END)
        gtk_label_set_max_width_chars(opaque, chars)
    }
}

extension Handle where Kind == ProgressBar {
    public static func make() -> Self { Self(made: gtk_progress_bar_new()) }

    /// How much of the bar is filled, from 0 to 1.
    public func setFraction(_ fraction: Double) { gtk_progress_bar_set_fraction(opaque, fraction) }
}

extension Handle where Kind == Inscription {
    /// A new inscription with no text.
    public static func make() -> Self { Self(made: gtk_inscription_new(nil)) }

    /// Sets the text (the same text again changes nothing).
    public func setText(_ text: String) { gtk_inscription_set_text(opaque, text) }
    public func setTextOverflow(_ overflow: GtkInscriptionOverflow) {
        gtk_inscription_set_text_overflow(opaque, overflow)
    }
    public func setXAlign(_ xalign: Float) { gtk_inscription_set_xalign(opaque, xalign) }
    /// The number of lines it asks room for.
    public func setNaturalLines(_ lines: UInt32) { gtk_inscription_set_nat_lines(opaque, lines) }
}

extension Handle where Kind == Entry {
    public var text: String {
        get { String(cString: gtk_editable_get_text(opaque)) }
        nonmutating set { gtk_editable_set_text(opaque, newValue) }
    }
}

extension Handle where Kind == SearchEntry {
    public var text: String {
        get { String(cString: gtk_editable_get_text(opaque)) }
        nonmutating set { gtk_editable_set_text(opaque, newValue) }
    }
    /// Gives the entry the keys with its words not selected and the cursor after them, to type on.
    public func grabFocusToTypeOn() {
        guard let text = gtk_editable_get_delegate(opaque) else { return }
        _ = gtk_text_grab_focus_without_selecting(UnsafeMutablePointer<GtkText>(text))
        gtk_editable_set_position(opaque, -1)
    }
    /// How long after a key "search-changed" comes (GTK's own wait is 150 ms).
    public func setSearchDelay(milliseconds: UInt32) { gtk_search_entry_set_search_delay(opaque, milliseconds) }
}

extension Handle where Kind == SearchBar {
    /// Whether the bar is shown (its entry's Escape hides it, and GTK says so in
    /// "notify::search-mode-enabled").
    public var isSearching: Bool {
        get { gtk_search_bar_get_search_mode(opaque) != 0 }
        nonmutating set { gtk_search_bar_set_search_mode(opaque, newValue ? 1 : 0) }
    }

    /// Makes `entry` the bar's: Escape in it hides the bar.
    public func connect(entry: Handle<SearchEntry>) { gtk_search_bar_connect_entry(opaque, entry.opaque) }
}

extension Handle where Kind == StatusPage {
    public func setIconName(_ name: String) { adw_status_page_set_icon_name(opaque, name) }
    public func setTitle(_ title: String) { adw_status_page_set_title(opaque, title) }
    /// Sets the text under the title, which is read as Pango markup.
    public func setDescription(markup: String?) { adw_status_page_set_description(opaque, markup) }
}

extension Handle where Kind == WindowTitle {
    public func setTitle(_ title: String) { adw_window_title_set_title(opaque, title) }
    public func setSubtitle(_ subtitle: String) { adw_window_title_set_subtitle(opaque, subtitle) }
    public var subtitle: String { adw_window_title_get_subtitle(opaque).map { String(cString: $0) } ?? "" }
}

extension Handle where Kind == ToastOverlay {
    /// Shows a toast titled `markup` (Pango markup), with a button that activates `action`.
    public func addToast(markup: String, button: (label: String, action: String)?, closeName: String) {
        let toast = adw_toast_new(markup)!
        if let button {
            adw_toast_set_button_label(toast, button.label)
            adw_toast_set_action_name(toast, button.action)
        }
        adw_toast_overlay_add_toast(opaque, toast) // takes the toast's reference
        // Its close button has no name of its own in libadwaita 1.2.
        cp_name_toast_buttons(opaque, closeName)
    }
}
