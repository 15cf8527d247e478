import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// What the details panel is to show of a photo: the list's record, and what was read of the
/// file (nil while it is read): a photo's facts, or a video's.
struct DetailsSubject {
    var id: PhotoID
    var name: String
    var entry: PhotoEntry
    var info: ImageInfo?
    /// The colour profile its colours were turned from, where the viewer decoded it.
    var profile: String?
    var marks: PhotoMarks
    /// What was read of a video's file.
    var video: VideoDetails? = nil
}

/// The details panel (`ui/photo-details.ui`): the photo's name; the date taken (with its
/// zone); camera, lens, exposure and focal length; pixel size, file size, format and colour
/// profile; its stars, label and tags; the folder (a button that shows it in Files) and the
/// path or address (copied with a click); the place (the nearest town, the coordinates, copied
/// with a click, and Open in Maps); author, copyright and description; the alt text, edited in
/// place (Enter, or leaving the entry, saves it: `AltTexts`). A fact is shown only
/// where the photo has it. Traced as `viewer.info` when it is opened or closed and when what it
/// shows changes while it is open, and as `viewer.details` with the facts' names.
@MainActor
final class PhotoDetailsPanel {
    let root: Widget<Box>
    private let ui = UIFile("photo-details")
    private var values: [Row: Widget<Label>] = [:]
    private var captions: [Row: Widget<Label>] = [:]
    private var connections: [SignalConnection] = []
    private let nameLabel: Widget<Label>
    private let nothing: Widget<Label>
    private let facts: Widget<Grid>
    private let showFolder: Widget<Button>
    private let folderLabel: Widget<Label>
    private let sourceBox: Widget<Box>
    private let placeBox: Widget<Box>
    private let altEntry: Widget<Entry>
    private let altCaption: Widget<Label>
    /// The photo whose alt text the entry shows, and the text as read (what an edit is
    /// compared with); nil: none shown yet (being read, or no photo).
    private var altShown: (id: PhotoID, entry: PhotoEntry, text: String)?
    /// Where alt text is read and saved.
    var altTexts: AltTexts? {
        didSet { altTexts?.observe { [weak self] id in if id == self?.subject?.id { self?.showAltText() } } }
    }
    /// Whether alt text goes into the photo itself (Write Marks into Photos).
    var writesIntoPhotos: () -> Bool = { false }
    /// The photo shown, and its facts as shown.
    private var subject: DetailsSubject?
    private var shown = ViewerInfoText(name: "", source: "")
    private var shownRows: [Row] = []
    /// When the panel was asked to show the photo shown (GLib's monotonic clock), for the trace.
    private var askedAt = g_get_monotonic_time()
    /// What was last traced while open; nil while closed.
    private var traced: (info: ViewerInfoText, id: PhotoID?, rows: [Row], sheet: Bool)?
    /// Where the photo shown was taken: its position, the coordinates as shown, and the
    /// nearest town once found.
    private var place: (latitude: Double, longitude: Double, coordinates: String, town: PlaceName?)?
    /// Asked to open a `geo:` address in the desktop's maps app.
    var onOpenMaps: ((String) -> Void)?
    /// Asked to show the photo shown in the file manager.
    var onShowInFiles: (() -> Void)?
    /// Told that a value was copied (for a toast).
    var onCopied: ((String) -> Void)?

    /// A fact of the panel: its value label's ID in `ui/photo-details.ui` (the caption's is
    /// the same with "-caption"), in the order shown.
    enum Row: String, CaseIterable {
        case date, length, camera, lens, exposure
        case focalLength = "focal-length"
        case size
        case fileSize = "file-size"
        case format, profile, marks, tags, folder
        case address = "source"
        case place, author, copyright
        case caption = "description"
    }

