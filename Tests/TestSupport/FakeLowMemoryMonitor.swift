import CGLib
import Foundation
import GLibKit

/// Stands in for the desktop's low-memory-monitor daemon, so a test can make GIO's
/// `GMemoryMonitor` in the app under test emit `low-memory-warning`.
///
/// GIO's memory monitor listens on the system bus to `org.freedesktop.LowMemoryMonitor`, and
/// only if that name has an owner when the app creates the monitor. This starts a private bus
/// bus (give its address to the app as `DBUS_SYSTEM_BUS_ADDRESS`), owns the name on it from
/// the test process, and sends the service's `LowMemoryWarning(level)` signal on request.
public final class FakeLowMemoryMonitor: @unchecked Sendable {
    public static let busName = "org.freedesktop.LowMemoryMonitor"
    public static let objectPath = "/org/freedesktop/LowMemoryMonitor"

    /// The private bus's address.
    public var busAddress: String { bus.address }
    private let bus: PrivateBus
    private let connection: ObjectRef<GObject>

    public init() throws {
        bus = try PrivateBus()
        let address = bus.address
        do {
            let flags = GDBusConnectionFlags(
                rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                    | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
            let bus = try withGError { g_dbus_connection_new_for_address_sync(address, flags, nil, nil, $0) }
            guard let bus else { throw FakeLowMemoryMonitorError("no connection to \(address)") }
            connection = ObjectRef(takingOpaque: bus)
            // RequestName(name, DBUS_NAME_FLAG_DO_NOT_QUEUE = 4) answers 1 when the name is ours.
            let arguments = [g_variant_new_string(Self.busName), g_variant_new_uint32(4)]
            let request = arguments.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, 2) }
            let replyType = g_variant_type_new("(u)")
            defer { g_variant_type_free(replyType) }
            let reply = try withGError {
                g_dbus_connection_call_sync(
                    bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                    "RequestName", request, replyType, G_DBUS_CALL_FLAGS_NONE, 5000, nil, $0)
            }
            defer { if let reply { g_variant_unref(reply) } }
            let answer = reply.map { reply -> UInt32 in
                let child = g_variant_get_child_value(reply, 0)
                defer { g_variant_unref(child) }
                return g_variant_get_uint32(child)
            }
            guard answer == 1 else {
                throw FakeLowMemoryMonitorError("could not own \(Self.busName): \(String(describing: answer))")
            }
        }
    }

    /// Sends `LowMemoryWarning(level)`: 50 is low, 100 medium, 255 critical.
    public func warn(level: UInt8) throws {
        let arguments = [g_variant_new_byte(level)]
        let parameters = arguments.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, 1) }
        try withGError {
            _ = g_dbus_connection_emit_signal(
                connection.opaque, nil, Self.objectPath, Self.busName, "LowMemoryWarning",
                parameters, $0)
        }
        try withGError { _ = g_dbus_connection_flush_sync(connection.opaque, nil, $0) }
    }

    deinit {
        g_dbus_connection_close_sync(connection.opaque, nil, nil)
    }
}

public struct FakeLowMemoryMonitorError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
