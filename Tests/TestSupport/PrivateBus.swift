import Foundation
import GLibKit

/// A D-Bus daemon of the test's own (session configuration: any client may own any name),
/// killed when the value goes away.
///
/// It is started with no signal blocked: the test runner blocks some (SIGCHLD and SIGTERM among
/// them), a child inherits the mask, and so would every service the bus starts (GVfs's
/// daemons, which start helpers of their own and wait for them).
public final class PrivateBus: @unchecked Sendable {
    /// The bus's address, for `DBUS_SESSION_BUS_ADDRESS` or `DBUS_SYSTEM_BUS_ADDRESS`.
    public let address: String
    private let stopped = Locked(false)
    private let daemon: pid_t
    private let output: Int32

    /// `environment`, added to the test's, is what the services the bus starts (GVfs) see.
    /// With `fuse`, GVfs shows its shares through FUSE under `XDG_RUNTIME_DIR` (which the test
    /// then gives, and unmounts); without it, GVfs is told not to (`GVFS_DISABLE_FUSE`), or
    /// every bus would leave a FUSE daemon and its mount behind.
    public init(environment: [String: String] = [:], fuse: Bool = false) throws {
        var variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        variables["GVFS_DISABLE_FUSE"] = fuse ? nil : "1"
        // The services it starts are told its address by the bus itself, never the test's own.
        variables["DBUS_SESSION_BUS_ADDRESS"] = nil
        let arguments = ["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1"]

        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw PrivateBusError("no pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        posix_spawn_file_actions_addclose(&actions, ends[1])
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var nothing = sigset_t()
        sigemptyset(&nothing)
        posix_spawnattr_setsigmask(&attributes, &nothing)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        // A process group of its own, as Foundation's Process gives its children: the services
        // the bus starts (GVfs's daemons) signal their own group, never the test's.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        close(ends[1])
        guard spawned == 0 else {
            close(ends[0])
            throw PrivateBusError("dbus-daemon did not start: \(String(cString: strerror(spawned)))")
        }
        daemon = pid
        output = ends[0]
        var printed: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        while !printed.contains(UInt8(ascii: "\n")) {
            let count = read(output, &chunk, chunk.count)
            if count <= 0 { break }
            printed += chunk[0..<count]
        }
        address = String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !address.isEmpty else {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
            close(output)
            throw PrivateBusError("dbus-daemon printed no address")
        }
    }

    /// Stops the daemon and every service it started (its process group: GVfs's daemons, the
    /// portals), at once; the value going away does the same.
    public func stop() {
        let already = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !already else { return }
        kill(-daemon, SIGKILL)
        waitpid(daemon, nil, 0)
        close(output)
    }

    deinit { stop() }
}

public struct PrivateBusError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