    init() {
        root = ui.widget("panel")
        nameLabel = ui.widget("name")
        nothing = ui.widget("nothing")
        facts = ui.widget("facts")
        showFolder = ui.widget("show-folder")
        folderLabel = ui.widget("folder")
        sourceBox = ui.widget("source-box")
        placeBox = ui.widget("place-box")
        altEntry = ui.widget("alt-text")
        altCaption = ui.widget("alt-text-caption")
        let leaving = Handle<FocusController>.make()
        altEntry.addController(leaving)
        for row in Row.allCases {
            values[row] = ui.widget(row.rawValue)
            captions[row] = ui.widget("\(row.rawValue)-caption")
        }
        connections += [
            ui.widget("open-maps", as: Button.self).connect("clicked") { [unowned self] in
                guard let place else { return }
                onOpenMaps?(Self.geoAddress(latitude: place.latitude, longitude: place.longitude))
            },
            showFolder.connect("clicked") { [unowned self] in onShowInFiles?() },
            ui.widget("copy-source", as: Button.self).connect("clicked") { [unowned self] in
                copy(shown.source, message: tr("Location copied"))
            },
            altEntry.connect("activate") { [unowned self] in saveAltText() },
            leaving.connect("leave") { [unowned self] in saveAltText() },
            ui.widget("copy-place", as: Button.self).connect("clicked") { [unowned self] in
                guard let place else { return }
                copy(Self.decimalCoordinates(place.latitude, place.longitude), message: tr("Coordinates copied"))
            },
        ]
        show(nil)
    }

    /// Lets go of its signal handlers (the window is closing).
    func close() {
        saveAltText()
        connections.removeAll()
        onOpenMaps = nil
        onShowInFiles = nil
        onCopied = nil
    }

    private func copy(_ text: String, message: String) {
        root.copyToClipboard(text: text)
        onCopied?(message)
    }

    // MARK: Open or closed

    /// Whether the panel is on screen (traced, and the town looked up only then).
    var isOpen = false {
        didSet {
            guard isOpen != oldValue else { return }
            if isOpen {
                traceChange()
                lookUpTown()
            } else {
                traced = nil
                Trace.shared.emit(.viewerInfo(shown: false, info: shown))
            }
        }
    }

    /// Whether it is under the photos (a narrow window) rather than beside them.
    var isSheet = false {
        didSet { if isSheet != oldValue { traceChange() } }
    }

    /// The photo whose facts are shown (nil: none).
    var shownID: PhotoID? { subject?.id }

    // MARK: Filling it in

