import CGLib
import CGtk
import Foundation
import GLibKit
import PhotoPipeline

/// The viewer's info popover: name, source address, pixel size, file size, format, and the
/// camera and date taken where the photo's EXIF has them. Traced as
/// `viewer.info` when it opens or closes, and when what it shows changes while it is open.
@MainActor
final class PhotoInfoPopover {
    let popover: UnsafeMutablePointer<GtkWidget>
    private var values: [Row: UnsafeMutablePointer<GtkWidget>] = [:]
    private var captions: [Row: UnsafeMutablePointer<GtkWidget>] = [:]
    private var connections: [SignalConnection] = []
    /// What the rows show now.
    private var shown = ViewerInfoText(name: "", source: "")
    /// What was last traced while open; nil while closed.
    private var traced: ViewerInfoText?

    enum Row: CaseIterable {
        case name, address, size, fileSize, format, camera, date

        var title: String {
            switch self {
            case .name: "Name"
            case .address: "Source"
            case .size: "Size"
            case .fileSize: "File Size"
            case .format: "Format"
            case .camera: "Camera"
            case .date: "Date Taken"
            }
        }
    }

    init() {
        popover = gtk_popover_new()
        let grid = gtk_grid_new()!
        gtk_grid_set_row_spacing(gtkCast(grid), 8)
        gtk_grid_set_column_spacing(gtkCast(grid), 18)
        for margin in [
            gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start,
            gtk_widget_set_margin_end,
        ] {
            margin(grid, 12)
        }
        for (index, row) in Row.allCases.enumerated() {
            let caption = gtk_label_new(row.title)!
            gtk_label_set_xalign(gtkCast(caption), 1)
            gtk_label_set_yalign(gtkCast(caption), 0)
            gtk_widget_add_css_class(caption, "dim-label")
            let value = gtk_label_new(nil)!
            gtk_label_set_xalign(gtkCast(value), 0)
            gtk_label_set_selectable(gtkCast(value), 1)
            gtk_label_set_wrap(gtkCast(value), 1)
            gtk_label_set_wrap_mode(gtkCast(value), PANGO_WRAP_WORD_CHAR)
            gtk_label_set_max_width_chars(gtkCast(value), 36)
            gtk_widget_set_can_focus(value, 0)
            gtk_grid_attach(gtkCast(grid), caption, 0, Int32(index), 1, 1)
            gtk_grid_attach(gtkCast(grid), value, 1, Int32(index), 1, 1)
            values[row] = value
            captions[row] = caption
        }
        gtk_popover_set_child(gtkCast(popover), grid)
        connections.append(
            SignalConnection.connect(UnsafeMutableRawPointer(popover), "show") { [unowned self] in
                traced = shown
                Trace.shared.emit(.viewerInfo(shown: true, info: shown))
            })
        connections.append(
            SignalConnection.connect(UnsafeMutableRawPointer(popover), "hide") { [unowned self] in
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
            gtk_label_set_text(gtkCast(values[row]!), value ?? "")
            gtk_widget_set_visible(values[row]!, value == nil ? 0 : 1)
            gtk_widget_set_visible(captions[row]!, value == nil ? 0 : 1)
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
