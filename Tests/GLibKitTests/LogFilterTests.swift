import Foundation
import Testing
import TestSupport

/// The app's log writer, in a process of its own (GLib allows one writer a process).
@Suite struct LogFilterTests {
    @Test("GVFS's warning about a connection the app cancelled is a debug message; its other warnings stay warnings")
    func cancelledConnection() async throws {
        let result = try await run(Products.executable("glibkit-probe"), ["log"], timeout: 60)
        #expect(result.status == 0, "probe failed: \(result.stderr)")
        #expect(
            result.stderr.contains("GVFS-WARNING") && result.stderr.contains("Permission denied"), "\(result.stderr)")
        #expect(!result.stderr.contains("Operation was cancelled"), "\(result.stderr)")
        // Asked for, debug messages show it (GLib writes them to the standard output).
        let debug = try await run(
            Products.executable("glibkit-probe"), ["log"], environment: ["G_MESSAGES_DEBUG": "GVFS"], timeout: 60)
        #expect(
            debug.stdout.contains("GVFS-DEBUG") && debug.stdout.contains("Operation was cancelled"), "\(debug.stdout)")
    }
}