    /// Fills the facts in for `subject` (nil: "No Photo Selected"); those without a value
    /// (none in the file, or not read yet) are hidden. `askedAt`: when the photo was asked for,
    /// if before now (GLib's monotonic clock; for the trace).
    func show(_ subject: DetailsSubject?, askedAt asked: Int? = nil) {
        let samePhoto = subject?.id == self.subject?.id
        if !samePhoto { askedAt = asked ?? g_get_monotonic_time() }
        var subject = subject
        if !samePhoto { saveAltText() } // an edit left unsaved goes with the photo it was for
        // What was read of the same file stays until it is read again (the viewer opening on
        // the photo selected; the list's selection once the viewer closed).
        if samePhoto, let old = self.subject, var new = subject, new.entry.link == old.entry.link {
            new.info = new.info ?? old.info
            new.profile = new.profile ?? old.profile
            subject = new
        }
        self.subject = subject
        nothing.isVisible = subject == nil
        nameLabel.isVisible = subject != nil
        facts.isVisible = subject != nil
        guard let subject else {
            place = nil
            shown = ViewerInfoText(name: "", source: "")
            shownRows = []
            traceChange()
            return
        }
        nameLabel.setText(subject.name)
        let url = try? subject.entry.resolvedURL()
        var text: [Row: String] = [:]
        text[.address] = url.map { $0.isFileURL ? $0.path : $0.absoluteString } ?? subject.entry.link
        if let url, url.isFileURL {
            let folder = url.deletingLastPathComponent()
            text[.folder] = folder.path == "/" ? "/" : folder.lastPathComponent
            showFolder.setTooltip(String(format: tr("Show the photo in %@ in Files"), folder.path))
        }
        if let info = subject.info { fill(&text, from: info) }
        if let video = subject.video { fill(&text, from: video) }
        text[.profile] = subject.profile
        text[.marks] = Self.marksText(subject.marks)
        text[.tags] = subject.marks.tags.isEmpty ? nil : MarksBadge.tagsText(subject.marks.tags)
        let position =
            subject.info?.details.flatMap { details in details.latitude.flatMap { ($0, details.longitude) } }
            ?? subject.video.flatMap { video in video.latitude.flatMap { ($0, video.longitude) } }
        if let (latitude, longitude) = position, let longitude, let coordinates = text[.place] {
            // The same photo shown again keeps the town found for it.
            let town = samePhoto && place?.latitude == latitude && place?.longitude == longitude ? place?.town : nil
            place = (latitude, longitude, coordinates, town)
            text[.place] = placeText()
        } else {
            place = nil
        }
        shownRows = Row.allCases.filter { text[$0] != nil }
        for row in Row.allCases {
            let value = text[row]
            values[row]!.setText(value ?? "")
            values[row]!.isVisible = value != nil
            captions[row]!.isVisible = value != nil
        }
        showFolder.isVisible = text[.folder] != nil
        sourceBox.isVisible = text[.address] != nil
        placeBox.isVisible = place != nil
        let info = subject.info
        shown = ViewerInfoText(
            name: subject.name, source: text[.address] ?? "", width: info?.width ?? 0, height: info?.height ?? 0,
            bytes: info?.fileSize ?? 0, format: text[.format] ?? "", camera: text[.camera], date: text[.date],
            profile: text[.profile], place: text[.place])
        showAltText()
        traceChange()
        if isOpen { lookUpTown() }
    }

    /// Shows the alt text of the photo shown, once read (the entry waits, insensitive, until
    /// then); an entry being edited for the same photo is left as it is. Only a file on this
    /// computer can keep one.
    private func showAltText() {
        guard let subject, let altTexts, AltTexts.path(of: subject.entry) != nil else {
            altShown = nil
            altEntry.isVisible = false
            altCaption.isVisible = false
            return
        }
        altEntry.isVisible = true
        altCaption.isVisible = true
        guard case .some(let read) = altTexts.text(of: subject.id, entry: subject.entry) else {
            if altShown?.id != subject.id {
                altShown = nil
                altEntry.text = ""
                altEntry.isSensitive = false
            }
            return
        }
        let text = read ?? ""
        if let altShown, altShown.id == subject.id, altEntry.text != altShown.text { return } // being edited
        altShown = (subject.id, subject.entry, text)
        altEntry.isSensitive = true
        if altEntry.text != text { altEntry.text = text }
    }

    /// Saves the entry's alt text for its photo, where it was edited.
    private func saveAltText() {
        guard let altShown, let altTexts else { return }
        let text = altEntry.text
        guard text != altShown.text else { return }
        self.altShown?.text = text
        altTexts.save(text, of: altShown.id, entry: altShown.entry, intoPhoto: writesIntoPhotos())
    }

