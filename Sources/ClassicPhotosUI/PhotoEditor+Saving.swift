import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// Saving what was done in the editor, off the main thread.
extension PhotoEditor {
    /// Saves as `mode` says (or to `destination`, chosen in Save As), off the main thread; the
    /// editor closes once saved, and a toast says where.
    func save(_ mode: EditSaving.Mode, to destination: String? = nil) {
        guard let subject, !saving else { return }
        guard isChanged else {
            host.showToast(tr("Nothing to save: the photo is as it was"), button: nil)
            return
        }
        // A RAW file is kept as it is (Shift+Ctrl+S, or Ctrl+S after a JPEG was saved in place).
        let mode = subject.raw && destination == nil ? .copy : mode
        saving = true
        lastMode = mode
        for button in buttons { button.isSensitive = false }
        // Said once it takes a moment (a large photo straightened: a second or so), not
        // flashed for the quick ones.
        savingSlow.schedule(afterMilliseconds: 250)
        let edit = edit, began = Trace.shared.now, session = session
        let edited = tr("edited")
        Thread.detachNewThread {
            let result = EditSaving.save(subject.path, edit: edit, mode: mode, edited: edited, destination: destination)
            MainLoop.onMainActor { [weak self] in
                self?.saved(result, subject: subject, since: began, session: session, elsewhere: destination != nil)
            }
        }
    }

    /// A save finished: said in a toast, and the editor closes, if it is still the session
    /// that saved.
    private func saved(
        _ result: Result<EditSaving.Saved, PhotoFileFailure>, subject: Subject, since: Double, session: Int,
        elsewhere: Bool
    ) {
        saving = false
        for button in buttons { button.isSensitive = true }
        savingSlow.cancel()
        showSaving(false)
        defer { show() }
        switch result {
        case .failure(let failure):
            Trace.shared.emit(.editFailed(id: subject.id, error: failure.message))
            if failure.folderUnwritable, !elsewhere, session == self.session, self.subject != nil {
                offerSaveAs(failure)
            } else {
                host.showToast(String(format: tr("Could not save: %@"), failure.localizedMessage), button: nil)
            }
        case .success(let saved):
            Trace.shared.emit(
                .editSaved(
                    id: subject.id, path: saved.path, lossless: saved.lossless, w: saved.outcome.kept.width,
                    h: saved.outcome.kept.height, ms: (Trace.shared.now - since) * 1000))
            let name = (saved.path as NSString).lastPathComponent
            var message =
                saved.trashed != nil
                ? String(format: tr("Saved “%@”; the original is in the trash"), name)
                : String(format: tr("Saved as “%@”"), name)
            let moved = saved.outcome.cornerMoved + saved.outcome.edgeDropped
            if moved > 0 {
                // TRANSLATORS: after a JPEG was cropped without encoding it again; %@ is a number
                message +=
                    " " + String(format: tr("(the crop moved %@ px to the JPEG's blocks)"), Localization.number(moved))
            }
            host.photoEdited(saved, message: message)
            if session == self.session { close() }
        }
    }

    /// Shows "Saving…" with its spinner going, or hides it.
    func showSaving(_ shown: Bool) {
        savingShown.isVisible = shown
        savingSpinner.isSpinning = shown
        if shown, let subject { Trace.shared.emit(.editSaving(id: subject.id)) }
    }

    /// The photo's folder cannot be written (a card locked, a share read-only, no permission):
    /// says so, and offers to save the edited photo in another folder.
    private func offerSaveAs(_ failure: PhotoFileFailure) {
        question = Question.ask(
            parent: host.window, heading: tr("Cannot Save Beside the Photo"),
            body: String(
                format: tr("Its folder cannot be written (%@). The edited photo can be saved in another folder."),
                failure.localizedMessage),
            back: tr("_Cancel"), action: tr("_Save As…"), destructive: false, actionIsDefault: true
        ) { [unowned self] chosen in
            question = nil
            if chosen { chooseDestination() } else { canvas.grabFocus() }
        }
    }

    /// Save As: asks where (in the Pictures folder, under the copy's name), then saves there.
    func chooseDestination() {
        guard let subject, !saving, chooser == nil else { return }
        let object = Handle<FileChooserNative>.make(
            title: tr("Save Edited Photo As"), parent: host.window, action: GTK_FILE_CHOOSER_ACTION_SAVE,
            accept: tr("_Save"), cancel: tr("_Cancel"))
        let dialog = Handle<FileChooserNative>(object)
        dialog.setModal(true)
        let home = FileManager.default.homeDirectoryForCurrentUser.path
        if let pictures = g_get_user_special_dir(G_USER_DIRECTORY_PICTURES).map({ String(cString: $0) }),
            pictures != home, FileManager.default.fileExists(atPath: pictures)
        {
            dialog.setCurrentFolder(pictures)
        } else {
            dialog.setCurrentFolder(home)
        }
        dialog.setCurrentName(
            (EditSaving.copyName(for: subject.path, edited: tr("edited")) as NSString).lastPathComponent)
        let session = session
        let response = dialog.connect(
            "response",
            int: { [unowned self] response in
                let path = response == GTK_RESPONSE_ACCEPT.rawValue ? dialog.chosenPath : nil
                chooser = nil
                // Only into the editing session that asked (the editor may have closed meanwhile).
                guard session == self.session, self.subject != nil else { return }
                guard let path else { return canvas.grabFocus() }
                save(lastMode, to: path)
            })
        chooser = (object, response)
        dialog.show()
    }
}
