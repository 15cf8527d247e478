import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// What the viewer's picture shows: the photo shown, sepia or original, its animation, and a
/// larger decode when zooming in asks for one; and that picture copied or saved.
extension PhotoViewer {
    // MARK: Showing the photo

    /// Shows what `slot` has: the picture (sepia or original), the failure, the photo's own
    /// preview while it is decoded, or the spinner.
    func refresh(_ slot: Slot) {
        let failed = slot.picture == nil && slot.failure != nil
        let reason = slot.failure.map {
            $0.summary == $0.detail ? $0.localizedSummary : $0.localizedSummary + "\n" + $0.detail
        }
        chrome.showLive(slot.motionClip != nil)
        if slot.photo.entry.isVideo { return refreshVideo(slot, failure: reason) }
        chrome.showProgress(
            loading: slot.picture == nil && slot.preview == nil && !failed, failure: failed ? reason : nil)
        shownProfile = slot.picture.flatMap { ColorProfile.name(of: $0.original) }
        showDetails(of: slot)
        if failed, let reason {
            if shownState != .failed, let position = paging.position {
                Trace.shared.emit(.viewerStatus(row: position, id: slot.photo.id, text: reason))
            }
            setShown(nil, state: .failed)
            return
        }
        guard let picture = slot.picture else {
            if let preview = slot.preview {
                // Enlarged into the photo's frame, sepia or not as the photo will be.
                zooming.setImageSize(width: preview.info.width, height: preview.info.height)
                setShown(showsSepia ? preview.sepia : preview.original, state: .preview)
            }
            return
        }
        zooming.setImageSize(width: picture.info.width, height: picture.info.height)
        if showsSepia, let sepia = slot.sepia {
            setShown(sepia, state: .filtered, animation: slot.sepiaAnimation)
        } else if showsSepia, shownImage != nil, shownState == .filtered {
            // A larger decode is being filtered: the smaller sepia picture stays until then.
        } else {
            setShown(picture.original, state: .original, animation: picture.animation)
        }
    }

    /// A video shown plays in its own widget: only a failure to play it is shown here.
    private func refreshVideo(_ slot: Slot, failure: String?) {
        chrome.showProgress(loading: false, failure: failure)
        showDetails(of: slot)
        if let failure, shownState != .failed, let position = paging.position {
            Trace.shared.emit(.viewerStatus(row: position, id: slot.photo.id, text: failure))
        }
        setShown(nil, state: failure == nil ? nil : .failed)
    }

    /// Tells the details panel what is known of `slot`'s photo (the shown one).
    func showDetails(of slot: Slot) {
        let isVideo = slot.photo.entry.isVideo
        let info = isVideo ? nil : slot.picture?.info ?? slot.preview?.info ?? slot.facts
        let altText = host.altTexts.text(of: slot.photo.id, entry: slot.photo.entry) ?? nil
        chrome.describe(TileSpeech.words(for: info, altText: altText))
        host.viewerShows(
            DetailsSubject(
                id: slot.photo.id, name: slot.photo.name, entry: slot.photo.entry,
                info: info,
                profile: isVideo || slot.picture == nil ? nil : shownProfile ?? tr("sRGB (assumed)"),
                marks: processor.snapshot(of: slot.photo.id)?.marks ?? .none))
    }

    /// Puts `image` in the picture (an animation's first frame, with the animation), tracing
    /// `viewer.image` when what is shown changed.
    func setShown(_ image: PhotoImage?, state: ViewerImageState?, animation: ViewerAnimation? = nil) {
        guard image !== shownImage || state != shownState else { return }
        if image !== shownImage {
            shownImage = image
            if let animation {
                player.play(animation)
            } else {
                player.stop()
                showTexture(of: image)
            }
        }
        shownState = state
        if let state, let position = paging.position, let id = paging.shown {
            Trace.shared.emit(
                .viewerImage(
                    row: position, id: id, w: image?.width ?? 0, h: image?.height ?? 0, state: state,
                    frames: player.frameCount, profile: shownProfile))
            if state == .filtered || state == .original, let awaiting = awaitingSharp, awaiting.id == id {
                awaitingSharp = nil
                Trace.shared.emit(.viewerSharp(id: id, ms: (Trace.shared.now - awaiting.since) * 1000))
            }
        }
    }

