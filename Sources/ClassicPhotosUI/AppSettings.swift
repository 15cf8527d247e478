import CGLib
import GLibKit
import Foundation
import PhotoPipeline

/// What the app remembers between runs (window size, maximised state, the last sources),
/// through GSettings. When the schema is not installed, as when the app runs from its build
/// folder, nothing is remembered and every value is its default.
@MainActor
final class AppSettings {
    private static let schemaID = AppInfo.applicationID
    private let settings: ObjectRef<GSettings>?

    init() {
        let schema = g_settings_schema_source_get_default()
            .flatMap { g_settings_schema_source_lookup($0, Self.schemaID, 1) }
        if let schema {
            g_settings_schema_unref(schema)
            settings = ObjectRef(taking: g_settings_new(Self.schemaID)!)
        } else {
            settings = nil
        }
    }

    /// Whether values are remembered at all.
    var isAvailable: Bool { settings != nil }

    /// The window's size and whether it was maximised, when it last closed.
    var window: (width: Int32, height: Int32, maximized: Bool) {
        get {
            guard let settings else { return (480, 720, false) }
            return (
                g_settings_get_int(settings.pointer, "window-width"),
                g_settings_get_int(settings.pointer, "window-height"),
                g_settings_get_boolean(settings.pointer, "window-maximized") != 0
            )
        }
        set {
            guard let settings else { return }
            g_settings_set_int(settings.pointer, "window-width", newValue.width)
            g_settings_set_int(settings.pointer, "window-height", newValue.height)
            g_settings_set_boolean(settings.pointer, "window-maximized", newValue.maximized ? 1 : 0)
        }
    }

    /// The addresses of the sources last opened (URLs), in order.
    var lastSources: [String] {
        get {
            guard let settings, let strv = g_settings_get_strv(settings.pointer, "last-sources") else { return [] }
            defer { g_strfreev(strv) }
            var values: [String] = []
            var index = 0
            while let value = strv[index] {
                values.append(String(cString: value))
                index += 1
            }
            return values
        }
        set {
            guard let settings else { return }
            let copies = newValue.map { strdup($0) }
            defer { copies.forEach { free($0) } }
            var list: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
            g_settings_set_strv(settings.pointer, "last-sources", &list)
        }
    }

    /// Whether the photos are shown by their stars (`sort-by` "rating", most first when
    /// `photoOrder` is descending); their folders are then read by name, which orders ties.
    var sortsByRating: Bool {
        guard let settings, let text = g_settings_get_string(settings.pointer, "sort-by") else { return false }
        defer { g_free(text) }
        return String(cString: text) == "rating"
    }

    /// Keeps the sort by rating chosen, most stars first or not.
    func sortByRating(mostFirst: Bool) {
        guard let settings else { return }
        g_settings_set_string(settings.pointer, "sort-by", "rating")
        g_settings_set_boolean(settings.pointer, "sort-descending", mostFirst ? 1 : 0)
    }

    /// How folders are sorted: `sort-by` and `sort-descending`; by name where nothing is kept
    /// (or the photos are shown by rating: then only `descending` counts).
    var photoOrder: PhotoOrder {
        get {
            guard let settings else { return .byName }
            let key = g_settings_get_string(settings.pointer, "sort-by").map { text in
                defer { g_free(text) }
                return String(cString: text)
            }
            return PhotoOrder(
                key: key.flatMap(PhotoOrder.Key.init(rawValue:)) ?? .name,
                descending: g_settings_get_boolean(settings.pointer, "sort-descending") != 0)
        }
        set {
            guard let settings else { return }
            g_settings_set_string(settings.pointer, "sort-by", newValue.key.rawValue)
            g_settings_set_boolean(settings.pointer, "sort-descending", newValue.descending ? 1 : 0)
        }
    }

    /// How photos are shown (`view-mode`); the list where nothing is kept.
    var viewMode: PhotoViewMode {
        get {
            guard let settings, let text = g_settings_get_string(settings.pointer, "view-mode") else { return .list }
            defer { g_free(text) }
            return PhotoViewMode(rawValue: String(cString: text)) ?? .list
        }
        set {
            guard let settings else { return }
            g_settings_set_string(settings.pointer, "view-mode", newValue.rawValue)
        }
    }

    /// Whether a folder shows every picture beneath it rather than its sub-folders as items
    /// (`include-subfolders`).
    var includeSubfolders: Bool {
        get { settings.map { g_settings_get_boolean($0.pointer, "include-subfolders") != 0 } ?? false }
        set {
            guard let settings else { return }
            g_settings_set_boolean(settings.pointer, "include-subfolders", newValue ? 1 : 0)
        }
    }

    /// Whether pictures are shown in the colours of the display's profile, when it has one
    /// (`use-display-profile`).
    var useDisplayProfile: Bool {
        get { settings.map { g_settings_get_boolean($0.pointer, "use-display-profile") != 0 } ?? true }
        set {
            guard let settings else { return }
            g_settings_set_boolean(settings.pointer, "use-display-profile", newValue ? 1 : 0)
        }
    }

    /// Whether a motion photo's clip plays when the viewer shows the photo (`play-motion-photos`).
    var playsMotionPhotos: Bool {
        get { settings.map { g_settings_get_boolean($0.pointer, "play-motion-photos") != 0 } ?? true }
        set {
            guard let settings else { return }
            g_settings_set_boolean(settings.pointer, "play-motion-photos", newValue ? 1 : 0)
        }
    }

    /// Whether marks are written into the photos themselves (`write-marks-into-photos`).
    var writesMarksIntoPhotos: Bool {
        get { settings.map { g_settings_get_boolean($0.pointer, "write-marks-into-photos") != 0 } ?? false }
        set {
            guard let settings else { return }
            g_settings_set_boolean(settings.pointer, "write-marks-into-photos", newValue ? 1 : 0)
        }
    }

    /// The side of the grid's squares (`grid-thumbnail-size`), in logical pixels.
    var gridSize: Int32 {
        get { settings.map { g_settings_get_int($0.pointer, "grid-thumbnail-size") } ?? PhotoGridCell.defaultSize }
        set {
            guard let settings else { return }
            g_settings_set_int(settings.pointer, "grid-thumbnail-size", newValue)
        }
    }

    /// What photos and lists may cost (bytes, pixels, memory, time, redirects); the standard
    /// limits where nothing is remembered. Read when a window opens.
    var limits: PhotoLimits {
        guard let settings else { return .standard }
        let s = settings.pointer
        func int(_ key: String) -> Int { Int(g_settings_get_int(s, key)) }
        func double(_ key: String) -> Double { g_settings_get_double(s, key) }
        return PhotoLimits(
            maxPhotoBytes: int("photo-max-megabytes") * 1_000_000,
            maxPixels: int("photo-max-megapixels") * 1_000_000,
            decodeMemoryBytes: int("decode-memory-megabytes") << 20,
            connectSeconds: double("connect-timeout-seconds"),
            silenceSeconds: double("silence-timeout-seconds"),
            photoSeconds: double("photo-timeout-seconds"),
            listSeconds: double("list-timeout-seconds"),
            maxListBytes: int("list-max-megabytes") << 20,
            maxRedirects: int("max-redirects"))
    }
}
