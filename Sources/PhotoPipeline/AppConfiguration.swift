import Foundation

/// What the environment asks of the app: its `CLASSIC_PHOTOS_*` variables, read once as the
/// process starts and handed to what they change.
///
/// Every variable is spelled in `Variable` and parsed in `fromEnvironment(_:)`, nowhere else.
/// Switches that exist only for tests and debugging are kept apart in `testSwitches`.
public struct AppConfiguration: Sendable, Equatable {
    /// The variables, as the environment names them.
    public enum Variable: String, CaseIterable, Sendable {
        case trace = "CLASSIC_PHOTOS_TRACE"
        case localeDirectory = "CLASSIC_PHOTOS_LOCALEDIR"
        case dataDirectory = "CLASSIC_PHOTOS_DATADIR"
        case decoder = "CLASSIC_PHOTOS_DECODER"
        case decodeSeconds = "CLASSIC_PHOTOS_DECODE_SECONDS"
        case sandbox = "CLASSIC_PHOTOS_SANDBOX"
        case decoderFaults = "CLASSIC_PHOTOS_DECODER_FAULTS"
        case scrollQuietMilliseconds = "CLASSIC_PHOTOS_SCROLL_QUIET_MS"
        case traceFrames = "CLASSIC_PHOTOS_TRACE_FRAMES"
        case publicAddresses = "CLASSIC_PHOTOS_PUBLIC_ADDRESSES"
        case watchLimit = "CLASSIC_PHOTOS_WATCH_LIMIT"
        case watchDelay = "CLASSIC_PHOTOS_WATCH_DELAY_MS"
        case treeLead = "CLASSIC_PHOTOS_TREE_LEAD"
        case fileWorkDelay = "CLASSIC_PHOTOS_FILE_WORK_DELAY_MS"
        case listRestDelay = "CLASSIC_PHOTOS_LIST_REST_DELAY_MS"
    }

    /// How pictures are decoded (`CLASSIC_PHOTOS_SANDBOX`).
    public enum SandboxMode: Sendable, Equatable {
        /// In confined helpers, under bubblewrap where it is installed (unset, or anything else).
        case confined
        /// In helpers with seccomp and the memory limit, without bubblewrap (`no-bwrap`).
        case withoutBubblewrap
        /// In the app's own process (`off`: for debugging only).
        case off
    }

    /// Switches for tests and debugging; a person using the app never sets them.
    public struct TestSwitches: Sendable, Equatable {
        /// Decoder helpers carry out the fault requests tests send (`CLASSIC_PHOTOS_DECODER_FAULTS=1`).
        public var decoderFaults = false
        /// How long the list must be still before scrolling counts as ended, in milliseconds
        /// (`CLASSIC_PHOTOS_SCROLL_QUIET_MS`; tests, slow machines).
        public var scrollQuietMilliseconds: UInt32 = 150
        /// Every painted frame of the main window is traced (`CLASSIC_PHOTOS_TRACE_FRAMES=1`; the
        /// benchmark takes frame intervals from these).
        public var traceFrames = false
        /// Addresses taken as public although they are not, so that the private-network
        /// protection can be tried on one computer (`CLASSIC_PHOTOS_PUBLIC_ADDRESSES`, comma-separated).
        public var publicAddresses: [String] = []
        /// The most folders one window watches, instead of what the system allows
        /// (`CLASSIC_PHOTOS_WATCH_LIMIT`; tests of what happens at the limit).
        public var watchLimit: Int?
        /// How long each folder's watch waits before it begins, in milliseconds
        /// (`CLASSIC_PHOTOS_WATCH_DELAY_MS`; tests of files made before a folder is watched).
        public var watchDelayMilliseconds: UInt32 = 0
        /// A big tree sorted by date shows its first rows from the index even when its folders
        /// were read first (`CLASSIC_PHOTOS_TREE_LEAD=always`; tests, which then see it whatever
        /// the timing).
        public var treeLeadAlways = false
        /// How long work on many photos at once waits before each file, in milliseconds
        /// (`CLASSIC_PHOTOS_FILE_WORK_DELAY_MS`; tests of its progress and of Cancel).
        public var fileWorkDelayMilliseconds: UInt32 = 0
        /// How long a folder's reading waits before it hands over what follows its first rows,
        /// in milliseconds (`CLASSIC_PHOTOS_LIST_REST_DELAY_MS`; tests that act while a big
        /// folder is still coming in, whatever the machine's speed).
        public var listRestDelayMilliseconds: UInt32 = 0

