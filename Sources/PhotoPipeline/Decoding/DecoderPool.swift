import Foundation
import GLibKit
import Synchronization

/// The decoder helpers: separate processes (`classic-photos-decoder`) that decode every
/// picture the app shows, so that a decoder's crash, endless loop or runaway allocation costs
/// one photo, not the app.
///
/// Each helper runs under bubblewrap (no network, no home, a read-only `/usr`, its own
/// namespaces and session, gone with the app), with a seccomp filter (no sockets, no files
/// opened for writing, no exec) and an address-space limit. Where bubblewrap cannot run
/// (no user namespaces), the helpers keep the filter and the limit, and the app says so once.
///
/// A worker thread takes an idle helper (or starts one, up to `maxHelpers`; beyond that it
/// waits its turn), sends it the picture on a descriptor (a memfd of bytes in memory, or the
/// open file), and waits for the pixels in a sealed memfd. A helper that dies fails that
/// picture with `decoder-crashed`; one past the deadline is killed and fails it with
/// `timeout`; either way the next picture gets a fresh helper. Helpers idle for
/// `idleSeconds` leave.
///
/// The pool reads the configuration and chooses how its pictures are decoded (`decoding`).
/// Its helpers are kept, and spoken to, by a `HelperRoster`, and started by a `HelperLauncher`.
public final class DecoderPool: Sendable {
    /// How decodes are run.
    public enum Confinement: Sendable, Equatable {
        /// Helpers under bubblewrap, with seccomp and the memory limit.
        case bubblewrap
        /// Helpers with seccomp and the memory limit, without bubblewrap (the reason).
        case processes(String)
        /// In the app's own process (`CLASSIC_PHOTOS_SANDBOX=off`: for debugging only).
        case inProcess
    }

    /// The pool the app decodes in, as the process configuration asks.
    public static let shared = DecoderPool(configuration: .current)

    /// The most helpers at once: one a core for the rows, and one more so that a photo's
    /// quick embedded preview need not wait behind the decodes of whole photos.
    public let maxHelpers: Int
    /// How long one decode may take.
    public let deadlineSeconds: Double
    /// How long a helper may stay idle before it leaves.
    public let idleSeconds: Double
    /// The address space each helper may use.
    public let addressSpaceBytes: UInt64
    /// How this pool's pictures are decoded: in its helpers, or in the app itself (chosen once,
    /// from the configuration, as the pool is made).
    let decoding: any PictureDecoding

    /// The helpers (none where pictures are decoded in the app).
    private let helpers: HelperRoster?
    private let helperFound: Bool
    private let notice: ConfinementNotice

    public init(
        configuration: AppConfiguration = .current,
        maxHelpers: Int = ProcessInfo.processInfo.activeProcessorCount + 1, idleSeconds: Double = 20
    ) {
        self.maxHelpers = max(1, maxHelpers)
        self.idleSeconds = idleSeconds
        deadlineSeconds = configuration.decodeSeconds
        let addressSpace: UInt64 = 1 << 30
        addressSpaceBytes = addressSpace
        let helperPath = Self.findHelper(configuration.decoderPath)
        let bubblewrapPath = Self.findProgram("bwrap", in: configuration.programSearchPath)
        let found = helperPath != nil
        helperFound = found
        let confinement: Confinement
        switch configuration.sandbox {
        case .off: confinement = .inProcess
        case .withoutBubblewrap: confinement = .processes("turned off by CLASSIC_PHOTOS_SANDBOX=no-bwrap")
        case .confined:
            if helperPath == nil {
                confinement = .inProcess
            } else if bubblewrapPath == nil {
                confinement = .processes("bwrap is not installed")
            } else {
                confinement = .bubblewrap
            }
        }
        notice = ConfinementNotice {
            DecoderPool.sentence(for: $0, addressSpaceBytes: addressSpace, helperFound: found)
        }
        if confinement == .inProcess {
            helpers = nil
            decoding = InProcessDecoding()
        } else {
            let launcher = HelperLauncher(
                helperPath: helperPath, bubblewrapPath: bubblewrapPath, addressSpaceBytes: addressSpace,
                faults: configuration.testSwitches.decoderFaults)
            let roster = HelperRoster(
                launcher: launcher, confinement: confinement, maxHelpers: self.maxHelpers, idleSeconds: idleSeconds,
                deadlineSeconds: deadlineSeconds, notice: notice)
            helpers = roster
            decoding = ConfinedDecoding(helpers: roster)
        }
    }

