import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The viewer's info popover (`ui/photo-info.ui`): name, source address, pixel size, file size,
/// format; the camera, lens, exposure, focal length, date taken (with its zone), place (the
/// nearest town, the coordinates, and Open in Maps), author, copyright and description where
/// the photo's metadata has them (`PhotoDetails`); and the colour profile its colours were
/// turned into sRGB from ("sRGB (assumed)" where it has none). Traced as
/// `viewer.info` when it opens or closes, and when what it shows changes while it is open.
@MainActor
final class PhotoInfoPopover {
    let popover: Widget<Popover>
    private let ui = UIFile("photo-info")
    private var values: [Row: Widget<Label>] = [:]
    private var captions: [Row: Widget<Label>] = [:]
    private var connections: [SignalConnection] = []
    /// What the rows show now.
    private var shown = ViewerInfoText(name: "", source: "")
    /// What was last traced while open; nil while closed.
    private var traced: ViewerInfoText?
    private let openMaps: Widget<Button>
    private let placeBox: Widget<Box>
    /// Where the photo shown was taken: its position, the coordinates as shown, and the
    /// nearest town once found.
    private var place: (latitude: Double, longitude: Double, coordinates: String, town: PlaceName?)?
    /// Asked to open a `geo:` address in the desktop's maps app.
    var onOpenMaps: ((String) -> Void)?

    /// A row of the popover: its value label's ID in `ui/photo-info.ui` (the caption's is the
    /// same with "-caption").
    enum Row: String, CaseIterable {
        case name
        case address = "source"
        case size
        case fileSize = "file-size"
        case format, camera, lens, exposure
        case focalLength = "focal-length"
        case date, place, author, copyright
        case caption = "description"
        case profile
    }

    init() {
        popover = ui.widget("popover")
        openMaps = ui.widget("open-maps")
        placeBox = ui.widget("place-box")
        for row in Row.allCases {
            values[row] = ui.widget(row.rawValue)
            captions[row] = ui.widget("\(row.rawValue)-caption")
        }
        connections.append(
            popover.connect("show") { [unowned self] in
                traced = shown
                Trace.shared.emit(.viewerInfo(shown: true, info: shown))
                lookUpTown()
            })
        connections.append(
            openMaps.connect("clicked") { [unowned self] in
                guard let place else { return }
                onOpenMaps?(Self.geoAddress(latitude: place.latitude, longitude: place.longitude))
            })
        connections.append(
            popover.connect("hide") { [unowned self] in
                traced = nil
                Trace.shared.emit(.viewerInfo(shown: false, info: shown))
            })
    }

    /// The date taken ("2021-07-04 18:30:05", as EXIF says it, in the photo's own time) the way
    /// the user's language writes dates; as it is where it does not read as one.
    private static func localDate(_ exif: String) -> String {
        // TRANSLATORS: how the date a photo was taken is written: a g_date_time_format() format
        // (%B is the month's name, %-d the day without a leading zero)
        DateTaken(exif)?.formatted(tr("%Y-%m-%d %H:%M:%S")) ?? exif
    }

    /// The rows the photo's metadata gives (each only where it says it).
    private func fill(_ text: inout [Row: String], from details: PhotoDetails) {
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
            let north = Localization.decimal(abs(latitude), places: 5),
                east = Localization.decimal(abs(longitude), places: 5)
            // TRANSLATORS: a latitude north or south of the equator, and a longitude east or west
            // of Greenwich ("48.85837° N", "2.29448° E")
            var place = [
                String(format: latitude < 0 ? tr("%@° S") : tr("%@° N"), north),
                String(format: longitude < 0 ? tr("%@° W") : tr("%@° E"), east),
            ].joined(separator: ", ")
            if let altitude = details.altitude {
                // TRANSLATORS: metres above sea level
                place += " · " + String(format: tr("%@ m"), Localization.decimal(altitude, places: 0))
            }
            text[.place] = place
        }
        text[.author] = details.author
        text[.copyright] = details.copyright
        text[.caption] = details.caption
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

    /// Fills the rows; those without a value (no EXIF, not loaded yet) are hidden.
    func show(name: String, address: String, url: URL?, info: ImageInfo?, profile: String? = nil) {
        var text: [Row: String] = [.name: name]
        text[.address] = url.map { $0.isFileURL ? $0.path : $0.absoluteString } ?? address
        if let info {
            let megapixels = Double(info.width * info.height) / 1_000_000
            let pixels = String(
                format: tr("%1$@ × %2$@ pixels"), Localization.number(info.width), Localization.number(info.height))
            text[.size] =
                megapixels >= 0.1
                ? String(format: tr("%1$@ (%2$@ MP)"), pixels, Localization.decimal(megapixels)) : pixels
            text[.fileSize] = Localization.size(info.fileSize)
            text[.format] = info.formatDescription
            text[.camera] = info.camera
            text[.date] = info.date.map { date in
                Self.localDate(date) + (info.details?.timeZone.map { " (UTC\($0))" } ?? "")
            }
            if let details = info.details { fill(&text, from: details) }
        }
        text[.profile] = profile
        if let details = info?.details, let latitude = details.latitude, let longitude = details.longitude,
            let coordinates = text[.place]
        {
            // The same photo shown again keeps the town found for it.
            let town = place?.latitude == latitude && place?.longitude == longitude ? place?.town : nil
            place = (latitude, longitude, coordinates, town)
            text[.place] = placeText()
        } else {
            place = nil
        }
        placeBox.isVisible = place != nil
        for row in Row.allCases {
            let value = text[row]
            values[row]!.setText(value ?? "")
            values[row]!.isVisible = value != nil
            captions[row]!.isVisible = value != nil
        }
        shown = ViewerInfoText(
            name: name, source: text[.address] ?? "", width: info?.width ?? 0, height: info?.height ?? 0,
            bytes: info?.fileSize ?? 0, format: text[.format] ?? "", camera: text[.camera], date: text[.date],
            profile: text[.profile], place: text[.place])
        traceChange()
        if traced != nil { lookUpTown() }
    }

    /// Has the town nearest the photo's position found (off the main thread, the first time a
    /// position is asked), while the popover is open, and shows it.
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

    private func traceChange() {
        if traced != nil, traced != shown {
            traced = shown
            Trace.shared.emit(.viewerInfo(shown: true, info: shown))
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

    /// The `geo:` address of a position (RFC 5870: latitude, longitude in decimal degrees).
    static func geoAddress(latitude: Double, longitude: Double) -> String {
        String(format: "geo:%.6f,%.6f", locale: Locale(identifier: "en_US_POSIX"), latitude, longitude)
    }
}