        public init() {}
    }

    /// Where to write the trace, unless `--trace` says (`CLASSIC_PHOTOS_TRACE`; empty: none).
    public var tracePath: String?
    /// The compiled message catalogues, instead of the installed or built ones (`CLASSIC_PHOTOS_LOCALEDIR`).
    public var localeDirectory: String?
    /// The app's data folder, if it holds the bundled list (`CLASSIC_PHOTOS_DATADIR`).
    public var dataDirectory: String?
    /// The decoder helper to run, if it is executable, instead of the one beside the app
    /// (`CLASSIC_PHOTOS_DECODER`).
    public var decoderPath: String?
    /// How long one decode may take, in seconds (`CLASSIC_PHOTOS_DECODE_SECONDS`).
    public var decodeSeconds: Double = 30
    public var sandbox = SandboxMode.confined
    /// Where programs the app starts (bubblewrap) are looked for: `PATH`.
    public var programSearchPath = "/usr/bin:/bin"
    public var testSwitches = TestSwitches()

    /// The defaults: what an environment without any of the variables gives.
    public init() {}

    /// The configuration `environment` describes; a value that cannot be read leaves the default.
    public static func fromEnvironment(_ environment: [String: String]) -> AppConfiguration {
        func value(_ variable: Variable) -> String? { environment[variable.rawValue] }
        var configuration = AppConfiguration()
        configuration.tracePath = value(.trace)
        configuration.localeDirectory = value(.localeDirectory).flatMap { $0.isEmpty ? nil : $0 }
        configuration.dataDirectory = value(.dataDirectory)
        configuration.decoderPath = value(.decoder)
        if let seconds = value(.decodeSeconds).flatMap(Double.init) { configuration.decodeSeconds = seconds }
        switch value(.sandbox) {
        case "off": configuration.sandbox = .off
        case "no-bwrap": configuration.sandbox = .withoutBubblewrap
        default: configuration.sandbox = .confined
        }
        if let path = environment["PATH"] { configuration.programSearchPath = path }
        configuration.testSwitches.decoderFaults = value(.decoderFaults) == "1"
        if let quiet = value(.scrollQuietMilliseconds).flatMap(UInt32.init) {
            configuration.testSwitches.scrollQuietMilliseconds = quiet
        }
        configuration.testSwitches.traceFrames = value(.traceFrames) == "1"
        configuration.testSwitches.watchLimit = value(.watchLimit).flatMap { Int($0) }
        if let delay = value(.watchDelay).flatMap(UInt32.init) {
            configuration.testSwitches.watchDelayMilliseconds = delay
        }
        configuration.testSwitches.treeLeadAlways = value(.treeLead) == "always"
        if let delay = value(.fileWorkDelay).flatMap(UInt32.init) {
            configuration.testSwitches.fileWorkDelayMilliseconds = delay
        }
        if let delay = value(.listRestDelay).flatMap(UInt32.init) {
            configuration.testSwitches.listRestDelayMilliseconds = delay
        }
        configuration.testSwitches.publicAddresses = (value(.publicAddresses) ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return configuration
    }

    /// This process's configuration, read from its environment once, at its first use (the
    /// app's `main` reads it first thing). What lives as long as the process (the shared
    /// decoder pool, the addresses taken as public, the decoder helper) takes it from here.
    public static let current = fromEnvironment(ProcessInfo.processInfo.environment)
}
