import CGLib
import CGtk
import CPhotoListModel
import Foundation
import GLibKit
import PhotoPipeline

/// What the photo actions remember between a request and its answer: photos moved to the
/// trash (for Undo), files the app itself just wrote (so that the folder watch does not take
/// them for someone else's change), and the dialog or print job open.
@MainActor
final class PhotoActionState {
    /// Photos moved to the trash, the latest last: what Undo puts back, and the list (its
    /// generation) they were taken from.
    var trashed: [(trashed: PhotoFiles.Trashed, entry: PhotoEntry, position: Int, list: Int)] = []
    /// Paths the app wrote, restored or removed, and when.
    var ownChanges: [String: Date] = [:]
    var actions: [String: ObjectRef<GObject>] = [:]
    /// A confirmation, the app chooser or a print job while open: what holds it, and its handlers.
    var open: (owner: AnyObject, connections: [SignalConnection])?
    var connections: [SignalConnection] = []
    /// The rows' context menu, a child of the list while the window lives.
    var rowMenu: UnsafeMutablePointer<GtkWidget>?
    /// The photo the rows' menu was opened on, while it is open (and until its action ran):
    /// closing the menu gives the list its focus back, which may select another row.
    var menuPhoto: PhotoID?
    var menuClosed: MainLoopSource?
}

/// The photo actions (`win.*`), on the photo shown in the viewer, or the list's selected row
/// when the viewer is closed: Move to Trash (with Undo) and Delete Permanently, Rotate Left and
/// Right, Set as Background, Print, Open With…, Show in Files, Copy Location, and the slideshow.
/// File work runs off the main thread (`PhotoFiles`, `DesktopServices`); its answer comes back
/// to the main actor, and a toast says what happened when something went wrong or can be undone.
extension PhotoListWindow {
    /// Keyboard accelerators of the photo actions (added to the window's).
    static let photoAcceleratorsByAction: [(String, [String])] = [
        ("win.trash", ["Delete", "KP_Delete"]),
        ("win.delete", ["<Shift>Delete", "<Shift>KP_Delete"]),
        ("win.undo-trash", ["<Control>z"]),
        ("win.rotate-right", ["<Control>r"]),
        ("win.rotate-left", ["<Control><Shift>r"]),
        ("win.print", ["<Control>p"]),
        ("win.copy-location", ["<Control><Shift>c"]),
        ("win.set-background", ["<Control>F8"]),
        ("win.open-with", ["<Control><Alt>o"]),
        ("win.show-in-files", ["<Control><Alt>f"]),
    ]

    /// Actions that need the photo to be a file on this computer.
    private static let fileActions = [
        "trash", "delete", "rotate-left", "rotate-right", "set-background", "open-with", "show-in-files",
    ]

    /// Adds the actions, and the rows' context menu from `ui` (the window's file).
    func addPhotoActions(from ui: UIFile) {
        addPhotoAction("trash") { [unowned self] in trashPhoto() }
        addPhotoAction("undo-trash") { [unowned self] in undoTrash() }
        addPhotoAction("delete") { [unowned self] in deletePhoto() }
        addPhotoAction("rotate-right") { [unowned self] in rotatePhoto(clockwise: true) }
        addPhotoAction("rotate-left") { [unowned self] in rotatePhoto(clockwise: false) }
        addPhotoAction("set-background") { [unowned self] in setBackground() }
        addPhotoAction("print") { [unowned self] in printPhoto() }
        addPhotoAction("open-with") { [unowned self] in openWith() }
        addPhotoAction("show-in-files") { [unowned self] in showInFiles() }
        addPhotoAction("copy-location") { [unowned self] in copyLocation() }
        addPhotoAction("slideshow") { [unowned self] in viewer.startSlideshow() }
        addChoice("slideshow-interval", "5") { [unowned self] value in
            guard let seconds = UInt32(value), [3, 5, 10].contains(seconds) else { return false }
            viewer.slideshow.interval = seconds
            return true
        }
        photoActions.connections.append(selection.onNotify("selected") { [unowned self] in refreshPhotoActions() })
        addRowMenu(ui.object("row-menu", as: MenuModel.self))
        refreshPhotoActions()
    }

