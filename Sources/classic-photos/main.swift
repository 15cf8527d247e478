// Classic Photos: the executable only hands over to the app module.
import ClassicPhotosUI
import Foundation

exit(MainActor.assumeIsolated { ClassicPhotosApp.main(arguments: CommandLine.arguments) })