    /// How decodes are run now (bubblewrap may turn out not to work at the first start).
    public var confinement: Confinement { helpers?.confinement ?? .inProcess }

    /// The processes this pool started that are still there: the helpers, or the bubblewrap
    /// processes they run under (for tests and diagnostics).
    public var processIdentifiers: [pid_t] { helpers?.processIdentifiers ?? [] }

    /// Helpers started, and helpers that died or were killed, since the pool was made.
    public var counts: (started: Int, crashed: Int) { helpers?.counts ?? (0, 0) }

    /// A sentence for logs and the About window's troubleshooting information.
    public var confinementDescription: String {
        Self.sentence(for: confinement, addressSpaceBytes: addressSpaceBytes, helperFound: helperFound)
    }

    private static func sentence(for confinement: Confinement, addressSpaceBytes: UInt64, helperFound: Bool) -> String {
        let limit = "\(addressSpaceBytes >> 30) GiB of address space"
        switch confinement {
        case .bubblewrap:
            return "Pictures are decoded in helper processes confined by bubblewrap (no network, no home folder, "
                + "read-only system files), a seccomp filter and \(limit) each."
        case .processes(let reason):
            return "Pictures are decoded in helper processes with a seccomp filter and \(limit) each, "
                + "but without bubblewrap: \(reason)."
        case .inProcess:
            return !helperFound
                ? "Pictures are decoded inside the app: the decoder helper (classic-photos-decoder) was not found."
                : "Pictures are decoded inside the app: confinement is turned off (CLASSIC_PHOTOS_SANDBOX=off)."
        }
    }

    /// Says once, on standard error, how pictures are decoded when it is less than it should be.
    public func reportConfinementOnce() { notice.sayOnce { confinement } }

    /// Starts one helper now, in the background, unless one is there or starting, so that the
    /// first picture does not wait for it: the app calls this as it starts, while its main
    /// thread builds the window and the other core has little to do.
    public func prepare() { helpers?.prepare() }

    private static func findHelper(_ given: String?) -> String? {
        if let given, access(given, X_OK) == 0 { return given }
        // Beside the app (a build folder, or bin/), else in libexec/ beside bin/.
        guard let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let executable = URL(fileURLWithPath: own).deletingLastPathComponent()
        for candidate in [
            executable.appendingPathComponent("classic-photos-decoder"),
            executable.deletingLastPathComponent().appendingPathComponent("libexec/classic-photos-decoder"),
        ] where access(candidate.path, X_OK) == 0 {
            return candidate.path
        }
        return nil
    }

    private static func findProgram(_ name: String, in path: String) -> String? {
        path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}

/// Says once, on standard error, how a pool's pictures are decoded when that is less than it
/// should be: when the app asks, or when bubblewrap turns out not to work at the first start,
/// whichever comes first.
final class ConfinementNotice: Sendable {
    private let said = Atomic<Bool>(false)
    private let sentence: @Sendable (DecoderPool.Confinement) -> String

    init(sentence: @escaping @Sendable (DecoderPool.Confinement) -> String) { self.sentence = sentence }

    /// Says how pictures are decoded (`confinement`, read once this is the first time), unless
    /// it was said before or it is under bubblewrap.
    func sayOnce(_ confinement: () -> DecoderPool.Confinement) {
        guard !said.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let now = confinement()
        guard now != .bubblewrap else { return }
        FileHandle.standardError.write(Data("classic-photos: \(sentence(now))\n".utf8))
    }
}
