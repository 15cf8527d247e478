import Foundation
import GLibKit

/// Polls `condition` on the main actor, turning the GLib main loop between looks, until it
/// holds or `seconds` pass; whether it came to hold.
@MainActor
public func waitUntil(_ seconds: Double = 15, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        await MainLoop.turn(milliseconds: 10)
    }
    return true
}
