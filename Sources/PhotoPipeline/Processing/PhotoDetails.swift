import CExiv2Setup
import CGExiv2
import CGLib
import Foundation
import GLibKit

/// What a camera or a phone (or a person, in another app) wrote about a photo beyond its
/// pixels: when and where it was taken, with what and how, by whom. Read with gexiv2 (Exiv2,
/// which Shotwell and gThumb read with too: EXIF, IPTC and XMP in JPEG, HEIF / AVIF, WebP, PNG,
/// TIFF and the RAW formats), inside a decoder helper, as what comes from files is.
public struct PhotoDetails: Sendable, Equatable, Codable {
    /// As EXIF writes it ("2021:07:04 18:30:05", the camera's own clock), and the zone that clock
    /// was in ("+02:00"), where the camera wrote it.
    public var dateTaken: String?
    public var timeZone: String?
    public var make: String?
    public var model: String?
    public var lens: String?
    /// The exposure time in seconds, as a fraction (1/250 is 1 and 250).
    public var exposure: Exposure?
    public var fNumber: Double?
    public var iso: Int?
    /// In millimetres: the lens's own, and what it comes to on 35 mm film.
    public var focalLength: Double?
    public var focalLength35: Int?
    /// Whether the flash fired, where the camera says.
    public var flashFired: Bool?
    /// Degrees (north and east positive) and metres above sea level.
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
    public var author: String?
    public var copyright: String?
    public var caption: String?
    /// What the photo shows, in words for people who cannot see it (IPTC's alt text,
    /// `Iptc4xmpCore:AltTextAccessibility`, in the photo's own XMP).
    public var altText: String?

    public struct Exposure: Sendable, Equatable, Codable {
        public var numerator: Int
        public var denominator: Int
        public init(numerator: Int, denominator: Int) {
            self.numerator = numerator
            self.denominator = denominator
        }
        public var seconds: Double { Double(numerator) / Double(denominator) }
    }

    public init() {}

    /// The camera's name as people say it: the model, with the maker before it unless the
    /// model already begins with it ("Canon EOS 5D", not "Canon Canon EOS 5D").
    public var camera: String? { Self.camera(make: make, model: model) }

    /// The camera's name from its maker and model, as `camera` (and the index) give it.
    public static func camera(make: String?, model: String?) -> String? {
        switch (make, model) {
        case (let make?, let model?):
            let maker = make.split(separator: " ").first.map(String.init) ?? make
            return model.lowercased().hasPrefix(maker.lowercased()) ? model : "\(make) \(model)"
        case (let make?, nil): return make
        case (nil, let model?): return model
        case (nil, nil): return nil
        }
    }

