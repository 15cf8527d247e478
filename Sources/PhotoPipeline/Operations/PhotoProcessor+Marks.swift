import Foundation

/// The photos' marks (stars, reject, label, tags): read for each photo bound to a row or shown
/// in the viewer, set when a person marks photos, and pushed to whatever shows them with the
/// rest of the photo's snapshot.
extension PhotoProcessor {
    /// Has the marks of the photo `id` read, if they are not known yet.
    public func wantMarks(of id: PhotoID) {
        guard photos.existingRecord(for: id)?.marks == nil, let position = photos.position(of: id) else { return }
        marksReader.want(id, entry: photos.entry(at: position))
    }

    /// The photos were given these marks (shown at once, while their files are written).
    public func setMarks(_ marks: [(PhotoID, PhotoMarks)]) {
        for (id, new) in marks {
            guard let record = photos.makeRecord(for: id), record.marks != new else { continue }
            record.marks = new
            changed(record)
        }
    }

    /// What is known of the photos' marks now (nil for those not read yet).
    public func knownMarks(of ids: [PhotoID]) -> [PhotoMarks?] {
        ids.map { photos.existingRecord(for: $0)?.marks }
    }

    /// Marks read off the main thread: those of photos still in the list, and not set since
    /// (a mark given while they were read is newer), are taken.
    func marksRead(_ read: [(PhotoID, PhotoMarks)]) {
        for (id, marks) in read {
            guard let record = photos.makeRecord(for: id), record.marks == nil else { continue }
            record.marks = marks
            changed(record)
        }
    }

    /// The marks of the photo `id` are to be read again (its sidecar changed on disk).
    public func marksChanged(_ id: PhotoID) {
        guard let record = photos.existingRecord(for: id), let position = photos.position(of: id) else { return }
        record.marks = nil
        marksReader.want(id, entry: photos.entry(at: position), afresh: true)
    }
}