    /// A right click on a row selects it and opens the photo actions' menu there.
    private func addRowMenu(_ model: Handle<MenuModel>) {
        let menu = gtk_popover_menu_new_from_model(model.pointer(as: GMenuModel.self))!
        gtk_widget_set_parent(menu, list.widget)
        gtk_popover_set_has_arrow(UnsafeMutableRawPointer(menu).assumingMemoryBound(to: GtkPopover.self), 0)
        photoActions.rowMenu = menu
        photoActions.connections.append(
            SignalConnection.connect(UnsafeMutableRawPointer(menu), "closed") { [unowned self] in
                // The item chosen runs its action first; the photo is forgotten after that.
                photoActions.menuClosed = MainLoopSource.onMainActor(.idle) { [weak self] in
                    self?.photoActions.menuPhoto = nil
                    self?.photoActions.menuClosed = nil
                    return .remove
                }
            })
        let click = gtk_gesture_click_new()!
        gtk_gesture_single_set_button(click, 3)
        photoActions.connections.append(
            SignalConnection.connect(
                UnsafeMutableRawPointer(click), "pressed",
                intPoint: { [unowned self] _, x, y in openRowMenu(x: x, y: y) }))
        list.addController(click)
    }

    private func openRowMenu(x: Double, y: Double) {
        let count = processor.photos.count
        guard count > 0, let menu = photoActions.rowMenu, let adjustment = scrolled.verticalAdjustment else { return }
        let rowHeight = adjustment.upper / Double(count)
        let position = Int((adjustment.value + y) / max(1, rowHeight))
        guard position >= 0, position < count else { return }
        selection.selected = position
        photoActions.menuClosed = nil
        photoActions.menuPhoto = processor.photos.id(at: position)
        refreshPhotoActions()
        var point = GdkRectangle(x: Int32(x), y: Int32(y), width: 1, height: 1)
        let popover = UnsafeMutableRawPointer(menu).assumingMemoryBound(to: GtkPopover.self)
        gtk_popover_set_pointing_to(popover, &point)
        gtk_popover_popup(popover)
    }

    /// Takes the rows' menu off the list (the window is closing).
    func removeRowMenu() {
        if let menu = photoActions.rowMenu { gtk_widget_unparent(menu) }
        photoActions.rowMenu = nil
    }

    private func addPhotoAction(_ name: String, _ body: @escaping () -> Void) {
        let action = ObjectRef(takingOpaque: g_simple_action_new(name, nil)!)
        photoActions.connections.append(SignalConnection.connect(action.pointer, "activate", pointer: { _ in body() }))
        toplevel.addAction(action)
        photoActions.actions[name] = action
    }

    /// Turns the actions on or off for the photo they would act on now.
    func refreshPhotoActions() {
        let target = photoTarget()
        let isFile = target?.path != nil
        for name in Self.fileActions { setPhotoAction(name, enabled: isFile) }
        setPhotoAction("copy-location", enabled: target != nil)
        setPhotoAction("print", enabled: viewer.shownPhoto != nil)
        setPhotoAction("slideshow", enabled: viewer.shownPhoto != nil)
        setPhotoAction("undo-trash", enabled: !photoActions.trashed.isEmpty)
    }

    private func setPhotoAction(_ name: String, enabled: Bool) {
        guard let action = photoActions.actions[name] else { return }
        g_simple_action_set_enabled(action.opaque, enabled ? 1 : 0)
    }

    // MARK: The photo acted on

    /// A photo an action acts on.
    struct PhotoTarget {
        let id: PhotoID
        let position: Int
        let entry: PhotoEntry
        let url: URL?
        var name: String { entry.name }
        /// Its file, for a photo on this computer.
        var path: String? { url.flatMap { $0.isFileURL ? $0.path : nil } }
    }