    /// Shows `image` in the display's colours. A large picture (zoomed in past the window's
    /// size) is turned on other threads, the one shown staying until it is ready; a window's
    /// worth is turned here, in a few milliseconds.
    func showTexture(of image: PhotoImage?) {
        shownFrame = image
        let colours = DisplayColours.shared
        // (An animation's frames, a picture each, are turned as they are shown.)
        guard let image, let transform = colours.transform, image.width * image.height > 2 << 20,
            player.frameCount <= 1
        else {
            shownTexture = image.map { colours.texture(for: $0) }
            zooming.setPaintable(shownTexture)
            return
        }
        let generation = colours.generation
        DispatchQueue.global(qos: .userInitiated).async {
            let turned = transform.apply(to: image)
            MainLoop.onMainActor { [weak self] in
                // Still the picture to show, in the colours it was turned into.
                guard let self, shownImage === image, DisplayColours.shared.generation == generation else { return }
                shownTexture = withExtendedLifetime(turned) { Handle<Texture>.make(from: turned.pixbuf) }
                zooming.setPaintable(shownTexture)
            }
        }
    }

    /// The display's colours changed: the picture shown is made again in them.
    func displayColoursChanged() {
        guard isOpen, player.frameCount <= 1 else { return }
        showTexture(of: shownImage)
    }

    func setSepia(_ sepia: Bool) {
        guard sepia != showsSepia else { return }
        showsSepia = sepia
        if let slot = current { refresh(slot) }
    }

    // MARK: Zoom

    func zoomChanged() {
        guard isOpen, current?.picture != nil || current?.preview != nil else { return }
        let zoom = zooming.zoom
        Trace.shared.emit(.viewerZoom(level: zoom))
        chrome.showZoom(zoom)
        // Decoding again waits until zooming pauses (a pinch changes the zoom every frame).
        redecoding.schedule(afterMilliseconds: 150)
    }

    /// Zoomed in past the decoded resolution: decodes again, larger, from the bytes the viewer
    /// already has (`ViewerLimits.largerDecodeSide`).
    func considerRedecode() {
        redecoding.cancel()
        // Zoomed while the preview shows: once the photo is decoded, it is looked at again.
        if let slot = current, slot.picture == nil, slot.preview != nil {
            slot.wantsLargerDecode = true
            return
        }
        // An animation is decoded once, at the size shown; zooming in enlarges its frames.
        guard let slot = current, let picture = slot.picture, picture.animation == nil,
            let side = ViewerLimits.largerDecodeSide(
                width: picture.info.width, height: picture.info.height,
                decoded: max(picture.original.width, picture.original.height),
                zoom: zooming.zoom)
        else { return }
        if let request = slot.request, request.isBusy {
            slot.wantsLargerDecode = true
            return
        }
        slot.wantsLargerDecode = false
        slot.nextLoad = (side, ViewerBytes(bytes: picture.bytes, info: picture.info))
        apply(paging.reload())
    }

    // MARK: Copy and Save As…

    /// Puts the photo shown on the clipboard as a texture (an animation's frame shown), in sRGB
    /// as programs pass pictures, not in the display's colours it may be shown in.
    func copy() {
        // Not a preview: the photo itself, once decoded.
        guard let frame = shownFrame, shownState == .filtered || shownState == .original else { return }
        export.copy(withExtendedLifetime(frame) { Handle<Texture>.make(from: frame.pixbuf) }, from: root)
    }

    /// Asks where to save the photo shown, then saves it at full size in the version shown.
    func saveAs() {
        guard let slot = current, let picture = slot.picture, shownImage != nil, let state = shownState,
            state != .failed
        else { return }
        export.saveAs(name: slot.photo.name, bytes: picture.bytes, sepia: state == .filtered)
    }
}
