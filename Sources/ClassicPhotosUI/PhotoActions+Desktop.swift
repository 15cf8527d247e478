import CGLib
import CGtk
import Foundation
import GLibKit
import PhotoPipeline

/// The photo actions that turn a photo's file, or hand it to the desktop: Rotate, Set as
/// Background, Show in Files, Copy Location, Open With… and Print.
extension PhotoActions {
    // MARK: Rotate

    /// Turns the photo a quarter turn: a JPEG by its EXIF orientation, other formats (after a
    /// confirmation) by saving them again, turned. The row, the shared thumbnail and the viewer
    /// follow.
    func rotatePhoto(clockwise: Bool) {
        guard let target = photoTarget(), let path = target.path else { return }
        inBackground(
            { PhotoFiles.turnKind(of: path) },
            then: { [weak self] kind in
                guard let self else { return }
                switch kind {
                case .unsupported:
                    status.showToast(String(format: tr("“%@” cannot be rotated"), DisplayText.line(target.name)))
                case .losslessJPEG:
                    turn(target, path: path, clockwise: clockwise)
                case .reencode(let format):
                    confirm(
                        heading: tr("Rotate by Saving Again?"),
                        body: String(
                            format: tr(
                                "“%@” is a %@ picture, which has no lossless way to be turned: it will be saved again, turned."
                            ), DisplayText.line(target.name), format.uppercased()),
                        action: tr("_Rotate"), destructive: false
                    ) { [unowned self] in turn(target, path: path, clockwise: clockwise) }
                }
            })
    }

    private func turn(_ target: PhotoTarget, path: String, clockwise: Bool) {
        noteOwnChange(path)
        inBackground(
            { PhotoFiles.turn(path, clockwise: clockwise) },
            then: { [weak self] result in
                guard let self else { return }
                switch result {
                case .success:
                    noteOwnChange(path)
                    // Whatever was made from the file (thumbnails, shared and cached, and the
                    // viewer's picture) goes; the photo is loaded again.
                    photos.apply(.replace([target.id]))
                    let row = photos.position(of: target.id) ?? target.position
                    Trace.shared.emit(.viewerRotate(row: row, id: target.id, degrees: clockwise ? 90 : -90))
                case .failure(let failure):
                    status.showToast(
                        String(
                            format: tr("“%@” could not be rotated: %@"), DisplayText.line(target.name),
                            failure.localizedMessage)
                    )
                }
            })
    }

    // MARK: The desktop

    func setBackground() {
        guard let target = photoTarget(), let path = target.path else { return }
        inBackground(
            { DesktopServices.setBackground(path: path) },
            then: { [weak self] answer in
                switch answer {
                case .done: break // the portal asks the user itself
                case .missing:
                    self?.status.showToast(tr("No desktop portal to set the background"))
                case .failed(let message):
                    self?.status.showToast(String(format: tr("The background could not be set: %@"), message))
                }
            })
    }

    func showInFiles() {
        guard let target = photoTarget(), let url = target.url, url.isFileURL else { return }
        let uri = url.absoluteString
        inBackground(
            { DesktopServices.showInFiles(uri: uri) },
            then: { [weak self] answer in
                switch answer {
                case .done: break
                case .missing:
                    self?.status.showToast(tr("No file manager to show the photo"))
                case .failed(let message):
                    self?.status.showToast(String(format: tr("The photo could not be shown in Files: %@"), message))
                }
            })
    }

    /// Puts the photo's location on the clipboard: its path for a file, its address for a
    /// photo on the web.
    func copyLocation() {
        guard let target = photoTarget() else { return }
        let text = target.path ?? target.url?.absoluteString ?? target.entry.link
        gdk_clipboard_set_text(gtk_widget_get_clipboard(window.widget), text)
        status.showToast(tr("Location copied"))
    }

