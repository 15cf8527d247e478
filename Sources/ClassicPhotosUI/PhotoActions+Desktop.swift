import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
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
        window.copyToClipboard(text: text)
        status.showToast(tr("Location copied"))
    }

    /// The desktop's app chooser for the photo's file; the app chosen opens it.
    func openWith() {
        guard let target = photoTarget(), let path = target.path else { return }
        let file = ObjectRef(takingOpaque: g_file_new_for_path(path)!)
        let chooser = Widget<AppChooserDialog>.make(for: file, parent: window)
        let holder = chooser.retained()
        let response = chooser.onResponse { [unowned self] chosen in
            defer {
                chooser.destroy()
                open = nil
            }
            guard chosen else { return }
            do throws(GLibError) {
                try chooser.launchChosenApp(with: file)
            } catch {
                status.showToast(String(format: tr("The photo could not be opened: %@"), error.message))
            }
        }
        open = (holder, [response])
        chooser.present()
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
        // A landscape photo on a landscape page.
        let owner = Handle<PrintOperation>.make(
            jobName: name,
            orientation: image.width > image.height ? GTK_PAGE_ORIENTATION_LANDSCAPE : GTK_PAGE_ORIENTATION_PORTRAIT)
        let operation = Handle<PrintOperation>(owner)
        let draw = operation.onDrawPage { page in
            let (width, height) = (page.width, page.height)
            let scale = min(width / Double(image.width), height / Double(image.height))
            page.draw(
                image.pixbuf, scale: scale, x: (width - Double(image.width) * scale) / 2,
                y: (height - Double(image.height) * scale) / 2)
        }
        let done = operation.onDone { [unowned self] failure in
            if let failure {
                status.showToast(String(format: tr("The photo could not be printed: %@"), failure.message))
            }
            MainLoop.onMainActor { [weak self] in self?.open = nil }
        }
        open = (owner, [draw, done])
        do {
            try operation.run(parent: window)
        } catch {
            status.showToast(String(format: tr("The photo could not be printed: %@"), error.message))
            open = nil
        }
    }
}
