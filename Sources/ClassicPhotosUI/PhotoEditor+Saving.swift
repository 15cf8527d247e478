import CGLib
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// Saving what was done in the editor, off the main thread.
extension PhotoEditor {
    /// Saves as `mode` says, off the main thread; the editor closes once saved, and a toast
    /// says where.
    func save(_ mode: EditSaving.Mode) {
        guard let subject, !saving else { return }
        guard isChanged else {
            host.showToast(tr("Nothing to save: the photo is as it was"), button: nil)
            return
        }
        saving = true
        lastMode = mode
        for button in buttons { button.isSensitive = false }
        let edit = edit, began = Trace.shared.now, session = session
        let edited = tr("edited")
        Thread.detachNewThread {
            let result = EditSaving.save(subject.path, edit: edit, mode: mode, edited: edited)
            MainLoop.onMainActor { [weak self] in
                self?.saved(result, subject: subject, since: began, session: session)
            }
        }
    }

    /// A save finished: said in a toast, and the editor closes, if it is still the session
    /// that saved.
    private func saved(
        _ result: Result<EditSaving.Saved, PhotoFileFailure>, subject: Subject, since: Double, session: Int
    ) {
        saving = false
        for button in buttons { button.isSensitive = true }
        defer { show() }
        switch result {
        case .failure(let failure):
            Trace.shared.emit(.editFailed(id: subject.id, error: failure.message))
            host.showToast(String(format: tr("Could not save: %@"), failure.localizedMessage), button: nil)
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
}
