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

    /// Turns the photos a quarter turn: JPEGs by their EXIF orientation, HEICs and AVIFs by
    /// their container's turn, other formats (after one confirmation for all of them) by saving
    /// them again, turned. Rows, shared thumbnails and the viewer follow.
    func rotatePhotos(clockwise: Bool) {
        let targets = photoTargets()
        guard !targets.isEmpty else { return }
        inBackground(
            {
                targets.compactMap { target in
                    target.path.map { (FileTarget(target: target, path: $0), PhotoFiles.turnKind(of: $0)) }
                }
            },
            then: { [weak self] kinds in
                guard let self else { return }
                var lossless: [FileTarget] = []
                var reencoded: [(FileTarget, String)] = []
                var unsupported: [FileTarget] = []
                for (file, kind) in kinds {
                    switch kind {
                    case .unsupported: unsupported.append(file)
                    case .losslessJPEG, .losslessHEIF: lossless.append(file)
                    case .reencode(let format): reencoded.append((file, format))
                    }
                }
                if !lossless.isEmpty { turn(lossless, clockwise: clockwise) }
                if let (file, format) = reencoded.first {
                    confirm(
                        heading: tr("Rotate by Saving Again?"),
                        body: reencoded.count == 1
                            ? String(
                                format: tr(
                                    "“%@” is a %@ picture, which has no lossless way to be turned: it will be saved again, turned."
                                ), DisplayText.line(file.target.name), format.uppercased())
                            : String(
                                format: ntr(
                                    "%d picture has no lossless way to be turned: it will be saved again, turned.",
                                    "%d pictures have no lossless way to be turned: they will be saved again, turned.",
                                    reencoded.count), reencoded.count),
                        action: tr("_Rotate"), destructive: false
                    ) { [unowned self] in
                        turn(reencoded.map(\.0), clockwise: clockwise)
                    }
                }
                if let first = unsupported.first {
                    let raw = unsupported.count == 1 && RawPhoto.isRaw(URL(fileURLWithPath: first.path))
                    status.showToast(
                        raw
                            ? String(
                                // TRANSLATORS: a RAW file is never written; the editor (the E key)
                                // saves an edited JPEG copy of it
                                format: tr(
                                    "“%@” cannot be rotated: edit it (E) for a turned copy"
                                ), DisplayText.line(first.target.name))
                            : unsupported.count == 1
                                ? String(format: tr("“%@” cannot be rotated"), DisplayText.line(first.target.name))
                                : String(
                                    format: ntr(
                                        "%d photo cannot be rotated", "%d photos cannot be rotated", unsupported.count),
                                    unsupported.count))
                }
            })
    }

    /// Turns the photos `targets` a quarter turn, as a batch: their rows, shared thumbnails
    /// and the viewer's picture are made again once for each piece done.
    private func turn(_ files: [FileTarget], clockwise: Bool) {
        let paths = files.map(\.path)
        feed.ownChangesBegan(paths)
        runBatch(
            .rotate, files,
            text: { done, total in
                String(
                    format: ntr("Rotating %1$@ of %2$@ photo", "Rotating %1$@ of %2$@ photos", total),
                    Localization.number(done), Localization.number(total))
            },
            work: { file in PhotoFiles.turn(file.path, clockwise: clockwise) },
            piece: { [weak self] turned in
                guard let self else { return }
                // Whatever was made from the files (thumbnails, shared and cached, and the
                // viewer's picture) goes; the photos are loaded again.
                feed.rewritten(turned.map(\.item.target.id))
                for (file, _) in turned {
                    let target = file.target
                    let row = photos.position(of: target.id) ?? target.position
                    Trace.shared.emit(.viewerRotate(row: row, id: target.id, degrees: clockwise ? 90 : -90))
                }
            },
            finished: { [weak self] tally, _ in
                guard let self else { return }
                feed.ownChangesEnded(paths)
                guard let (file, failure) = tally.failed.first else { return }
                let count = tally.failed.count
                status.showToast(
                    count == 1
                        ? String(
                            format: tr("“%@” could not be rotated: %@"), DisplayText.line(file.target.name),
                            failure.localizedMessage)
                        : String(
                            format: ntr(
                                "%d photo could not be rotated: %@", "%d photos could not be rotated: %@", count),
                            count, failure.localizedMessage))
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
        let targets = photoTargets()
        guard !targets.isEmpty else { return }
        let text = targets.map { $0.path ?? $0.url?.absoluteString ?? $0.entry.link }.joined(separator: "\n")
        window.copyToClipboard(text: text)
        status.showToast(targets.count == 1 ? tr("Location copied") : tr("Locations copied"))
    }

    /// Puts the photos' files on the clipboard the way the file manager copies files: Files
    /// pastes copies of them, a mail program attaches them, a text field gets their paths. A
    /// Live Photo's clip goes with its still (looked for off the main thread).
    func copyFiles() {
        let targets = photoTargets().filter { $0.path != nil }
        guard !targets.isEmpty else { return }
        let paths = targets.compactMap(\.path)
        inBackground(
            { LivePhoto.withClips(paths) },
            then: { [weak self] files in
                guard let self else { return }
                window.copyToClipboard(files: Self.offered(files))
                status.showToast(
                    targets.count == 1
                        ? String(format: tr("“%@” copied"), DisplayText.line(targets[0].name))
                        : String(format: ntr("%d photo copied", "%d photos copied", targets.count), targets.count))
            })
    }

    /// The files at `paths` as other programs take them.
    static func offered(_ paths: [String]) -> OfferedFiles {
        OfferedFiles(uris: paths.map { URL(fileURLWithPath: $0).absoluteString }, text: paths.joined(separator: "\n"))
    }

    /// What a drag that began on `id` carries: every photo selected when it is one of them;
    /// otherwise it alone, selected. Photos on the web are not files, and are not dragged. A
    /// Live Photo's clip goes with its still where its row knows of it (the drag is made at
    /// once, on the main thread, which looks for no file).
    func dragOffer(for id: PhotoID) -> OfferedFiles? {
        guard let position = photos.position(of: id) else { return nil }
        if !pane.selection.contains(position) { pane.select(position) }
        let paths = photoTargets().flatMap { target -> [String] in
            guard let path = target.path else { return [] }
            let clip = processor.snapshot(of: target.id)?.image?.motion?.clipPath(besidePhotoAt: path)
            return [path] + (clip.map { [$0] } ?? [])
        }
        return paths.isEmpty ? nil : Self.offered(paths)
    }

    /// The desktop's app chooser for the photo's file; the app chosen opens it.
    func openWith() {
        let paths = photoTargets().compactMap(\.path)
        guard !paths.isEmpty else { return }
        let files = paths.map { ObjectRef(takingOpaque: g_file_new_for_path($0)!) }
        // The apps offered are those for the first file's type; the one chosen gets them all.
        let file = files[0]
        let chooser = Widget<AppChooserDialog>.make(for: file, parent: window)
        let holder = chooser.retained()
        let response = chooser.onResponse { [unowned self] chosen in
            defer {
                chooser.destroy()
                open = nil
            }
            guard chosen else { return }
            do throws(GLibError) {
                try chooser.launchChosenApp(with: files)
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
