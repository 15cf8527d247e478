import CGLib
import Foundation
import GLibKit

/// What the app asks of the desktop over the session D-Bus: the wallpaper portal
/// (`org.freedesktop.portal.Wallpaper`) and the file manager (`org.freedesktop.FileManager1`).
/// Blocking calls (with a deadline): run them off the main thread.
enum DesktopServices {
    /// `O_PATH`, which Swift does not import: a descriptor that names the file without opening
    /// it, as the portal asks for.
    private static let openPath: Int32 = 0o10000000

    /// How the desktop answered.
    enum Answer: Sendable, Equatable {
        case done
        /// Nothing answers for the service (no session bus, or nobody owns the name).
        case missing
        /// The service answered with an error.
        case failed(String)
    }

    /// Asks the desktop portal to set the picture at `path` as the background, handing it the
    /// file as a descriptor (`SetWallpaperFile`); the portal shows its own preview and asks.
    static func setBackground(path: String) -> Answer {
        let fd = open(path, openPath | O_CLOEXEC)
        guard fd >= 0 else { return .failed(String(cString: strerror(errno))) }
        let fds = g_unix_fd_list_new()!
        defer { g_object_unref(UnsafeMutableRawPointer(fds)) }
        var error: UnsafeMutablePointer<GError>?
        let index = g_unix_fd_list_append(fds, fd, &error) // a copy of the descriptor
        close(fd)
        guard index >= 0 else { return answer(error) }
        let options = "a{sv}".withCString { g_variant_builder_new(g_variant_type_checked_($0))! }
        defer { g_variant_builder_unref(options) }
        g_variant_builder_add_value(
            options,
            g_variant_new_dict_entry(
                g_variant_new_string("show-preview"), g_variant_new_variant(g_variant_new_boolean(1))))
        g_variant_builder_add_value(
            options,
            g_variant_new_dict_entry(
                g_variant_new_string("set-on"), g_variant_new_variant(g_variant_new_string("background"))))
        var children: [OpaquePointer?] = [
            g_variant_new_string(""), g_variant_new_handle(index), g_variant_builder_end(options),
        ]
        let parameters = children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, 3) }
        return call(
            "org.freedesktop.portal.Desktop", path: "/org/freedesktop/portal/desktop",
            interface: "org.freedesktop.portal.Wallpaper", method: "SetWallpaperFile", parameters: parameters, fds: fds)
    }

    /// Asks the file manager to show the file at `uri`, selected in its folder (`ShowItems`).
    static func showInFiles(uri: String) -> Answer {
        let strv = uri.withCString { text -> OpaquePointer? in
            var list: [UnsafePointer<CChar>?] = [text]
            return list.withUnsafeMutableBufferPointer { g_variant_new_strv($0.baseAddress, 1) }
        }
        var children: [OpaquePointer?] = [strv, g_variant_new_string("")]
        let parameters = children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, 2) }
        return call(
            "org.freedesktop.FileManager1", path: "/org/freedesktop/FileManager1",
            interface: "org.freedesktop.FileManager1", method: "ShowItems", parameters: parameters, fds: nil)
    }

    /// The item in the desktop's trash (`trash:///`, where GVfs provides it) that was at
    /// `originalPath` (its `trash::orig-path`), the most recently trashed if several were; nil
    /// where there is no such trash. Blocking.
    static func trashItem(originalPath: String) -> ObjectRef<GObject>? {
        guard let schemes = g_vfs_get_supported_uri_schemes(g_vfs_get_default()) else { return nil }
        var index = 0
        var hasTrash = false
        while let scheme = schemes[index] {
            if String(cString: scheme) == "trash" { hasTrash = true }
            index += 1
        }
        guard hasTrash else { return nil }
        let trash = ObjectRef(takingOpaque: g_file_new_for_uri("trash:///")!)
        let attributes = "standard::name,trash::orig-path,trash::deletion-date"
        guard let enumerator = g_file_enumerate_children(trash.opaque, attributes, GFileQueryInfoFlags(0), nil, nil)
        else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(enumerator)) }
        var best: (date: String, child: ObjectRef<GObject>)?
        var info: OpaquePointer?
        var child: OpaquePointer?
        while g_file_enumerator_iterate(enumerator, &info, &child, nil, nil) != 0, let info, let child {
            let orig = g_file_info_get_attribute_as_string(info, "trash::orig-path")
            defer { g_free(orig) }
            guard let orig, String(cString: orig) == originalPath else { continue }
            let date = g_file_info_get_attribute_as_string(info, "trash::deletion-date")
            defer { g_free(date) }
            let when = date.map { String(cString: $0) } ?? ""
            if best == nil || when > best!.date {
                best = (when, ObjectRef(retainingOpaque: child))
            }
        }
        return best?.child
    }

    private static func call(
        _ name: String, path: String, interface: String, method: String, parameters: OpaquePointer?,
        fds: UnsafeMutablePointer<GUnixFDList>?
    ) -> Answer {
        var error: UnsafeMutablePointer<GError>?
        guard let bus = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            if let parameters { g_variant_unref(g_variant_ref_sink(parameters)) }
            if let error { g_error_free(error) }
            return .missing
        }
        defer { g_object_unref(UnsafeMutableRawPointer(bus)) }
        let reply = g_dbus_connection_call_with_unix_fd_list_sync(
            bus, name, path, interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NONE, 10_000, fds, nil, nil, &error)
        guard let reply else { return answer(error) }
        g_variant_unref(reply)
        return .done
    }

    /// `error` as an answer: a name nobody owns (or that cannot be started) is a missing service.
    private static func answer(_ error: UnsafeMutablePointer<GError>?) -> Answer {
        guard let error else { return .failed("Unknown error") }
        defer { g_error_free(error) }
        let missing: [GDBusError] = [
            G_DBUS_ERROR_SERVICE_UNKNOWN, G_DBUS_ERROR_NAME_HAS_NO_OWNER, G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND,
            G_DBUS_ERROR_UNKNOWN_OBJECT, G_DBUS_ERROR_UNKNOWN_INTERFACE, G_DBUS_ERROR_UNKNOWN_METHOD,
        ]
        if error.pointee.domain == g_dbus_error_quark(),
            missing.contains(where: { Int32($0.rawValue) == error.pointee.code })
        {
            return .missing
        }
        return .failed(String(cString: error.pointee.message))
    }
}
