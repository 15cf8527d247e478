import Foundation
import GLibKit
import PhotoPipeline

/// How fast the viewer pages: moves closer together than `fastSeconds` (a held arrow key
/// repeats every 33–66 ms) are paging fast, and paging counts as paused when the next move is
/// half an interval late, or when a key that repeated is let go.
@MainActor
final class PagingPace {
    /// Moves closer together than this are paging fast.
    static let fastSeconds = 0.2
    private var lastMove = -1.0
    private(set) var isFast = false
    /// Key presses since a key was last let go: more than one, the key was held.
    private var pressesSinceRelease = 0
    private lazy var pause = Debounce.onMainActor { [weak self] in self?.paused() }
    /// Called once paging pauses after moving fast.
    var onPause: (() -> Void)?

    /// A move to another photo; whether it is paging fast.
    func moved() -> Bool {
        let now = Trace.shared.now
        let interval = now - lastMove
        isFast = lastMove >= 0 && interval < Self.fastSeconds
        lastMove = now
        if isFast { pause.schedule(afterMilliseconds: UInt32(min(150, max(50, interval * 1500)))) }
        return isFast
    }

    func pressed() { pressesSinceRelease += 1 }

    /// A key let go: whether that ends fast paging now (a key that repeated; taps, a press and
    /// a release each, wait for the pause instead).
    func released() -> Bool {
        defer { pressesSinceRelease = 0 }
        guard pause.isPending, pressesSinceRelease > 1 else { return false }
        pause.cancel()
        isFast = false
        return true
    }

    private func paused() {
        isFast = false
        onPause?()
    }

    func reset() {
        pause.cancel()
        isFast = false
        lastMove = -1
        pressesSinceRelease = 0
    }
}

/// The viewer's loads: each photo held is loaded at the viewer's size (or larger, zoomed in);
/// paging fast holds back the decodes that have not started, and the photo shown is decoded
/// alone once paging pauses.
extension PhotoViewer {
    /// A move to another photo: paging fast, every decode that has not started is held back
    /// (the photos passed show their previews) until the moves pause.
    func noteMove() {
        guard pace.moved() else { return }
        for slot in slots.values { slot.request?.holdDecode() }
    }

    /// Paging paused: the photo shown is decoded, alone, so that it has the machine to itself;
    /// its neighbours' decodes held back start once it is done.
    func pagingPausedNow() {
        guard let request = current?.request, request.isDecodeHeld else { return decodeHeld() }
        request.decode()
    }

    /// After a move that is not fast: the photo shown is decoded, if its decode was held back
    /// (a neighbour loaded while paging fast, moved to a while later).
    func decodeShownUnlessFast() {
        if !pace.isFast { current?.request?.decode() }
    }

    /// Lets every decode held back start.
    private func decodeHeld() {
        for slot in slots.values { slot.request?.decode() }
    }

    /// Loads `slot`'s photo at the viewer's size, or as `slot.nextLoad` says.
    func start(_ slot: Slot, urgent: Bool) {
        slot.request?.cancel()
        // A video is played as it is shown, not loaded ahead.
        if slot.photo.entry.isVideo { return paging.loadEnded(slot.photo.id) }
        let next = slot.nextLoad
        slot.nextLoad = nil
        let id = slot.photo.id
        slot.request = pipeline.load(
            id, wantedSide: next?.side ?? viewerSide(), known: next?.known, urgent: urgent,
            holdingDecode: pace.isFast && next == nil
        ) { [weak self, weak slot] event in
            guard let self, let slot else { return }
            var ended = false
            switch event {
            case .preview(let preview):
                guard slot.picture == nil else { return }
                slot.preview = preview
            case .motionClip(let clip):
                slot.motionClip = clip
                playMotionClip(of: slot)
            case .facts(let info):
                // The details panel tells of the photo before it is decoded.
                slot.facts = info
                if slot === current { showDetails(of: slot) }
                return
            case .decoded(let picture):
                slot.picture = picture
                slot.preview = nil
                slot.failure = nil
            case .filtered(let sepia):
                slot.sepia = sepia.image
                slot.sepiaAnimation = sepia.animation
                paging.loadEnded(id)
                ended = true
                if slot.wantsLargerDecode { MainLoop.onMainActor { [weak self] in self?.considerRedecode() } }
            case .failed(let failure):
                if slot.picture == nil { slot.failure = failure }
                paging.loadEnded(id)
                ended = true
            }
            // A load done, paging not fast: the decodes held back may start.
            if ended, !pace.isFast { decodeHeld() }
            if slot === current { refresh(slot) }
        }
        if slot.request == nil {
            // The photo left the list between the decision and now: nothing to load.
            paging.loadEnded(id)
        }
    }

    func retryCurrent() {
        guard let slot = current else { return }
        slot.failure = nil
        slot.picture = nil
        slot.preview = nil
        slot.sepia = nil
        slot.sepiaAnimation = nil
        apply(paging.reload())
        refresh(slot)
    }

    /// The longest side of the viewer's area in device pixels: what a fitted photo needs at most.
    private func viewerSide() -> Int {
        let window = host.window
        var side = root.parent.map { Int(max($0.width, $0.height)) } ?? Int(max(window.width, window.height))
        if side <= 0 {
            side = Int(max(window.width, window.height))
        }
        return max(1, side) * Int(max(1, root.scaleFactor))
    }
}
