import CGLib
import CGtk
import Foundation
import GLibKit
import PhotoPipeline

/// The viewer's info popover (`ui/photo-info.ui`): name, source address, pixel size, file size,
/// format, and the camera and date taken where the photo's EXIF has them. Traced as
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

    /// Fills the rows; those without a value (no EXIF, not loaded yet) are hidden.
    func show(name: String, address: String, url: URL?, info: ImageInfo?) {
        var text: [Row: String] = [.name: name]
        text[.address] = url.map { $0.isFileURL ? $0.path : $0.absoluteString } ?? address
        if let info {
            let megapixels = Double(info.width * info.height) / 1_000_000
            text[.size] =
                "\(info.width) × \(info.height) pixels"
                + (megapixels >= 0.1 ? String(format: " (%.1f MP)", megapixels) : "")
            let size = g_format_size(guint64(info.fileSize))!
            text[.fileSize] = String(cString: size)
            g_free(size)
            text[.format] = info.formatDescription
            text[.camera] = info.camera
            text[.date] = info.date
        }
        for row in Row.allCases {
            let value = text[row]
            values[row]!.setText(value ?? "")
            values[row]!.isVisible = value != nil
            captions[row]!.isVisible = value != nil
        }
        shown = ViewerInfoText(
            name: name, source: text[.address] ?? "", width: info?.width ?? 0, height: info?.height ?? 0,
            bytes: info?.fileSize ?? 0, format: text[.format] ?? "", camera: text[.camera], date: text[.date])
        if traced != nil, traced != shown {
            traced = shown
            Trace.shared.emit(.viewerInfo(shown: true, info: shown))
        }
    }
}