    /// The desktop's app chooser for the photo's file; the app chosen opens it.
    func openWith() {
        guard let target = photoTarget(), let path = target.path else { return }
        let file = ObjectRef(takingOpaque: g_file_new_for_path(path)!)
        let flags = GtkDialogFlags(rawValue: GTK_DIALOG_MODAL.rawValue | GTK_DIALOG_DESTROY_WITH_PARENT.rawValue)
        let made = gtk_app_chooser_dialog_new(window.window, flags, file.opaque)!
        let holder = ObjectRef(retaining: UnsafeMutableRawPointer(made).assumingMemoryBound(to: GObject.self))
        let response = SignalConnection.connect(
            UnsafeMutableRawPointer(made), "response",
            int: { [unowned self] response in
                defer {
                    gtk_window_destroy(UnsafeMutableRawPointer(made).assumingMemoryBound(to: GtkWindow.self))
                    open = nil
                }
                guard response == GTK_RESPONSE_OK.rawValue,
                    let app = gtk_app_chooser_get_app_info(OpaquePointer(made))
                else { return }
                defer { g_object_unref(UnsafeMutableRawPointer(app)) }
                let context = gdk_display_get_app_launch_context(gtk_widget_get_display(window.widget))
                defer { if let context { g_object_unref(UnsafeMutableRawPointer(context)) } }
                let files = g_list_append(nil, UnsafeMutableRawPointer(file.pointer))
                defer { g_list_free(files) }
                var error: UnsafeMutablePointer<GError>?
                let launchContext = context.map {
                    UnsafeMutableRawPointer($0).assumingMemoryBound(to: GAppLaunchContext.self)
                }
                if g_app_info_launch(app, files, launchContext, &error) == 0 {
                    let message = error.map { String(cString: $0.pointee.message) } ?? ""
                    if let error { g_error_free(error) }
                    status.showToast(String(format: tr("The photo could not be opened: %@"), message))
                }
            })
        open = (holder, [response])
        gtk_window_present(UnsafeMutableRawPointer(made).assumingMemoryBound(to: GtkWindow.self))
    }

    // MARK: Print

    /// Prints the photo shown (sepia or original, as shown), fitted to the page.
    func printPhoto() {
        guard let target = photoTarget(), let shown = viewer.shownPictureBytes else {
            if viewer.shownPhoto != nil { status.showToast(tr("The photo is not loaded yet")) }
            return
        }
        inBackground(
            { PhotoSaving.fullPicture(bytes: shown.bytes, sepia: shown.sepia) },
            then: { [weak self] picture in
                guard let self else { return }
                switch picture {
                case .success(let image): runPrint(image, name: target.name)
                case .failure(let failure):
                    status.showToast(String(format: tr("The photo could not be printed: %@"), failure.message))
                }
            })
    }

    private func runPrint(_ image: PhotoImage, name: String) {
        let operation = ObjectRef(taking: gtk_print_operation_new()!)
        let op = operation.pointer
        gtk_print_operation_set_n_pages(op, 1)
        gtk_print_operation_set_job_name(op, name)
        gtk_print_operation_set_allow_async(op, 1)
        // A landscape photo on a landscape page.
        let setup = gtk_page_setup_new()!
        gtk_page_setup_set_orientation(
            setup, image.width > image.height ? GTK_PAGE_ORIENTATION_LANDSCAPE : GTK_PAGE_ORIENTATION_PORTRAIT)
        gtk_print_operation_set_default_page_setup(op, setup)
        g_object_unref(UnsafeMutableRawPointer(setup))
        let draw = SignalConnection.connect(
            UnsafeMutableRawPointer(operation.pointer), "draw-page",
            pointerInt: { printContext, _ in
                guard let printContext else { return }
                let context = OpaquePointer(printContext)
                let cr = gtk_print_context_get_cairo_context(context)
                let (width, height) = (gtk_print_context_get_width(context), gtk_print_context_get_height(context))
                let scale = min(width / Double(image.width), height / Double(image.height))
                cairo_translate(
                    cr, (width - Double(image.width) * scale) / 2, (height - Double(image.height) * scale) / 2)
                cairo_scale(cr, scale, scale)
                gdk_cairo_set_source_pixbuf(cr, image.pixbuf, 0, 0)
                cairo_paint(cr)
            })
        let done = SignalConnection.connect(
            UnsafeMutableRawPointer(operation.pointer), "done",
            int: { [unowned self] result in
                if result == Int32(GTK_PRINT_OPERATION_RESULT_ERROR.rawValue) {
                    var error: UnsafeMutablePointer<GError>?
                    gtk_print_operation_get_error(op, &error)
                    let message = error.map { String(cString: $0.pointee.message) } ?? ""
                    if let error { g_error_free(error) }
                    status.showToast(String(format: tr("The photo could not be printed: %@"), message))
                }
                MainLoop.onMainActor { [weak self] in self?.open = nil }
            })
        open = (operation, [draw, done])
        var error: UnsafeMutablePointer<GError>?
        let result = gtk_print_operation_run(op, GTK_PRINT_OPERATION_ACTION_PRINT_DIALOG, window.window, &error)
        if result == GTK_PRINT_OPERATION_RESULT_ERROR {
            let message = error.map { String(cString: $0.pointee.message) } ?? ""
            if let error { g_error_free(error) }
            status.showToast(String(format: tr("The photo could not be printed: %@"), message))
            open = nil
        }
    }
}
