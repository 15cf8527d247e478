// The benchmark's output: Markdown printed as the figures come in, and written as a whole
// document (machine, how to reproduce, targets, then every section) with --write.
import Foundation
import TestSupport

/// One of the figures the app aims for (a target), with the figure measured for it.
struct TargetResult {
    let name: String
    let target: String
    let measured: String
    /// nil when the figure could not be taken in this run.
    let met: Bool?
}

@MainActor
final class Report {
    private(set) var body = ""
    private(set) var targets: [TargetResult] = []

    /// Appends Markdown text (a blank line after it) and prints it.
    func add(_ markdown: String) {
        let text = markdown.hasSuffix("\n") ? markdown : markdown + "\n"
        body += text + "\n"
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    func heading(_ title: String) { add("## " + title) }

    func table(_ header: [String], _ rows: [[String]]) {
        var text = "| " + header.joined(separator: " | ") + " |\n"
        text += "|" + header.map { _ in "---" }.joined(separator: "|") + "|\n"
        for row in rows { text += "| " + row.joined(separator: " | ") + " |\n" }
        add(text)
    }

    /// Records a target and prints its line next to the figure.
    func target(_ name: String, target: String, measured: String, met: Bool?) {
        targets.append(TargetResult(name: name, target: target, measured: measured, met: met))
        add("Target — \(name): \(target); measured \(measured): **\(Self.verdict(met))**")
    }

    static func verdict(_ met: Bool?) -> String {
        switch met {
        case true?: "met"
        case false?: "not met"
        case nil: "not measured"
        }
    }

    /// The targets as a table, in the order they were measured.
    var targetTable: String {
        guard !targets.isEmpty else { return "No target was measured in this run.\n" }
        var text = "| target | goal | measured | |\n|---|---|---|---|\n"
        for t in targets { text += "| \(t.name) | \(t.target) | \(t.measured) | \(Self.verdict(t.met)) |\n" }
        return text
    }

    /// The whole document.
    func document(command: String, machine: Machine, startLoad: String, endLoad: String, seconds: Double) -> String {
        var text = """
            # Benchmarks

            Written by `\(command)` on \(machine.date) in \(Int(seconds.rounded())) s. Every figure \
            below was measured in that one run, on photos the run generated (and on the photos \
            bundled in `data/photos`); nothing is copied from elsewhere. Each figure is the median \
            of the rounds named with it. Load average when the run began: \(startLoad); when it \
            ended: \(endLoad) (the machine has \(machine.cores) cores; a load near or above that \
            means other work shared it and the figures are noisy).

            To reproduce: `meson-helpers/run-bench.sh --write BENCHMARKS.md` (installs the peer \
            tools if missing, builds the app and the benchmark in release mode, runs every section \
            and rewrites this file). `meson-helpers/run-bench.sh --only thumbnails,sepia` runs \
            some sections and prints them without writing; `--rounds N` changes the rounds.

            ## Machine

            \(machine.markdown)
            ## Targets

            The figures the app aims for, each judged from the figure measured in this run.

            \(targetTable)

            """
        text += body
        return text
    }
}

/// What the figures were measured on.
struct Machine {
    let cores: Int
    let cpu: String
    let memory: String
    let system: String
    let kernel: String
    let tools: [(String, String)]
    let date: String

    static func describe() -> Machine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let cpu =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
            ?? "unknown"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let kB =
            meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } } ?? 0
        let osRelease = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
        let pretty =
            osRelease.split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }
            .map { $0.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            ?? "unknown"
        let debian = ((try? String(contentsOfFile: "/etc/debian_version", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var name = utsname()
        uname(&name)
        let kernel = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.dateFormat = "d MMMM yyyy, HH:mm"
        return Machine(
            cores: ProcessInfo.processInfo.activeProcessorCount, cpu: cpu,
            memory: String(format: "%.1f GB", Double(kB) / 1_048_576),
            system: pretty + (debian.isEmpty ? "" : " (\(debian))"), kernel: kernel,
            tools: toolVersions(), date: formatter.string(from: Date()))
    }

    var markdown: String {
        var text = """
            | | |
            |---|---|
            | CPU | \(cpu), \(cores) cores |
            | memory | \(memory) |
            | system | \(system), Linux \(kernel) |

            """
        text += "\n| software | version |\n|---|---|\n"
        for (tool, version) in tools { text += "| \(tool) | \(version) |\n" }
        return text
    }

    /// Versions of the libraries and peer tools, from the package database and the tools.
    private static func toolVersions() -> [(String, String)] {
        func package(_ name: String) -> String {
            guard
                let result = try? run(
                    URL(fileURLWithPath: "/usr/bin/dpkg-query"), ["-W", "-f", "${Version}", name], timeout: 10),
                result.status == 0, !result.stdout.isEmpty
            else { return "not installed" }
            return result.stdout
        }
        func firstLine(_ path: String, _ arguments: [String]) -> String {
            guard FileManager.default.isExecutableFile(atPath: path),
                let result = try? run(URL(fileURLWithPath: path), arguments, timeout: 30)
            else { return "not installed" }
            let text = result.stdout.isEmpty ? result.stderr : result.stdout
            return text.split(separator: "\n").first.map(String.init) ?? "?"
        }
        return [
            ("Swift", firstLine("/usr/bin/env", ["swift", "--version"])),
            ("GTK 4", package("libgtk-4-1")),
            ("libadwaita", package("libadwaita-1-0")),
            ("GdkPixbuf (and gdk-pixbuf-thumbnailer)", package("libgdk-pixbuf-2.0-0")),
            ("libjpeg-turbo", package("libjpeg62-turbo")),
            ("libsoup 3", package("libsoup-3.0-0")),
            (
                "ImageMagick",
                firstLine("/usr/bin/convert", ["-version"])
                    .replacingOccurrences(of: "Version: ", with: "").components(separatedBy: " http").first ?? "?"
            ),
            ("vipsthumbnail (libvips)", firstLine("/usr/bin/vips", ["--version"])),
            ("curl", firstLine("/usr/bin/curl", ["--version"]).components(separatedBy: " (").first ?? "?"),
            ("Xvfb", package("xvfb")),
            ("xdotool", package("xdotool")),
            ("eog", package("eog")),
            ("gThumb", package("gthumb")),
            ("exiftool", package("libimage-exiftool-perl")),
        ]
    }
}

/// The load average over the last minute, as /proc/loadavg has it.
func loadAverage() -> String {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
    return text.split(separator: " ").first.map(String.init) ?? "?"
}
