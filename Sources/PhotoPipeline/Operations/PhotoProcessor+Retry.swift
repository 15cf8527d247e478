import Foundation

/// Failed photos tried again: one (its Retry button), or all of them (Retry All).
extension PhotoProcessor {
    /// Tries a failed photo again (its Retry button): loaded at once if it is wanted on screen.
    public func retry(_ id: PhotoID) {
        guard let record = photos.existingRecord(for: id), record.state == .failed, record.reset() else { return }
        memory.remove(id)
        Trace.shared.emit(.rowState(row: record.position, id: id, state: .new))
        changed(record)
        if let position = list.position(of: id) { apply(scheduler.rowBound(position, layout: list)) }
        activityChanged()
    }

    /// Tries every failed photo again where that may help (see `PhotoFailure.retryHelps`);
    /// those on screen load at once, the others when shown.
    public func retryFailed() {
        for record in photos.existingRecords
        where record.state == .failed && record.failure?.retryHelps ?? true && record.reset() {
            Trace.shared.emit(.rowState(row: record.position, id: record.id, state: .new))
            changed(record)
        }
        apply(scheduler.visibleRowsChanged(scheduler.visible, layout: list))
        activityChanged()
    }

    /// How many photos shown so far failed.
    public var failedCount: Int { photos.existingRecords.count { $0.state == .failed } }
}
