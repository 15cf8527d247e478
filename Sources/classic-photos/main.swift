// Classic Photos: the executable only hands over to the app module.
import ClassicPhotosUI
import Foundation

// Top-level code runs on the main thread, which then runs the GLib loop until the app quits:
// the main actor's work begins here, it is not a hop to it.
exit(MainActor.assumeIsolated { ClassicPhotosApp.main(arguments: CommandLine.arguments) })
