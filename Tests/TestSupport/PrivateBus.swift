import Foundation

/// A D-Bus daemon of the test's own (session configuration: any client may own any name),
/// killed when the value goes away.
public final class PrivateBus: @unchecked Sendable {
    /// The bus's address, for `DBUS_SESSION_BUS_ADDRESS` or `DBUS_SYSTEM_BUS_ADDRESS`.
    public let address: String
    private let daemon: Process

    /// `environment`, added to the test's, is what the services the bus starts (GVfs) see:
    /// `XDG_RUNTIME_DIR`, say, where GVfs mounts its FUSE view of the shares.
    public init(environment: [String: String] = [:]) throws {
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        if !environment.isEmpty {
            daemon.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        daemon.arguments = ["--session", "--nofork", "--nopidfile", "--print-address=1"]
        let out = Pipe()
        daemon.standardOutput = out
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        var printed = Data()
        while !printed.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed.append(chunk)
        }
        address = String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !address.isEmpty else {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
            throw PrivateBusError()
        }
    }

    deinit {
        // SIGKILL: a child of a test process may inherit a mask that blocks SIGTERM.
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
    }
}

public struct PrivateBusError: Error, CustomStringConvertible {
    public var description: String { "dbus-daemon printed no address" }
}