    /// "2002-07-13T15:58:28Z" (XMP's dates, ISO 8601, to the minute at least) as
    /// ("2002:07:13 15:58:28", "+00:00"); nil for anything else.
    static func exifDate(iso: String) -> (date: String, zone: String?)? {
        let characters = Array(iso)
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15]
        guard characters.count >= 16, ["-", ":"].contains(characters[4]), characters[7] == characters[4],
            characters[13] == ":",
            ["T", " "].contains(characters[10]),
            digits.allSatisfy({ characters[$0].isASCII && characters[$0].isNumber })
        else { return nil }
        var rest = characters[16...]
        var seconds = ":00"
        if rest.count >= 3, rest.first == ":", rest.dropFirst().prefix(2).allSatisfy({ $0.isASCII && $0.isNumber }) {
            seconds = String(rest.prefix(3))
            rest = rest.dropFirst(3)
        }
        if rest.first == "." { rest = rest.dropFirst().drop { $0.isASCII && $0.isNumber } }
        let zone = String(rest)
        let date =
            String(characters[0..<10]).replacingOccurrences(of: String(characters[4]), with: ":") + " "
            + String(characters[11..<16]) + seconds
        if zone.isEmpty { return (date, nil) }
        if zone == "Z" { return (date, "+00:00") }
        let valid = zone.count == 6 && ["+", "-"].contains(zone.first) && Array(zone)[3] == ":"
        return (date, valid ? zone : nil)
    }

    /// Whether nothing at all was read.
    public var isEmpty: Bool { self == PhotoDetails() }

    /// Reads what `bytes` (a whole picture file) say of themselves; nil when Exiv2 does not
    /// know the format or finds the file unsound.
    public static func read(_ bytes: Data) -> PhotoDetails? {
        guard Self.ready, let metadata = gexiv2_metadata_new() else { return nil }
        defer { g_object_unref(metadata) }
        let opened = bytes.withUnsafeBytes { raw -> Bool in
            guard let base = raw.cBytes else { return false }
            var error: UnsafeMutablePointer<GError>?
            defer { g_clear_error(&error) }
            return gexiv2_metadata_open_buf(metadata, base, glong(raw.count), &error) != 0
        }
        guard opened else { return nil }
        let details = Reading(metadata).details
        // Exiv2 0.27 finds a HEIF file's boxes but not always its `Exif` item (none of those
        // exiftool writes): the item's TIFF block, found here, is read as a TIFF file of its own.
        if details.make == nil, details.dateTaken == nil, let item = HEIFExif.itemRange(in: bytes),
            item.upperBound <= bytes.count,
            let block = HEIFExif.tiffBlock(ofItem: bytes[(bytes.startIndex + item.lowerBound)...].prefix(item.count)),
            let exif = read(Data(block))
        {
            return details.filled(from: exif)
        }
        return details
    }

    /// These details, with what `other` knows where these know nothing (PhotoDetailsTests
    /// checks that no field is left out).
    func filled(from other: PhotoDetails) -> PhotoDetails {
        var merged = self
        func take<Value>(_ field: WritableKeyPath<PhotoDetails, Value?>) {
            if merged[keyPath: field] == nil { merged[keyPath: field] = other[keyPath: field] }
        }
        take(\.dateTaken)
        take(\.timeZone)
        take(\.make)
        take(\.model)
        take(\.lens)
        take(\.exposure)
        take(\.fNumber)
        take(\.iso)
        take(\.focalLength)
        take(\.focalLength35)
        take(\.flashFired)
        take(\.latitude)
        take(\.longitude)
        take(\.altitude)
        take(\.author)
        take(\.copyright)
        take(\.caption)
        take(\.altText)
        return merged
    }

    /// Whether Exiv2 is ready for use (set up on first asking).
    static var exiv2Ready: Bool { ready }

    /// Exiv2 set up once for the process, its reader of HEIF, AVIF and CR3 on, its warnings
    /// about unsound files kept quiet (they are the files' faults, and the helpers' standard
    /// error is the app's).
    private static let ready: Bool = {
        gexiv2_log_set_level(GEXIV2_LOG_LEVEL_MUTE)
        guard gexiv2_initialize() != 0 else { return false }
        _ = cp_exiv2_enable_bmff()
        return true
    }()
}

/// One photo's metadata, opened, read tag by tag.
private struct Reading {
    let metadata: UnsafeMutablePointer<GExiv2Metadata>

    init(_ metadata: UnsafeMutablePointer<GExiv2Metadata>) { self.metadata = metadata }

    var details: PhotoDetails {
        var details = PhotoDetails()
        details.dateTaken = first("Exif.Photo.DateTimeOriginal", "Exif.Image.DateTimeOriginal", "Exif.Image.DateTime")
        details.timeZone = first("Exif.Photo.OffsetTimeOriginal", "Exif.Photo.OffsetTime")
        if details.dateTaken == nil, let (date, zone) = xmpOrIPTCDate {
            details.dateTaken = date
            details.timeZone = details.timeZone ?? zone
        }
        details.make = first("Exif.Image.Make", "Xmp.tiff.Make")
        details.model = first("Exif.Image.Model", "Xmp.tiff.Model")
        details.lens = first("Exif.Photo.LensModel", "Xmp.aux.Lens", "Exif.Canon.LensModel")
        details.exposure = exposure
        details.fNumber =
            positive(gexiv2_metadata_try_get_fnumber(metadata, nil))
            ?? rational("Exif.Image.FNumber", "Xmp.exif.FNumber").flatMap { positive($0.seconds) }
        let iso = Int(gexiv2_metadata_try_get_iso_speed(metadata, nil))
        details.iso = iso > 0 ? iso : makerNoteISO ?? number("Exif.Image.ISOSpeedRatings").flatMap { $0 > 0 ? $0 : nil }
        details.focalLength = positive(gexiv2_metadata_try_get_focal_length(metadata, nil))
        details.focalLength35 = number("Exif.Photo.FocalLengthIn35mmFilm").flatMap { $0 > 0 ? $0 : nil }
        details.flashFired = number("Exif.Photo.Flash").map { $0 & 1 == 1 }
        var (longitude, latitude, altitude) = (0.0, 0.0, 0.0)
        if gexiv2_metadata_try_get_gps_longitude(metadata, &longitude, nil) != 0,
            gexiv2_metadata_try_get_gps_latitude(metadata, &latitude, nil) != 0,
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        {
            details.latitude = latitude
            details.longitude = longitude
            if gexiv2_metadata_try_get_gps_altitude(metadata, &altitude, nil) != 0, altitude.isFinite {
                details.altitude = altitude
            }
        }
        details.author = first("Xmp.dc.creator", "Iptc.Application2.Byline", "Exif.Image.Artist")
        details.copyright = first("Xmp.dc.rights", "Iptc.Application2.Copyright", "Exif.Image.Copyright")
        details.caption = first(
            "Xmp.dc.description", "Iptc.Application2.Caption", "Exif.Image.ImageDescription")
        details.altText = first("Xmp.iptc.AltTextAccessibility")
        return details
    }