    /// The rows `info` gives: the header's and the metadata's, each only where it says it.
    private func fill(_ text: inout [Row: String], from info: ImageInfo) {
        let megapixels = Double(info.width * info.height) / 1_000_000
        let pixels = String(
            format: tr("%1$@ × %2$@ pixels"), Localization.number(info.width), Localization.number(info.height))
        text[.size] =
            megapixels >= 0.1 ? String(format: tr("%1$@ (%2$@ MP)"), pixels, Localization.decimal(megapixels)) : pixels
        text[.fileSize] = Localization.size(info.fileSize)
        text[.format] = info.formatDescription
        text[.camera] = info.camera
        text[.date] = info.date.map { date in
            Self.localDate(date) + (info.details?.timeZone.map { " (UTC\($0))" } ?? "")
        }
        guard let details = info.details else { return }
        text[.lens] = details.lens
        let exposure = [
            details.exposure.map(Self.exposureTime),
            details.fNumber.map {
                "f/" + Localization.decimal($0, places: ($0 * 10).rounded() == ($0.rounded() * 10) ? 0 : 1)
            },
            // TRANSLATORS: a camera's sensitivity, as cameras show it ("ISO 200")
            details.iso.map { String(format: tr("ISO %@"), Localization.number($0)) },
            details.flashFired == true ? tr("flash fired") : nil,
        ].compactMap { $0 }
        text[.exposure] = exposure.isEmpty ? nil : exposure.joined(separator: " · ")
        text[.focalLength] = details.focalLength.map { length in
            // TRANSLATORS: a length in millimetres
            let mm = String(
                format: tr("%@ mm"), Localization.decimal(length, places: length.rounded() == length ? 0 : 1))
            guard let film = details.focalLength35, film != Int(length.rounded()) else { return mm }
            // TRANSLATORS: a lens's focal length, and what it comes to on 35 mm film ("4.2 mm (26 mm on 35 mm film)")
            return String(format: tr("%1$@ (%2$@ mm on 35 mm film)"), mm, Localization.number(film))
        }
        if let latitude = details.latitude, let longitude = details.longitude {
            text[.place] = Self.coordinates(latitude, longitude, altitude: details.altitude)
        }
        text[.author] = details.author
        text[.copyright] = details.copyright
        text[.caption] = details.caption
    }

    /// A position as the panel writes it ("48.85837° N, 2.29448° E · 35 m").
    private static func coordinates(_ latitude: Double, _ longitude: Double, altitude: Double?) -> String {
        let north = Localization.decimal(abs(latitude), places: 5),
            east = Localization.decimal(abs(longitude), places: 5)
        // TRANSLATORS: a latitude north or south of the equator, and a longitude east or west
        // of Greenwich ("48.85837° N", "2.29448° E")
        var place = [
            String(format: latitude < 0 ? tr("%@° S") : tr("%@° N"), north),
            String(format: longitude < 0 ? tr("%@° W") : tr("%@° E"), east),
        ].joined(separator: ", ")
        if let altitude {
            // TRANSLATORS: metres above sea level
            place += " · " + String(format: tr("%@ m"), Localization.decimal(altitude, places: 0))
        }
        return place
    }

    /// A video's: when it was recorded, its length, its picture's size, its file's size, its
    /// codec, and where it was recorded.
    private func fill(_ text: inout [Row: String], from video: VideoDetails) {
        let facts = video.facts
        if facts.width > 0, facts.height > 0 {
            text[.size] = String(
                format: tr("%1$@ × %2$@ pixels"), Localization.number(facts.width), Localization.number(facts.height))
        }
        text[.length] = facts.duration.map { VideoBadge.length(Int($0.rounded())) }
        text[.fileSize] = Localization.size(video.fileSize)
        // TRANSLATORS: a video's kind, with its codec ("Video (H.264)")
        text[.format] = facts.codec.isEmpty ? tr("Video") : String(format: tr("Video (%@)"), facts.codec)
        text[.date] = video.recorded.map(Self.localDate)
        if let latitude = video.latitude, let longitude = video.longitude {
            text[.place] = Self.coordinates(latitude, longitude, altitude: video.altitude)
        }
    }

