import GLibKit
import GtkKit
import PhotoPipeline

// What the rows and cells say to a screen reader (see `TileSpeech`): set as each is shown, said
// again when the list's rows move or its count changes (their place in it), and when a photo's
// date comes from the index.
extension PhotoListPane {
    /// Puts what a screen reader says of `snapshot` on `tile`'s list item.
    func speak(_ snapshot: PhotoSnapshot, in tile: any PhotoTile) {
        let speech: TileSpeech
        if snapshot.entry.isFolder {
            speech = .folder(name: snapshot.displayName, summary: folderCounts.summary(of: snapshot.entry))
        } else {
            let first = photos.firstPhoto
            let number = photos.position(of: snapshot.id).map { $0 - first + 1 }
            speech = .photo(
                snapshot, number: number, of: photos.count - first,
                taken: takenDate?(snapshot.id, snapshot.entry, false))
        }
        tile.voice.say(speech, from: tile.root)
    }

    /// Says again what the row or cell of `id` says (its date has come).
    func refreshSpeech(of id: PhotoID) {
        guard let tile = boundTiles[id], let position = photos.position(of: id) else { return }
        speak(processor.snapshot(at: position), in: tile)
    }

    /// Says again what every bound row and cell says.
    func refreshSpeech() {
        for (id, tile) in boundTiles {
            guard let position = photos.position(of: id) else { continue }
            speak(processor.snapshot(at: position), in: tile)
        }
    }

    /// Asks for the dates of the photos on screen that are not known yet (read off the main
    /// thread; each is said once it has come). Only those on screen: a list binds about 200 rows.
    func askDates(in visible: Range<Int>) {
        guard let takenDate else { return }
        for position in visible.clamped(to: 0..<photos.count) {
            let entry = photos.entry(at: position)
            if !entry.isFolder { _ = takenDate(photos.id(at: position), entry, true) }
        }
    }
}