    /// The photo shown in the viewer, or, with the viewer closed, the list's selected row.
    func photoTarget() -> PhotoTarget? {
        let photos = processor.photos
        let chosen: (id: PhotoID, position: Int)?
        if let shown = viewer.shownPhoto {
            chosen = shown
        } else if let id = photoActions.menuPhoto, let position = photos.position(of: id) {
            chosen = (id, position)
        } else if let position = selection.selected, position < photos.count {
            chosen = (photos.id(at: position), position)
        } else {
            chosen = nil
        }
        guard let chosen, let snapshot = processor.snapshot(of: chosen.id) else { return nil }
        return PhotoTarget(
            id: chosen.id, position: chosen.position, entry: snapshot.entry, url: try? snapshot.entry.resolvedURL())
    }

    /// Remembers that the app itself changed `path` (the folder watch passes over it).
    private func noteOwnChange(_ path: String) {
        let now = Date()
        photoActions.ownChanges = photoActions.ownChanges.filter { now.timeIntervalSince($0.value) < 5 }
        photoActions.ownChanges[path] = now
    }

    /// Whether the app itself changed `path` a moment ago.
    func isOwnChange(_ path: String) -> Bool {
        photoActions.ownChanges[path].map { Date().timeIntervalSince($0) < 5 } ?? false
    }

    // MARK: Trash and Delete

    private func trashPhoto() {
        guard let target = photoTarget(), let path = target.path else { return }
        noteOwnChange(path)
        inBackground(
            { PhotoFiles.trash(path) },
            then: { [weak self] result in
                guard let self else { return }
                switch result {
                case .success(let trashed):
                    photoActions.trashed.append((trashed, target.entry, target.position, listGeneration))
                    photoRemoved(target)
                    Trace.shared.emit(.fileTrashed(row: target.position, id: target.id, name: target.name))
                    showToast(
                        String(format: tr("“%@” moved to the trash"), DisplayText.line(target.name)),
                        button: (tr("_Undo"), "win.undo-trash"))
                case .failure(let failure):
                    showToast(
                        String(
                            format: tr("“%@” could not be moved to the trash: %@"), DisplayText.line(target.name),
                            failure.localizedMessage))
                }
                refreshPhotoActions()
            })
    }

    /// Runs `work` (blocking file or bus work) on a thread of its own, then `done` with what it
    /// gave, on the main loop.
    private func inBackground<Value: Sendable>(
        _ work: @escaping @Sendable () -> Value, then done: @escaping @MainActor @Sendable (Value) -> Void
    ) {
        Thread.detachNewThread {
            let value = work()
            MainLoop.onMainActor { done(value) }
        }
    }

    /// The photo's row leaves the list; the viewer shows the photo that took its place.
    private func photoRemoved(_ target: PhotoTarget) {
        if processor.photos.contains(target.id) { removePhotos([target.id]) }
        listChanged()
    }

    /// Puts the photo last moved to the trash back where it was, and back in the list.
    private func undoTrash() {
        guard let last = photoActions.trashed.popLast() else { return }
        refreshPhotoActions()
        // Back in the list it left; a list opened since (a reload) finds the file itself, if it
        // shows its folder.
        let sameList = last.list == listGeneration
        if sameList {
            noteOwnChange(last.trashed.originalPath)
        } else {
            photoActions.ownChanges[last.trashed.originalPath] = nil
        }
        inBackground(
            {
                let result = PhotoFiles.restore(last.trashed)
                if case .failure = result, let item = DesktopServices.trashItem(originalPath: last.trashed.originalPath)
                {
                    return PhotoFiles.restore(last.trashed, from: item)
                }
                return result
            },
            then: { [weak self] result in
                guard let self else { return }
                switch result {
                case .success where last.list != listGeneration:
                    break
                case .success:
                    let id: PhotoID
                    let directory = (last.trashed.originalPath as NSString).deletingLastPathComponent
                    if let folder = shownFolder, folder.url.standardizedFileURL.path == directory {
                        id = insertPhoto(last.entry, in: folder)
                    } else {
                        id = processor.insert(last.entry, at: min(last.position, processor.photos.count))
                        var raw = guint64(id.rawValue)
                        if let position = processor.photos.position(of: id) {
                            cp_photo_list_model_splice(store.opaque, guint(position), 0, &raw, 1)
                        }
                    }
                    let position = processor.photos.position(of: id) ?? last.position
                    Trace.shared.emit(.fileRestored(row: position, id: id, name: last.entry.name))
                    listChanged()
                    // The photo put back is the one shown again.
                    if viewer.shownPhoto != nil { viewer.open(at: position) } else { selection.selected = position }
                case .failure(let failure):
                    showToast(
                        String(
                            format: tr("“%@” could not be put back: %@"), DisplayText.line(last.entry.name),
                            failure.localizedMessage))
                }
            })
    }

