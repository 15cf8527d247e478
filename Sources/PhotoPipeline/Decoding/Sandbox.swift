import Foundation

/// How a decoder helper's world is set up: bubblewrap's arguments and the environment it gets.
enum Sandbox {
    /// bubblewrap's arguments for a helper at `helper`: every namespace of its own (so no
    /// network: only a loopback device nobody listens on) and no more after that, no
    /// capabilities, gone with the app; read-only `/usr` (and the top-level links into it), the helper
    /// itself and the folders of the libraries it loads from elsewhere (Swift's runtime, say);
    /// a private `/proc` and a minimal `/dev`; nothing else, so no home folder,
    /// no `/tmp`, no sockets of other programs.
    ///
    /// It runs in a session of its own (`--new-session`): no controlling terminal to type into.
    /// Linux schedules each session as a group (autogroup) weighing as much as a whole
    /// program, so the helper lowers its group's weight as it starts (see the helper's `main`).
    static func bubblewrapArguments(helper: String) -> [String] {
        var arguments = [
            "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL",
            "--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev",
            "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
        ]
        for top in ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] {
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: top) {
                arguments += ["--symlink", target, top]
            } else {
                arguments += ["--ro-bind-try", top, top]
            }
        }
        for folder in libraryFolders(of: helper).sorted() where !folder.hasPrefix("/usr/") {
            arguments += ["--ro-bind", folder, folder]
        }
        for file in pixbufModuleFiles(ProcessInfo.processInfo.environment["GDK_PIXBUF_MODULE_FILE"]) {
            arguments += ["--ro-bind", file, file]
        }
        arguments += ["--ro-bind", helper, helper, "--chdir", "/"]
        return arguments
    }

    /// When gdk-pixbuf is told to read its list of loaders from somewhere else
    /// (`GDK_PIXBUF_MODULE_FILE`, an absolute path), that file and the loaders it names outside
    /// `/usr`: each file on its own, never the folders around them (which could be home).
    static func pixbufModuleFiles(_ moduleFile: String?) -> [String] {
        guard let moduleFile, moduleFile.hasPrefix("/"), !moduleFile.hasPrefix("/usr/"),
            let listing = try? String(contentsOfFile: moduleFile, encoding: .utf8)
        else { return [] }
        // A loader's entry starts with its path, quoted, alone on a line.
        let loaders = listing.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("\"/"), let end = line.dropFirst().firstIndex(of: "\"") else { return nil }
            let path = String(line[line.index(after: line.startIndex)..<end])
            return path.hasPrefix("/usr/") || !FileManager.default.fileExists(atPath: path) ? nil : path
        }
        return [moduleFile] + loaders
    }

    /// The folders of the shared libraries `helper` loads, as the dynamic loader finds them
    /// (what `ldd` prints: the loader lists them instead of running the program), with
    /// symbolic links and `..` resolved.
    static func libraryFolders(of helper: String) -> Set<String> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: helper)
        process.environment = ["LD_TRACE_LOADED_OBJECTS": "1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return [] }
        let listing = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var folders: Set<String> = []
        for line in String(decoding: listing, as: UTF8.self).split(separator: "\n") {
            // "\tlibfoo.so.1 => /path/libfoo.so.1 (0x…)", or "\t/lib64/ld-linux-x86-64.so.2 (0x…)"
            let path = line.split(separator: " ").first { $0.hasPrefix("/") }
            guard let path, let real = realpath(String(path), nil) else { continue }
            defer { free(real) }
            folders.insert((String(cString: real) as NSString).deletingLastPathComponent)
        }
        return folders
    }

    /// What a helper inherits of the app's environment: its language (for messages), where
    /// gdk-pixbuf's loaders are listed when that was changed, the sanitizers' settings in
    /// builds that have them, and test faults when they were asked for; nothing else.
    static func helperEnvironment(faults: Bool) -> [String] {
        let environment = ProcessInfo.processInfo.environment
        var kept = environment.filter { name, _ in
            ["LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "GDK_PIXBUF_MODULE_FILE"].contains(name)
                || name.hasPrefix("TSAN_") || name.hasPrefix("ASAN_") || name.hasPrefix("UBSAN_")
        }
        if faults { kept[AppConfiguration.Variable.decoderFaults.rawValue] = "1" }
        // Swift's crash reporter would start a program to print the backtrace: the filter
        // kills a helper that tries, and the app reports the crash itself.
        kept["SWIFT_BACKTRACE"] = "enable=no"
        return kept.map { "\($0.key)=\($0.value)" }.sorted()
    }
}
