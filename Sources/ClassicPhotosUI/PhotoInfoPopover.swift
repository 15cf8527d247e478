import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// The viewer's info popover (`ui/photo-info.ui`): name, source address, pixel size, file size,
/// format, the camera and date taken where the photo's EXIF has them, and the colour profile
/// its colours were turned into sRGB from ("sRGB (assumed)" where it has none). Traced as
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

    /// A row of the popover: its value label's ID in `ui/photo-info.ui` (the caption's is the
    /// same with "-caption").
    enum Row: String, CaseIterable {
        case name
        case address = "source"
        case size
        case fileSize = "file-size"
        case format, camera, date
        case profile
    }

    init() {
        popover = ui.widget("popover")
        for row in Row.allCases {
            values[row] = ui.widget(row.rawValue)
            captions[row] = ui.widget("\(row.rawValue)-caption")
        }
        connections.append(
            popover.connect("show") { [unowned self] in
                traced = shown
                Trace.shared.emit(.viewerInfo(shown: true, info: shown))
            })
        connections.append(
            popover.connect("hide") { [unowned self] in
                traced = nil
                Trace.shared.emit(.viewerInfo(shown: false, info: shown))
            })
    }

    /// `value` with one decimal, in the locale's way ("12.2"; "12,2" in German).
    private static func decimal(_ value: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 32)
        _ = withVaList([value]) { vsnprintf(&buffer, buffer.count, "%.1f", $0) }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// The date taken ("2021-07-04 18:30:05", as EXIF says it, in the photo's own time) the way
    /// the user's language writes dates; as it is where it does not read as one.
    private static func localDate(_ exif: String) -> String {
        // TRANSLATORS: how the date a photo was taken is written: a g_date_time_format() format
        // (%B is the month's name, %-d the day without a leading zero)
        DateTaken(exif)?.formatted(tr("%Y-%m-%d %H:%M:%S")) ?? exif
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
                ? String(format: tr("%1$@ (%2$@ MP)"), pixels, Self.decimal(megapixels)) : pixels
            text[.fileSize] = Localization.size(info.fileSize)
            text[.format] = info.formatDescription
            text[.camera] = info.camera
            text[.date] = info.date.map(Self.localDate)
        }
        text[.profile] = profile
        for row in Row.allCases {
            let value = text[row]
            values[row]!.setText(value ?? "")
            values[row]!.isVisible = value != nil
            captions[row]!.isVisible = value != nil
        }
        shown = ViewerInfoText(
            name: name, source: text[.address] ?? "", width: info?.width ?? 0, height: info?.height ?? 0,
            bytes: info?.fileSize ?? 0, format: text[.format] ?? "", camera: text[.camera], date: text[.date],
            profile: text[.profile])
        if traced != nil, traced != shown {
            traced = shown
            Trace.shared.emit(.viewerInfo(shown: true, info: shown))
        }
    }
}
