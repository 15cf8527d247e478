import CGLib
import CGtk
import GLibKit
import GtkKit
import PhotoPipeline

/// The photos selected, in the list and in the grid alike: any number of them (click,
/// Ctrl+click, Shift+click, a rubber band, Ctrl+A, Shift+Ctrl+A), over the list's model.
///
/// GTK keeps a selection by position; this keeps it by identity: photos that move (a sort, a
/// rename) stay selected where they go, photos taken out leave it, and photos coming in are
/// not selected.
@MainActor
final class PhotoSelection {
    let model: Handle<MultiSelection>
    /// Keeps the model alive (the views hold references of their own while they show it).
    private let owner: ObjectRef<GObject>
    private let photos: PhotoList
    private var connections: [SignalConnection] = []
    private var observation = 0
    /// The photos selected before an edit of the list, to select again after it.
    private var held: [PhotoID] = []
    private var tracedCount = 0
    /// The selection changed (by the user, or by following its photos).
    var onChanged: (() -> Void)?

    init(photos: PhotoList) {
        self.photos = photos
        model = .make(over: photos.model)
        owner = ObjectRef(takingOpaque: model.opaque)
        connections.append(
            SignalConnection.connect(
                model.raw, "selection-changed", ints: { [unowned self] _, _ in selectionChanged() }))
        observation = photos.observe(
            willApply: { [unowned self] _ in held = model.count > 0 ? ids : [] },
            didApply: { [unowned self] _ in follow() })
    }

    /// The positions selected, in order.
    var positions: [Int] { model.positions }
    /// The photos selected, in the list's order.
    var ids: [PhotoID] { positions.compactMap { $0 < photos.count ? photos.id(at: $0) : nil } }
    var count: Int { model.count }
    /// The first photo selected, by position.
    var first: Int? { positions.first }

    func contains(_ position: Int) -> Bool { model.isSelected(position) }

    /// Selects the photo at `position` alone.
    func selectOnly(_ position: Int) {
        guard position < photos.count else { return }
        model.selectOnly(position)
    }

    /// Selects exactly the photos `ids` (those still in the list).
    func select(_ ids: [PhotoID]) {
        let positions = ids.compactMap { photos.position(of: $0) }.sorted()
        if positions != self.positions { model.setSelected(positions) }
    }

    /// After an edit: the photos selected before, wherever they are now.
    private func follow() {
        guard !held.isEmpty else { return }
        let ids = held
        held = []
        select(ids)
        // GTK says nothing of photos that left the selection by leaving the list.
        selectionChanged()
    }

    private func selectionChanged() {
        let count = model.count
        if count != tracedCount {
            tracedCount = count
            Trace.shared.emit(.selectionChanged(count: count))
        }
        onChanged?()
    }

    /// Lets go of its handlers (the window is closing).
    func close() {
        photos.stopObserving(observation)
        connections.removeAll()
        onChanged = nil
    }
}
