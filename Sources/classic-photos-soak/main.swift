import Foundation

// Drives the real app under Xvfb with a seeded random sequence of what people do, for a given
// time, and checks it after every step (see Soak). A failure prints the seed and the step;
// the same seed replays the same steps. meson-helpers/run-soak.sh runs it.

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}
say(
    "soak: seed \(options.seed), \(Int(options.seconds)) s at \(options.rate) actions a second, "
        + "\(options.photos) photos, the \(options.configuration) build")
// The run, its photos and the servers, bus and display they need live in `soak(_:)`, and go
// (photos removed unless kept, processes stopped) when it returns, before the exit: made at
// the top level they would outlive it, and every run would leave its Xvfb, D-Bus, WebDAV
// server and photos behind.
exit(soak(options))

/// Runs the soak `options` ask for; the exit status.
func soak(_ options: Options) -> Int32 {
    let made = Date()
    let fixtures: Fixtures
    do {
        fixtures = try Fixtures(photos: options.photos, keep: options.keep)
    } catch {
        say("soak: the photos could not be made ready: \(error)")
        return 1
    }
    say(String(format: "soak: photos ready in %.1f s under %@", Date().timeIntervalSince(made), fixtures.top.path))

    var soak: Soak?
    let began = Date()
    do {
        let run = try Soak(options: options, fixtures: fixtures)
        soak = run
        try run.run()
    } catch {
        let step = soak?.step ?? 0
        say("soak: FAILED at step \(step) (seed \(options.seed)): \(error)")
        if let soak { say("soak: the screenshot, the trace and the photos are kept in \(soak.keepEvidence())") }
        say(
            "soak: replay with meson-helpers/run-soak.sh --seed \(options.seed) --steps \(step) --configuration \(options.configuration)"
        )
        return 1
    }
    guard let run = soak else { return 1 }
    let elapsed = Date().timeIntervalSince(began)
    let perThousand = Double(run.stalls.count) * 1_000 / Double(max(1, run.step))
    say(
        String(
            format:
                "soak: passed: %d steps in %.0f s (%.2f a second), %d launches, %d settle checks; stalls of 50 ms or more: %d (%.1f per 1,000 actions%@); disk work on the main thread: %d times; peak resident memory %d MB",
            run.step, elapsed, Double(run.step) / elapsed, run.launches, run.settleChecks, run.stalls.count,
            perThousand, run.stalls.max().map { String(format: ", longest %.0f ms", $0) } ?? "", run.ioOnMain.count,
            run.peakResidentMB))
    if !run.ioOnMain.isEmpty {
        let places = Dictionary(grouping: run.ioOnMain, by: { $0 }).map { "\($0.key) ×\($0.value.count)" }.sorted()
        say("soak: disk work on the main thread: " + places.joined(separator: ", "))
    }
    if let most = options.maxStallsPerThousand, perThousand > most {
        say(String(format: "soak: FAILED: %.1f stalls per 1,000 actions, over %.1f", perThousand, most))
        return 1
    }
    return 0
}

/// Prints a line at once (standard output may be a pipe, which would hold it back).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
