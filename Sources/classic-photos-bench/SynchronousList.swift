// The tutorial's first version, for comparison: a plain GTK list whose rows fetch, decode and
// turn sepia their photo synchronously, on the main thread, while being bound (the tutorial's
// `tableView(_:cellForRowAtIndexPath:)` with `NSData(contentsOfURL:)` and CISepiaTone).
// It runs as a child process of the benchmark, under the same Xvfb set-up as the app, and
// writes the same trace events the measurements need: `app.start`, `window.shown`,
// `source.loaded`, `frame.painted`, `mainloop.stall`.
import CGLib
import CGtk
import Foundation
import GLibKit
import PhotoPipeline

enum SynchronousList {
    static let flag = "--synchronous-list"
    /// The same list showing the names alone: what GTK costs without any picture work.
    static let plainFlag = "--plain-list"

    /// `[--trace PATH] [--new-instance] --synchronous-list LIST`
    @MainActor
    static func main(_ arguments: [String]) -> Int32 {
        var rest = arguments[...]
        var tracePath: String?, listPath: String?, plain = false
        while let argument = rest.popFirst() {
            switch argument {
            case "--trace": tracePath = rest.popFirst()
            case flag: listPath = rest.popFirst()
            case plainFlag:
                listPath = rest.popFirst()
                plain = true
            default: break // --new-instance: this is always a process of its own
            }
        }
        guard let listPath else { return 2 }
        if let tracePath, !Trace.shared.open(path: tracePath) { return 1 }
        Trace.shared.emit(.appStart(version: AppInfo.version))
        gtk_init()
        let list = SynchronousListWindow(list: URL(fileURLWithPath: listPath), pictures: !plain)
        let loop = g_main_loop_new(nil, 0)
        withExtendedLifetime(list) { g_main_loop_run(loop) }
        return 0
    }
}

@MainActor
final class SynchronousListWindow {
    private let window: UnsafeMutablePointer<GtkWidget>
    private var links: [String] = []
    private var connections: [SignalConnection] = []
    private var rows:
        [UnsafeMutableRawPointer: (picture: UnsafeMutablePointer<GtkWidget>, label: UnsafeMutablePointer<GtkWidget>)] =
            [:]
    private let fetcher = PhotoFetcher()
    private let sepia = SepiaFilter()
    private let watchdog = StallWatchdog()
    private var shown = false

    private let pictures: Bool

    init(list: URL, pictures: Bool) {
        self.pictures = pictures
        // The tutorial reads its list synchronously too.
        var entries: [PhotoEntry] = []
        try? PropertyListSource(location: list).read(using: fetcher, cancellable: Cancellable()) {
            entries += $0.entries
        }
        links = entries.map { (try? $0.resolvedURL().absoluteString) ?? $0.link }

        window = gtk_window_new()
        gtk_window_set_title(asWindow(window), "Classic Photos (synchronous)")
        gtk_window_set_default_size(asWindow(window), 480, 720) // the app's default size
        gtk_window_set_titlebar(asWindow(window), gtk_header_bar_new())

        let model = gtk_string_list_new(nil)!
        var names = entries.indices.map { strdup(String(format: "Photo %05d", $0)) } + [nil]
        names.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                gtk_string_list_splice(model, 0, 0, $0)
            }
        }
        names.forEach { free($0) }
        let factory = gtk_signal_list_item_factory_new()!
        let selection = gtk_no_selection_new(model)
        let view = gtk_list_view_new(selection, factory)!
        let scrolled = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_policy(OpaquePointer(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_child(OpaquePointer(scrolled), view)
        gtk_window_set_child(asWindow(window), scrolled)

        let object = UnsafeMutableRawPointer(factory)
        connections.append(
            SignalConnection.connect(
                object, "setup",
                pointer: { [unowned self] item in
                    let box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)!
                    gtk_widget_set_size_request(box, -1, 80)
                    let picture = gtk_picture_new()!
                    gtk_widget_set_size_request(picture, 80, 80)
                    gtk_picture_set_can_shrink(OpaquePointer(picture), 1)
                    let label = gtk_label_new(nil)!
                    gtk_box_append(asBox(box), picture)
                    gtk_box_append(asBox(box), label)
                    gtk_list_item_set_child(OpaquePointer(item), box)
                    rows[item!] = (picture, label)
                }))
        connections.append(
            SignalConnection.connect(
                object, "bind",
                pointer: { [unowned self] item in
                    guard let item, let row = rows[item] else { return }
                    let position = Int(gtk_list_item_get_position(OpaquePointer(item)))
                    let name = gtk_string_object_get_string(OpaquePointer(gtk_list_item_get_item(OpaquePointer(item))))
                    gtk_label_set_text(OpaquePointer(row.label), name)
                    // Fetch, decode and filter here and now, as the tutorial's first version does.
                    guard pictures, position < links.count, let url = URL(string: links[position]),
                        let image = try? thumbnail(url, fetcher: fetcher, sepia: sepia, inHelper: false)
                    else {
                        gtk_picture_set_paintable(OpaquePointer(row.picture), nil)
                        return
                    }
                    let texture = gdk_texture_new_for_pixbuf(image.pixbuf)
                    gtk_picture_set_paintable(OpaquePointer(row.picture), texture)
                    g_object_unref(UnsafeMutableRawPointer(texture))
                }))
        connections.append(
            SignalConnection.connect(UnsafeMutableRawPointer(window), "map") { [unowned self] in mapped() })
        connections.append(
            SignalConnection.connectReturning(UnsafeMutableRawPointer(window), "close-request") {
                exit(0)
            })
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
                    watchdog.start()
                }
                Trace.shared.emit(.framePainted)
            })
    }
}
