import CGLib
import CGtk
import GLibKit

// Dialogs: libadwaita's message dialog, the desktop's file chooser and its app chooser.

extension Handle where Kind == MessageDialog {
    /// A new dialog over `parent` asking `heading`, explained by `body` (no responses yet).
    public static func make(parent: Widget<some WindowKind>, heading: String, body: String) -> Self {
        Self(made: adw_message_dialog_new(parent.window, heading, body))
    }

    public func setHeading(_ heading: String) { adw_message_dialog_set_heading(pointer(), heading) }
    public func setBody(_ body: String) { adw_message_dialog_set_body(pointer(), body) }

    /// Adds a button labelled `label` (with its mnemonic) answering `id`, drawn as `appearance`.
    public func addResponse(
        _ id: String, label: String, appearance: AdwResponseAppearance = ADW_RESPONSE_DEFAULT
    ) {
        adw_message_dialog_add_response(pointer(), id, label)
        adw_message_dialog_set_response_appearance(pointer(), id, appearance)
    }
    /// The response Enter chooses.
    public func setDefaultResponse(_ id: String) { adw_message_dialog_set_default_response(pointer(), id) }
    /// The response Escape, or closing the dialog, stands for.
    public func setCloseResponse(_ id: String) { adw_message_dialog_set_close_response(pointer(), id) }

    /// Connects `body` to "response", which passes the chosen response's ID (the close
    /// response's when the dialog was closed otherwise).
    public func onResponse(_ body: @escaping (String?) -> Void) -> SignalConnection {
        SignalConnection.connect(
            raw, "response",
            pointer: { id in body(id.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }) })
    }
}

extension Handle where Kind == FileChooserNative {
    /// A new file chooser (the desktop's, a portal where there is one) over `parent`, as the
    /// reference that keeps it alive while it is open.
    public static func make(
        title: String, parent: Widget<some WindowKind>, action: GtkFileChooserAction, accept: String, cancel: String
    ) -> ObjectRef<GObject> {
        ObjectRef(takingOpaque: gtk_file_chooser_native_new(title, parent.window, action, accept, cancel)!)
    }

    /// The file name a save chooser proposes.
    public func setCurrentName(_ name: String) { gtk_file_chooser_set_current_name(opaque, name) }

    /// The folder the chooser shows first (a local path); false if it cannot show it.
    @discardableResult
    public func setCurrentFolder(_ path: String) -> Bool {
        let folder = g_file_new_for_path(path)
        defer { g_object_unref(UnsafeMutableRawPointer(folder)) }
        return gtk_file_chooser_set_current_folder(opaque, folder, nil) != 0
    }

    public var selectsMultiple: Bool {
        get { gtk_file_chooser_get_select_multiple(opaque) != 0 }
        nonmutating set { gtk_file_chooser_set_select_multiple(opaque, newValue ? 1 : 0) }
    }

    /// Adds a choice of what files to show: those named `name`, of the formats GdkPixbuf reads
    /// (when `pictures`), of `mimeTypes`, or matching `patterns`.
    public func addFilter(_ name: String, pictures: Bool = false, mimeTypes: [String] = [], patterns: [String] = []) {
        let filter = gtk_file_filter_new()!
        gtk_file_filter_set_name(filter, name)
        if pictures { gtk_file_filter_add_pixbuf_formats(filter) }
        for type in mimeTypes { gtk_file_filter_add_mime_type(filter, type) }
        for pattern in patterns { gtk_file_filter_add_pattern(filter, pattern) }
        gtk_file_chooser_add_filter(opaque, filter)
        g_object_unref(UnsafeMutableRawPointer(filter))
    }

    /// The addresses of the files chosen.
    public var chosenURIs: [String] {
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
    public var chosenPath: String? {
        guard let file = gtk_file_chooser_get_file(opaque) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        guard let path = g_file_get_path(file) else { return nil }
        defer { g_free(path) }
        return String(cString: path)
    }

    public func show() { gtk_native_dialog_show(pointer()) }

    /// Whether the chooser keeps the keys and the pointer from its parent while it is open.
    public func setModal(_ modal: Bool) { gtk_native_dialog_set_modal(pointer(), modal ? 1 : 0) }

    /// Closes the chooser without an answer (its parent is going).
    public func destroy() { gtk_native_dialog_destroy(pointer()) }
}

extension Handle where Kind == AppChooserDialog {
    /// A new modal chooser of the apps that open `file` (a `GFile`), over `parent` and
    /// destroyed with it.
    public static func make(for file: ObjectRef<GObject>, parent: Widget<some WindowKind>) -> Self {
        let flags = GtkDialogFlags(rawValue: GTK_DIALOG_MODAL.rawValue | GTK_DIALOG_DESTROY_WITH_PARENT.rawValue)
        return Self(made: gtk_app_chooser_dialog_new(parent.window, flags, file.opaque))
    }

    /// Connects `body` to "response", with whether an app was chosen (rather than cancelled).
    public func onResponse(_ body: @escaping (Bool) -> Void) -> SignalConnection {
        connect("response", int: { response in body(response == GTK_RESPONSE_OK.rawValue) })
    }

    /// Opens `file` with the app chosen, if one is, on the dialog's display.
    public func launchChosenApp(with file: ObjectRef<GObject>) throws(GLibError) {
        try launchChosenApp(with: [file])
    }

