import Foundation

/// A folder served as a network share on 127.0.0.1 by rclone, WebDAV (`rclone serve webdav`,
/// `dav://127.0.0.1:PORT/…`) or SFTP (`rclone serve sftp`, `sftp://photos@127.0.0.1:PORT/…`),
/// which the app reaches through GVfs. It can be stopped and started again on the same port,
/// as a server that goes away and comes back.
public final class LoopbackShare: @unchecked Sendable {
    public enum Kind: Sendable {
        case webdav
        /// Any user is let in with no password. GVfs's ssh does not check the host keys of a
        /// server on this computer (`NoHostAuthenticationForLocalhost`).
        case sftp
    }

    public let folder: URL
    public let kind: Kind
    public let port: Int
    /// rclone's `--bwlimit` (e.g. "5M", bytes a second), if any.
    private let bandwidth: String?
    /// Whether rclone logs every request (see `requests`).
    private let logging: Bool
    /// Whether a change to the folder shows at once: rclone then reads the folder again for
    /// every request, which makes listing a folder of thousands take minutes.
    private let freshListings: Bool
    private var server: Process?
    /// rclone's log, which names every request (`INFO  : /cam/a.jpg: GET from 127.0.0.1:…`).
    private let log: URL

    /// The user name and password the share asks for, if any.
    private let login: (user: String, password: String)?

    public init(
        serving folder: URL, kind: Kind = .webdav, bandwidth: String? = nil, logging: Bool = true,
        freshListings: Bool = false, login: (user: String, password: String)? = nil
    ) throws {
        self.folder = folder
        self.kind = kind
        self.login = login
        self.bandwidth = bandwidth
        self.logging = logging
        self.freshListings = freshListings
        log = FileManager.default.temporaryDirectory.appendingPathComponent(
            "classic-photos-rclone-\(UUID().uuidString).log")
        port = try Self.freePort()
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: log)
    }

    /// The paths asked for with `method` ("GET", "PROPFIND") so far, in order ("/cam/a.jpg").
    public func requests(_ method: String) -> [String] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> String? in
            guard let info = line.range(of: "INFO  : "), let verb = line.range(of: ": \(method) from ") else {
                return nil
            }
            return String(line[info.upperBound..<verb.lowerBound])
        }
    }

    /// The share's address of `path` below the folder served ("cam/", "cam/a.jpg").
    public func address(_ path: String = "") -> String {
        switch kind {
        case .webdav: "dav://127.0.0.1:\(port)/\(path)"
        case .sftp: "sftp://photos@127.0.0.1:\(port)/\(path)"
        }
    }

    /// Starts serving (again), and waits until the port answers.
    public func start() throws {
        guard server == nil else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/rclone")
        var arguments = ["serve", kind == .webdav ? "webdav" : "sftp", folder.path, "--addr", "127.0.0.1:\(port)"]
        arguments += ["--config", "/dev/null"]
        // rclone makes its SFTP host keys in its cache folder: the test's temporary one.
        if kind == .sftp { arguments += ["--no-auth", "--cache-dir", FileManager.default.temporaryDirectory.path] }
        if freshListings { arguments += ["--dir-cache-time", "0s"] }
        if logging { arguments += ["-v", "--log-file", log.path] }
        if let bandwidth { arguments += ["--bwlimit", bandwidth] }
        if let login { arguments += ["--user", login.user, "--pass", login.password] }
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        server = process
        let deadline = Date().addingTimeInterval(20)
        while !Self.answers(port: port) {
            guard Date() < deadline, process.isRunning else {
                stop()
                throw LoopbackShareError("rclone did not start serving on port \(port)")
            }
            usleep(50_000)
        }
    }

    /// Every byte the server has written since it started (answers, headers and all: the
    /// kernel's count of its `write` calls), for a benchmark; 0 when it is not running.
    public var bytesWritten: Int {
        guard let server, server.isRunning,
            let io = try? String(contentsOfFile: "/proc/\(server.processIdentifier)/io", encoding: .utf8)
        else { return 0 }
        let line = io.split(separator: "\n").first { $0.hasPrefix("wchar:") }
        return line.flatMap { Int($0.dropFirst("wchar:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    /// Stops serving: connections are refused from now on.
    public func stop() {
        guard let server else { return }
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        self.server = nil
    }

    private static func answers(port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A port nothing listens on now (the system's choice for a socket bound to port 0).
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw LoopbackShareError("no socket") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw LoopbackShareError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

public struct LoopbackShareError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