    /// The stars drawn, or "Rejected", and the colour label's name; nil for neither.
    private static func marksText(_ marks: PhotoMarks) -> String? {
        let rating =
            marks.isRejected
            ? tr("Rejected")
            : marks.stars > 0
                ? String(repeating: "★", count: marks.stars)
                    + String(repeating: "☆", count: PhotoMarks.mostStars - marks.stars) : nil
        let label = marks.label.map { String(format: tr("%@ label"), MarksBadge.labelName($0)) }
        let parts = [rating, label].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// The date taken ("2021-07-04 18:30:05", as EXIF says it, in the photo's own time) the way
    /// the user's language writes dates; as it is where it does not read as one.
    private static func localDate(_ exif: String) -> String {
        // TRANSLATORS: how the date a photo was taken is written: a g_date_time_format() format
        // (%B is the month's name, %-d the day without a leading zero)
        DateTaken(exif)?.formatted(tr("%Y-%m-%d %H:%M:%S")) ?? exif
    }

    /// An exposure time as cameras show it: "1/250 s" below a second (rounded to a whole
    /// fraction), "2.5 s" from one.
    private static func exposureTime(_ exposure: PhotoDetails.Exposure) -> String {
        let seconds = exposure.seconds
        // TRANSLATORS: an exposure time in seconds ("1/250 s", "2.5 s")
        guard seconds < 1 else {
            return String(
                format: tr("%@ s"), Localization.decimal(seconds, places: seconds.rounded() == seconds ? 0 : 1))
        }
        let denominator = max(1, Int((1 / seconds).rounded()))
        return String(format: tr("%@ s"), "1/" + Localization.number(denominator))
    }

    // MARK: The place

    /// Has the town nearest the photo's position found (off the main thread, the first time a
    /// position is asked) while the panel is open, and shows it.
    private func lookUpTown() {
        guard let place, place.town == nil else { return }
        let (latitude, longitude) = (place.latitude, place.longitude)
        PlaceNames.nearestTown(latitude: latitude, longitude: longitude) { [weak self] town in
            guard let self, let town, self.place?.latitude == latitude, self.place?.longitude == longitude,
                self.place?.town == nil
            else { return }
            self.place?.town = town
            let text = placeText()
            values[.place]!.setText(text)
            shown.place = text
            traceChange()
        }
    }

    /// Traces what the panel shows, when it is open and that changed.
    private func traceChange() {
        guard isOpen else { return }
        if let traced, traced.info == shown, traced.id == subject?.id, traced.rows == shownRows,
            traced.sheet == isSheet
        {
            return
        }
        let changedFacts =
            traced == nil || traced?.id != subject?.id || traced?.rows != shownRows || traced?.sheet != isSheet
        traced = (shown, subject?.id, shownRows, isSheet)
        Trace.shared.emit(.viewerInfo(shown: true, info: shown))
        if changedFacts {
            let ms = Double(g_get_monotonic_time() - askedAt) / 1000
            Trace.shared.emit(
                .viewerDetails(id: subject?.id, fields: shownRows.map(\.rawValue), sheet: isSheet, ms: ms))
        }
    }

    /// The place row: the nearest town and its country where one is near ("Paris, France"),
    /// over the coordinates.
    private func placeText() -> String {
        guard let place else { return "" }
        guard let town = place.town else { return place.coordinates }
        let name =
            town.country.map {
                // TRANSLATORS: a town and its country, where a photo was taken ("Paris, France")
                $0 == town.town ? town.town : String(format: tr("%1$@, %2$@"), town.town, $0)
            }
            ?? town.town
        return name + "\n" + place.coordinates
    }

    /// A position as maps apps take it pasted ("48.858370, 2.294481").
    static func decimalCoordinates(_ latitude: Double, _ longitude: Double) -> String {
        String(format: "%.6f, %.6f", locale: Locale(identifier: "en_US_POSIX"), latitude, longitude)
    }

    /// The `geo:` address of a position (RFC 5870: latitude, longitude in decimal degrees).
    static func geoAddress(latitude: Double, longitude: Double) -> String {
        "geo:" + decimalCoordinates(latitude, longitude).replacingOccurrences(of: " ", with: "")
    }
}