    /// Starts the app chosen on all of `files` at once.
    public func launchChosenApp(with chosenFiles: [ObjectRef<GObject>]) throws(GLibError) {
        guard let app = gtk_app_chooser_get_app_info(opaque) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(app)) }
        var files: UnsafeMutablePointer<GList>?
        for file in chosenFiles.reversed() { files = g_list_prepend(files, UnsafeMutableRawPointer(file.pointer)) }
        defer { g_list_free(files) }
        try launch { context, error in g_app_info_launch(app, files, context, error) }
    }
}

/// Mounting the network share or device a GIO location is on, as the file manager does:
/// GVfs connects, and a dialog over the parent window asks for a password where the share
/// wants one (`GtkMountOperation`).
public enum ShareMounting {
    private final class Pending {
        let done: @MainActor (GLibError?) -> Void
        /// The dialog's showing watched, for as long as the mount goes on.
        var asking: SignalConnection?
        init(_ done: @escaping @MainActor (GLibError?) -> Void) { self.done = done }
    }

    /// Mounts the share holding `uri`; `done` gets GIO's error on the main loop, or nil once it
    /// is mounted (or was already). `asked` is called each time a dialog asks the user
    /// something (a password). Some backends (WebDAV) mount only from a folder: a file's share
    /// is mounted from the folder it is in when it will not mount from the file itself.
    @MainActor
    public static func mount(
        _ uri: String, parent: Widget<some WindowKind>, cancellable: Cancellable,
        asked: @escaping @MainActor () -> Void = {}, done: @escaping @MainActor (GLibError?) -> Void
    ) {
        let file = ObjectRef<GObject>(takingOpaque: g_file_new_for_uri(uri)!)
        mount(file, parent: parent, cancellable: cancellable, asked: asked) { error in
            // A password dialog the user cancelled (FAILED_HANDLED; WebDAV's says "Unauthorized",
            // PERMISSION_DENIED), or a share that refused the login, is not asked again from
            // the folder.
            guard let error, !cancellable.isCancelled, !error.isIOError(G_IO_ERROR_FAILED_HANDLED),
                !error.isIOError(G_IO_ERROR_PERMISSION_DENIED), let folder = g_file_get_parent(file.opaque)
            else { return done(error) }
            mount(ObjectRef(takingOpaque: folder), parent: parent, cancellable: cancellable, asked: asked) { again in
                done(again == nil ? nil : error)
            }
        }
    }

    @MainActor
    private static func mount(
        _ file: ObjectRef<GObject>, parent: Widget<some WindowKind>, cancellable: Cancellable,
        asked: @escaping @MainActor () -> Void, done: @escaping @MainActor (GLibError?) -> Void
    ) {
        let operation = gtk_mount_operation_new(parent.window)!
        defer { g_object_unref(operation) }
        let pending = Pending(done)
        let raw = UnsafeMutableRawPointer(operation)
        let dialog = raw.assumingMemoryBound(to: GtkMountOperation.self)
        pending.asking = SignalConnection.connect(
            raw, "notify::is-showing",
            pointer: { _ in
                guard gtk_mount_operation_is_showing(dialog) != 0 else { return }
                // GTK notifies as the dialog shows, on the main thread (no hop: `asked` is the
                // caller's main-actor closure, run as the dialog shows).
                MainActor.assumeIsolated { asked() }
            })
        g_file_mount_enclosing_volume(
            file.opaque, G_MOUNT_MOUNT_NONE, operation, cancellable.pointer,
            { source, result, data in
                let pending = CallbackData.take(data, as: Pending.self)
                var failure: UnsafeMutablePointer<GError>?
                g_file_mount_enclosing_volume_finish(OpaquePointer(source), result, &failure)
                let error = failure.map { GLibError(consuming: $0) }
                // The callback runs in the main context the mount was started from, on the main
                // thread: no hop, `done` runs as the mount ends, while `pending` is held here.
                MainActor.assumeIsolated {
                    pending.done(error.flatMap { $0.isIOError(G_IO_ERROR_ALREADY_MOUNTED) ? nil : $0 })
                }
            }, CallbackData.retain(pending))
    }
}

extension Handle where Kind: WidgetKind {
    /// Opens `uri` in the app the desktop has for its kind (a `geo:` address in a maps app),
    /// on this widget's display; throws GIO's error when it has none.
    public func openInDefaultApp(_ uri: String) throws(GLibError) {
        try launch { context, error in g_app_info_launch_default_for_uri(uri, context, error) }
    }

    /// Starts an app through `start` (a GIO launch call, given the launch context of this
    /// widget's display, nil where GDK has none, and the error to fill); throws GIO's error
    /// when it did not start.
    func launch(
        _ start: (UnsafeMutablePointer<GAppLaunchContext>?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>)
            -> gboolean
    ) throws(GLibError) {
        let context = gdk_display_get_app_launch_context(gtk_widget_get_display(widget))
        defer { if let context { g_object_unref(UnsafeMutableRawPointer(context)) } }
        let launchContext = context.map {
            UnsafeMutableRawPointer($0).assumingMemoryBound(to: GAppLaunchContext.self)
        }
        var error: UnsafeMutablePointer<GError>?
        if start(launchContext, &error) == 0 {
            throw error.map { GLibError(consuming: $0) } ?? GLibError(domain: "", code: 0, message: "")
        }
    }
}