    /// Deletes the photo for good, once the user said so.
    private func deletePhoto() {
        guard let target = photoTarget(), let path = target.path else { return }
        confirm(
            heading: String(format: tr("Delete “%@” Permanently?"), DisplayText.line(target.name)),
            body: tr("The photo will be deleted for good: it cannot be brought back from the trash."),
            action: tr("_Delete"), destructive: true
        ) { [unowned self] in
            noteOwnChange(path)
            inBackground(
                { PhotoFiles.delete(path) },
                then: { [weak self] result in
                    guard let self else { return }
                    switch result {
                    case .success:
                        photoRemoved(target)
                        Trace.shared.emit(.fileDeleted(row: target.position, id: target.id, name: target.name))
                        showToast(String(format: tr("“%@” deleted"), DisplayText.line(target.name)))
                    case .failure(let failure):
                        showToast(
                            String(
                                format: tr("“%@” could not be deleted: %@"), DisplayText.line(target.name),
                                failure.localizedMessage))
                    }
                    refreshPhotoActions()
                })
        }
    }

    /// A question with Cancel and one action (libadwaita's message dialog); `body` runs if the
    /// action is chosen.
    private func confirm(
        heading: String, body: String, action: String, destructive: Bool, _ then: @escaping () -> Void
    ) {
        let made = adw_message_dialog_new(toplevel.window, heading, body)!
        let dialog = Widget<MessageDialog>(made: made)
        let pointer = dialog.pointer(as: AdwMessageDialog.self)
        adw_message_dialog_add_response(pointer, "cancel", tr("_Cancel"))
        adw_message_dialog_add_response(pointer, "go", action)
        adw_message_dialog_set_response_appearance(
            pointer, "go", destructive ? ADW_RESPONSE_DESTRUCTIVE : ADW_RESPONSE_SUGGESTED)
        adw_message_dialog_set_default_response(pointer, "cancel")
        adw_message_dialog_set_close_response(pointer, "cancel")
        dialog.setModal(true)
        let holder = ObjectRef(retaining: UnsafeMutableRawPointer(made).assumingMemoryBound(to: GObject.self))
        let response = dialog.onResponse { [unowned self] chosen in
            photoActions.open = nil
            if chosen == "go" { then() }
        }
        photoActions.open = (holder, [response])
        dialog.present()
    }

    // MARK: Rotate

    /// Turns the photo a quarter turn: a JPEG by its EXIF orientation, other formats (after a
    /// confirmation) by saving them again, turned. The row, the shared thumbnail and the viewer
    /// follow.
    private func rotatePhoto(clockwise: Bool) {
        guard let target = photoTarget(), let path = target.path else { return }
        inBackground(
            { PhotoFiles.turnKind(of: path) },
            then: { [weak self] kind in
                guard let self else { return }
                switch kind {
                case .unsupported:
                    showToast(String(format: tr("“%@” cannot be rotated"), DisplayText.line(target.name)))
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
                    processor.reload(target.id)
                    viewer.photoChanged(target.id)
                    let row = processor.photos.position(of: target.id) ?? target.position
                    Trace.shared.emit(.viewerRotate(row: row, id: target.id, degrees: clockwise ? 90 : -90))
                case .failure(let failure):
                    showToast(
                        String(
                            format: tr("“%@” could not be rotated: %@"), DisplayText.line(target.name),
                            failure.localizedMessage)
                    )
                }
            })
    }

    // MARK: The desktop