    /// The date taken as XMP (`exif:DateTimeOriginal`) or IPTC (its date and time created)
    /// give it, for a photo whose EXIF has none (an app's export, a scan): in EXIF's form, with
    /// the zone they give.
    private var xmpOrIPTCDate: (date: String, zone: String?)? {
        // As written ("…T15:58:28Z"): Exiv2's interpreted form drops the zone.
        if let xmp = text("Xmp.exif.DateTimeOriginal", interpreted: false), let date = PhotoDetails.exifDate(iso: xmp) {
            return date
        }
        guard let day = text("Iptc.Application2.DateCreated"), let time = text("Iptc.Application2.TimeCreated") else {
            return nil
        }
        return PhotoDetails.exifDate(iso: day + "T" + time)
    }

    /// The sensitivity a camera's maker note holds where its EXIF has none (Canon's compacts
    /// write it only there), as Exiv2 spells it out ("100"; Nikon's "200" of its two numbers).
    private var makerNoteISO: Int? {
        let tags = [
            "Exif.CanonSi.ISOSpeed", "Exif.CanonCs.ISOSpeed", "Exif.Nikon3.ISOSpeed", "Exif.Nikon3.ISOSettings",
        ]
        for tag in tags {
            guard let said = text(tag) else { continue }
            // The last number said ("ISO 200", "0 200"); none in "Auto".
            let digits = said.split { !$0.isNumber }.last.flatMap { Int($0) }
            if let digits, (1...3_300_000).contains(digits) { return digits }
        }
        return nil
    }

    /// The exposure time, from EXIF's own block, else where some cameras and apps put it: the
    /// first directory (IFD0), or XMP.
    private var exposure: PhotoDetails.Exposure? {
        var (numerator, denominator) = (Int32(0), Int32(0))
        guard gexiv2_metadata_try_get_exposure_time(metadata, &numerator, &denominator, nil) != 0,
            numerator > 0, denominator > 0
        else { return rational("Exif.Image.ExposureTime", "Xmp.exif.ExposureTime") }
        return PhotoDetails.Exposure(numerator: Int(numerator), denominator: Int(denominator))
    }

    /// The first of `tags` that holds a positive fraction ("32/10", as EXIF and XMP write them).
    private func rational(_ tags: String...) -> PhotoDetails.Exposure? {
        for tag in tags {
            let parts = text(tag, interpreted: false)?.split(separator: "/").compactMap { Int($0) } ?? []
            if parts.count == 2, parts[0] > 0, parts[1] > 0 {
                return PhotoDetails.Exposure(numerator: parts[0], denominator: parts[1])
            }
        }
        return nil
    }

    private func positive(_ value: Double) -> Double? { value > 0 && value.isFinite ? value : nil }

    private func has(_ tag: String) -> Bool { gexiv2_metadata_try_has_tag(metadata, tag, nil) != 0 }

    /// The first of `tags` the photo has with some text.
    private func first(_ tags: String...) -> String? {
        tags.lazy.compactMap { text($0) }.first
    }

    /// A tag's text, trimmed, nil if empty. An XMP value in several languages gives its
    /// default one (Exiv2 writes `lang="x-default" text`).
    private func text(_ tag: String, interpreted: Bool = true) -> String? {
        guard has(tag),
            let raw = interpreted
                ? gexiv2_metadata_try_get_tag_interpreted_string(metadata, tag, nil)
                : gexiv2_metadata_try_get_tag_string(metadata, tag, nil)
        else { return nil }
        defer { g_free(raw) }
        var value = String(cString: raw)
        if value.hasPrefix("lang=\""), let end = value.range(of: "\" ") {
            value = String(value[end.upperBound...])
        }
        value = value.trimmingCharacters(in: .whitespacesAndNewlines.union(.controlCharacters))
        // Cameras pad unset text fields with spaces or fill them with a placeholder.
        guard !value.isEmpty, value != "(none)" else { return nil }
        return String(value.prefix(1000))
    }

    private func number(_ tag: String) -> Int? {
        guard has(tag) else { return nil }
        return Int(gexiv2_metadata_try_get_tag_long(metadata, tag, nil))
    }
}
