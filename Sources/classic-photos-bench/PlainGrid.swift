// GTK's own floor for a grid of photos: a plain GtkGridView of whole photos fitted into
// 160-pixel squares, with names, the size of the app's grid, showing pictures decoded once (at
// the size the app shows them) before the window opens (one per photo of the list's first
// eight, in turn), so that binding a cell does nothing but set a texture and a text. Run as a child of the benchmark under the same Xvfb set-up as the app;
// it traces `app.start`, `window.shown`, `source.loaded` and `frame.painted` as the app does.
import CGLib
import CGdkPixbuf
import CGtk
import Foundation
import GLibKit
import PhotoPipeline

enum PlainGrid {
    static let flag = "--plain-grid"

    /// `[--trace PATH] [--new-instance] --plain-grid LIST`
    @MainActor
    static func main(_ arguments: [String]) -> Int32 {
        var rest = arguments[...]
        var tracePath: String?, listPath: String?
        while let argument = rest.popFirst() {
            switch argument {
            case "--trace": tracePath = rest.popFirst()
            case flag: listPath = rest.popFirst()
            default: break
            }
        }
        guard let listPath else { return 2 }
        if let tracePath, !Trace.shared.open(path: tracePath) { return 1 }
        Trace.shared.emit(.appStart(version: AppInfo.version))
        gtk_init()
        let grid = PlainGridWindow(list: URL(fileURLWithPath: listPath))
        let loop = g_main_loop_new(nil, 0)
        withExtendedLifetime(grid) { g_main_loop_run(loop) }
        return 0
    }
}

@MainActor
final class PlainGridWindow {
    static let side: Int32 = 160
    private let window: UnsafeMutablePointer<GtkWidget>
    private var connections: [SignalConnection] = []
    private var cells: [UnsafeMutableRawPointer: (picture: UnsafeMutablePointer<GtkWidget>, label: OpaquePointer)] = [:]
    private var textures: [OpaquePointer] = []
    private var shown = false

    init(list: URL) {
        var entries: [PhotoEntry] = []
        try? PropertyListSource(location: list).read(using: PhotoFetcher(), cancellable: Cancellable()) {
            entries += $0.entries
        }
        // The pictures, decoded before anything is shown: the cells never wait for one.
        for entry in entries.prefix(8) {
            guard let path = try? entry.resolvedURL().path,
                let pixbuf = gdk_pixbuf_new_from_file_at_scale(path, Self.side, Self.side, 1, nil)
            else { continue }
            if let texture = gdk_texture_new_for_pixbuf(pixbuf) { textures.append(texture) }
            g_object_unref(UnsafeMutableRawPointer(pixbuf))
        }

        window = gtk_window_new()
        gtk_window_set_title(asWindow(window), "Classic Photos (plain grid)")
        gtk_window_set_default_size(asWindow(window), 1200, 850)
        gtk_window_set_titlebar(asWindow(window), gtk_header_bar_new())

        let model = gtk_string_list_new(nil)!
        var names = entries.indices.map { strdup(String(format: "photo-%05d.jpg", $0)) } + [nil]
        names.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                gtk_string_list_splice(model, 0, 0, $0)
            }
        }
        names.forEach { free($0) }
        let factory = gtk_signal_list_item_factory_new()!
        let view = gtk_grid_view_new(gtk_no_selection_new(model), factory)!
        gtk_grid_view_set_max_columns(OpaquePointer(view), 64)
        let scrolled = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_policy(OpaquePointer(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_child(OpaquePointer(scrolled), view)
        gtk_window_set_child(asWindow(window), scrolled)

        let object = UnsafeMutableRawPointer(factory)
        connections.append(
            SignalConnection.connect(
                object, "setup",
                pointer: { [unowned self] item in
                    let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4)!
                    for set in [
                        gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start,
                        gtk_widget_set_margin_end,
                    ] {
                        set(box, 6)
                    }
                    let picture = gtk_picture_new()!
                    gtk_widget_set_size_request(picture, Self.side, Self.side)
                    gtk_picture_set_can_shrink(OpaquePointer(picture), 1)
                    gtk_picture_set_content_fit(OpaquePointer(picture), GTK_CONTENT_FIT_CONTAIN)
                    let label = gtk_inscription_new(nil)!
                    gtk_box_append(asBox(box), picture)
                    gtk_box_append(asBox(box), label)
                    gtk_list_item_set_child(OpaquePointer(item), box)
                    cells[item!] = (picture, OpaquePointer(label))
                }))
        connections.append(
            SignalConnection.connect(
                object, "bind",
                pointer: { [unowned self] item in
                    guard let item, let cell = cells[item] else { return }
                    let position = Int(gtk_list_item_get_position(OpaquePointer(item)))
                    let name = gtk_string_object_get_string(OpaquePointer(gtk_list_item_get_item(OpaquePointer(item))))
                    gtk_inscription_set_text(cell.label, name)
                    let texture = textures.isEmpty ? nil : textures[position % textures.count]
                    gtk_picture_set_paintable(OpaquePointer(cell.picture), texture)
                }))
        connections.append(
            SignalConnection.connect(UnsafeMutableRawPointer(window), "map") { [unowned self] in mapped() })
        connections.append(
            SignalConnection.connectReturning(UnsafeMutableRawPointer(window), "close-request") { exit(0) })
        gtk_window_present(asWindow(window))
        Trace.shared.emit(.sourceLoaded(url: list.absoluteString, rows: entries.count))
    }

    private func mapped() {
        guard let clock = gtk_widget_get_frame_clock(window) else { return }
        connections.append(
            SignalConnection.connect(UnsafeMutableRawPointer(clock), "after-paint") { [unowned self] in
                if !shown {
                    shown = true
                    Trace.shared.emit(.windowShown)
                }
                Trace.shared.emit(.framePainted)
            })
    }
}

/// The window and box widgets as the structs GTK's functions for them take (here and in the
/// synchronous list), checked as GTK_WINDOW() and GTK_BOX() check them.
func asWindow(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkWindow> {
    GObjectCast.instance(UnsafeMutableRawPointer(widget), of: gtk_window_get_type(), as: GtkWindow.self)!
}

func asBox(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkBox> {
    GObjectCast.instance(UnsafeMutableRawPointer(widget), of: gtk_box_get_type(), as: GtkBox.self)!
}
