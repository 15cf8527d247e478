import CGLib
import CGtk
import GLibKit

// Windows: any window's calls, the application's main window, About, and the surface a window
// is shown on.

extension Handle where Kind: WindowKind {
    /// The window as GTK's C type, for the functions that take a parent window.
    public var window: UnsafeMutablePointer<GtkWindow> { pointer(as: GtkWindow.self) }

    public func setTitle(_ title: String) { gtk_window_set_title(window, title) }
    /// Whether the keys go to a text being typed (an entry has the focus).
    public var isTyping: Bool { cp_focus_is_in_text(window) != 0 }
    public func setIconName(_ name: String) { gtk_window_set_icon_name(window, name) }
    public func setTransientFor(_ parent: Widget<some WindowKind>) {
        gtk_window_set_transient_for(window, parent.window)
    }
    public func setModal(_ modal: Bool) { gtk_window_set_modal(window, modal ? 1 : 0) }
    public func present() { gtk_window_present(window) }
    public func close() { gtk_window_close(window) }
    public func destroy() { gtk_window_destroy(window) }
    public func setFullscreen(_ fullscreen: Bool) {
        if fullscreen { gtk_window_fullscreen(window) } else { gtk_window_unfullscreen(window) }
    }
    public func maximize() { gtk_window_maximize(window) }
    public var isMaximized: Bool { gtk_window_is_maximized(window) != 0 }

    /// The size the window opens at, in logical pixels.
    public var defaultSize: (width: Int32, height: Int32) {
        get {
            var (width, height) = (Int32(0), Int32(0))
            gtk_window_get_default_size(window, &width, &height)
            return (width, height)
        }
        nonmutating set { gtk_window_set_default_size(window, newValue.width, newValue.height) }
    }

    /// The window's surface while it is on screen.
    public var surface: Handle<ToplevelSurface>? {
        gtk_native_get_surface(opaque).map { Handle<ToplevelSurface>(UnsafeMutableRawPointer($0)) }
    }

    /// Connects `body` to "close-request": returning true keeps the window open.
    public func onCloseRequest(_ body: @escaping () -> Bool) -> SignalConnection {
        SignalConnection.connectReturning(raw, "close-request", body)
    }
}

extension Handle where Kind == ApplicationWindow {
    /// A new window of `application` (not yet shown).
    public init(application: Handle<Application>) {
        self.init(made: adw_application_window_new(application.pointer()))
    }

    public func setContent(_ content: Widget<some WidgetKind>) {
        adw_application_window_set_content(pointer(), content.widget)
    }
    /// Adds `action` to the window's actions (`win.` and its name).
    public func addAction(_ action: ObjectRef<GObject>) { g_action_map_add_action(opaque, action.opaque) }
    /// Turns the window's action `name` (a `GSimpleAction` it was given) on or off.
    public func setActionEnabled(_ name: String, _ enabled: Bool) {
        guard let action = g_action_map_lookup_action(opaque, name) else { return }
        g_simple_action_set_enabled(action, enabled ? 1 : 0)
    }
    /// Sets the state of the window's stateful action `name` (a `GSimpleAction` it was given)
    /// without acting on it: a check item's tick.
    public func setActionState(_ name: String, _ value: Bool) {
        guard let action = g_action_map_lookup_action(opaque, name) else { return }
        g_simple_action_set_state(action, g_variant_new_boolean(value ? 1 : 0))
    }
}

extension Handle where Kind == About {
    /// A new About window (not yet shown); it goes away when closed.
    public static func make() -> Self { Self(made: adw_about_window_new()) }

    public func setApplicationName(_ name: String) { adw_about_window_set_application_name(opaque, name) }
    public func setApplicationIcon(_ name: String) { adw_about_window_set_application_icon(opaque, name) }
    public func setVersion(_ version: String) { adw_about_window_set_version(opaque, version) }
    public func setDeveloperName(_ name: String) { adw_about_window_set_developer_name(opaque, name) }
    public func setComments(_ comments: String) { adw_about_window_set_comments(opaque, comments) }
    public func setWebsite(_ address: String) { adw_about_window_set_website(opaque, address) }
    public func setIssueURL(_ address: String) { adw_about_window_set_issue_url(opaque, address) }
    public func setLicenseType(_ license: GtkLicense) { adw_about_window_set_license_type(opaque, license) }
    public func setCopyright(_ copyright: String) { adw_about_window_set_copyright(opaque, copyright) }
    /// The Troubleshooting page's text, and the name it is saved under.
    public func setDebugInfo(_ text: String, filename: String) {
        adw_about_window_set_debug_info(opaque, text)
        adw_about_window_set_debug_info_filename(opaque, filename)
    }
}

extension Handle where Kind == ToplevelSurface {
    public var isMinimized: Bool {
        (gdk_toplevel_get_state(opaque).rawValue & GDK_TOPLEVEL_STATE_MINIMIZED.rawValue) != 0
    }
}