    private func setBackground() {
        guard let target = photoTarget(), let path = target.path else { return }
        inBackground(
            { DesktopServices.setBackground(path: path) },
            then: { [weak self] answer in
                switch answer {
                case .done: break // the portal asks the user itself
                case .missing:
                    self?.showToast(tr("No desktop portal to set the background"))
                case .failed(let message):
                    self?.showToast(String(format: tr("The background could not be set: %@"), message))
                }
            })
    }

    private func showInFiles() {
        guard let target = photoTarget(), let url = target.url, url.isFileURL else { return }
        let uri = url.absoluteString
        inBackground(
            { DesktopServices.showInFiles(uri: uri) },
            then: { [weak self] answer in
                switch answer {
                case .done: break
                case .missing:
                    self?.showToast(tr("No file manager to show the photo"))
                case .failed(let message):
                    self?.showToast(String(format: tr("The photo could not be shown in Files: %@"), message))
                }
            })
    }

    /// Puts the photo's location on the clipboard: its path for a file, its address for a
    /// photo on the web.
    private func copyLocation() {
        guard let target = photoTarget() else { return }
        let text = target.path ?? target.url?.absoluteString ?? target.entry.link
        gdk_clipboard_set_text(gtk_widget_get_clipboard(toplevel.widget), text)
        showToast(tr("Location copied"))
    }

    /// The desktop's app chooser for the photo's file; the app chosen opens it.
    private func openWith() {
        guard let target = photoTarget(), let path = target.path else { return }
        let file = ObjectRef(takingOpaque: g_file_new_for_path(path)!)
        let flags = GtkDialogFlags(rawValue: GTK_DIALOG_MODAL.rawValue | GTK_DIALOG_DESTROY_WITH_PARENT.rawValue)
        let made = gtk_app_chooser_dialog_new(toplevel.window, flags, file.opaque)!
        let holder = ObjectRef(retaining: UnsafeMutableRawPointer(made).assumingMemoryBound(to: GObject.self))
        let response = SignalConnection.connect(
            UnsafeMutableRawPointer(made), "response",
            int: { [unowned self] response in
                defer {
                    gtk_window_destroy(UnsafeMutableRawPointer(made).assumingMemoryBound(to: GtkWindow.self))
                    photoActions.open = nil
                }
                guard response == GTK_RESPONSE_OK.rawValue,
                    let app = gtk_app_chooser_get_app_info(OpaquePointer(made))
                else { return }
                defer { g_object_unref(UnsafeMutableRawPointer(app)) }
                let context = gdk_display_get_app_launch_context(gtk_widget_get_display(toplevel.widget))
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
                    showToast(String(format: tr("The photo could not be opened: %@"), message))
                }
            })
        photoActions.open = (holder, [response])
        gtk_window_present(UnsafeMutableRawPointer(made).assumingMemoryBound(to: GtkWindow.self))
    }

    // MARK: Print

    /// Prints the photo shown (sepia or original, as shown), fitted to the page.
    private func printPhoto() {
        guard let target = photoTarget(), let shown = viewer.shownPictureBytes else {
            if viewer.shownPhoto != nil { showToast(tr("The photo is not loaded yet")) }
            return
        }
        inBackground(
            { PhotoSaving.fullPicture(bytes: shown.bytes, sepia: shown.sepia) },
            then: { [weak self] picture in
                guard let self else { return }
                switch picture {
                case .success(let image): runPrint(image, name: target.name)
                case .failure(let failure):
                    showToast(String(format: tr("The photo could not be printed: %@"), failure.message))
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
                    showToast(String(format: tr("The photo could not be printed: %@"), message))
                }
                MainLoop.onMainActor { [weak self] in self?.photoActions.open = nil }
            })
        photoActions.open = (operation, [draw, done])
        var error: UnsafeMutablePointer<GError>?
        let result = gtk_print_operation_run(op, GTK_PRINT_OPERATION_ACTION_PRINT_DIALOG, toplevel.window, &error)
        if result == GTK_PRINT_OPERATION_RESULT_ERROR {
            let message = error.map { String(cString: $0.pointee.message) } ?? ""
            if let error { g_error_free(error) }
            showToast(String(format: tr("The photo could not be printed: %@"), message))
            photoActions.open = nil
        }
    }
}
