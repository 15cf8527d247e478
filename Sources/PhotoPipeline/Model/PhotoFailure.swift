import CGLib
import CSoup
import GLibKit

/// Why a photo could not be shown: what went wrong, as a typed value with the numbers and names
/// it concerns (`kind`, whose stable `reason` code is traced and matched by tests), and the full
/// detail for the tooltip and the trace. The few words a row shows are made from `kind` where
/// they are shown, in the language they are shown in (`summary(in:)`).
public struct PhotoFailure: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// Stable codes; the raw values are what the trace's `op.fail` carries as `reason`.
    public enum Reason: String, Sendable, CaseIterable, Codable {
        /// The server answered with a status other than 2xx.
        case http
        /// The connection failed (refused, reset, DNS, TLS).
        case transport
        /// The server or the file took too long.
        case timeout
        /// More bytes than a photo may have.
        case tooLarge = "too-large"
        /// More pixels than a photo may have.
        case tooManyPixels = "too-many-pixels"
        /// The bytes are not a picture any installed loader reads.
        case notImage = "not-image"
        /// A picture of a kind a loader here reads, which that loader refused: damaged, or a
        /// variant of the format it does not read.
        case damagedOrUnsupported = "damaged-or-unsupported"
        /// No bytes at all.
        case empty
        /// An address whose scheme the app refuses to follow (e.g. `file:` from a web list).
        case blockedScheme = "blocked-scheme"
        /// Too many redirects.
        case redirects
        /// An address on the user's own machine or private network, named by a list fetched from
        /// elsewhere (or reached through a redirect from elsewhere).
        case blockedAddress = "blocked-address"
        /// The decoder helper died (crashed, was killed, or ran out of memory) while decoding.
        case decoderCrashed = "decoder-crashed"
        /// An address scheme or picture format the app cannot read.
        case unsupported
        /// The address is not a valid URL.
        case invalidAddress = "invalid-address"
        /// The local file does not exist.
        case missing
        /// The local file exists but cannot be read (permissions, I/O error).
        case unreadable
        /// The work was cancelled (never shown, never traced as a failure).
        case cancelled
    }

    /// What went wrong, where a reason alone says too little: each says more in the row's few
    /// words, some with a value in them. It decides the reason.
    public enum Kind: Sendable, Equatable, Codable {
        /// Nothing more to say than the reason ("Timed out", "Not a picture").
        case plain(Reason)
        /// The server answered with `status`, not 2xx ("Not found (404)").
        case http(status: Int)
        /// A folder where a picture was to be read.
        case folder
        /// A device, FIFO or socket where a picture was to be read.
        case notRegularFile
        /// An address whose scheme is none of http, https and file.
        case unsupportedAddress
        /// The server sent another part of the photo than the one asked for.
        case wrongPart
        /// A picture of a known kind (`format`, as people call it: "BMP") whose loader refused
        /// it: damaged, or a variant of the format it does not read.
        case damaged(format: String)
        /// A picture of a kind the app does not open, though a loader may read it.
        case unsupportedPicture
        /// A picture in a format no installed loader reads; `name` as the desktop calls it.
        case formatNotSupported(name: String)
        /// A RAW file whose camera preview could not be read.
        case noRawPreview
        /// The decoder's pixels or file could not be handed back.
        case undecodable
        /// A video whose codec (as people call it: "H.265") no installed decoder reads.
        case codecMissing(codec: String)
        /// A video FFmpeg could not read a frame of: damaged, cut short, or holding no picture.
        case damagedVideo

        /// The stable code this kind of failure is traced with.
        public var reason: Reason {
            switch self {
            case .plain(let reason): reason
            case .http: .http
            case .notRegularFile: .blockedScheme
            case .unsupportedAddress, .unsupportedPicture, .formatNotSupported, .codecMissing: .unsupported
            case .wrongPart: .transport
            case .damaged, .damagedVideo: .damagedOrUnsupported
            case .folder, .noRawPreview, .undecodable: .notImage
            }
        }
    }

    /// What went wrong, with its values.
    public let kind: Kind
    /// The whole story, for the tooltip, the trace and logs (English).
    public let detail: String

    /// The stable code, traced as `op.fail`'s `reason`.
    public var reason: Reason { kind.reason }

    public init(_ kind: Kind, detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// A failure with nothing more to say than its reason.
    public init(_ reason: Reason, detail: String) {
        self.init(.plain(reason), detail: detail)
    }

    public var description: String { detail }

    /// Whether trying again may help, as Retry is offered only then: the network, a server's
    /// passing trouble, a timeout, a crashed decoder, or a file that may yet turn up, be made
    /// readable or be written whole. A format nothing here reads, an address that is refused
    /// or a picture over the limits will fail the same way again.
    public var retryHelps: Bool {
        switch kind {
        case .http(let status): status >= 500 || status == 408 || status == 429
        case .wrongPart: true
        case .plain(let reason):
            switch reason {
            case .transport, .timeout, .decoderCrashed, .missing, .unreadable, .empty, .http: true
            default: false
            }
        case .damaged, .folder, .notRegularFile, .unsupportedAddress, .unsupportedPicture, .formatNotSupported,
            .noRawPreview, .undecodable, .codecMissing, .damagedVideo:
            false
        }
    }
    public var isCancellation: Bool { reason == .cancelled }

    public static let cancelled = PhotoFailure(.cancelled, detail: "Cancelled")

    /// An HTTP status, with the server's reason phrase in the detail.
    public static func http(status: Int, phrase: String) -> PhotoFailure {
        PhotoFailure(.http(status: status), detail: "HTTP \(status)\(phrase.isEmpty ? "" : " \(phrase)")")
    }

    /// A few words for the row's subtitle, in English (as tests compare them): "Not found (404)".
    public var summary: String { summary(in: .english) }

    /// The few words in the user's language.
    public var localizedSummary: String { summary(in: .user) }

    /// The few words for the row's subtitle in `language`, made from the kind and its values
    /// (an HTTP status the way people know it: "Not found (404)").
    public func summary(in language: MessageCatalogue.Language) -> String {
        // Marks each message for extraction and translates it as it is used.
        func translatable(_ message: String) -> String { language.translate(message) }
        return switch kind {
        case .plain(let reason):
            switch reason {
            case .http: translatable("HTTP error")
            case .transport: translatable("Connection failed")
            case .timeout: translatable("Timed out")
            case .tooLarge: translatable("Too large")
            case .tooManyPixels: translatable("Too many pixels")
            case .notImage: translatable("Not a picture")
            case .damagedOrUnsupported: translatable("Damaged or unsupported picture")
            case .empty: translatable("Empty file")
            case .blockedScheme: translatable("Address not allowed")
            case .redirects: translatable("Too many redirects")
            case .blockedAddress: translatable("Private address not allowed")
            case .decoderCrashed: translatable("Decoder crashed")
            case .unsupported: translatable("Not supported")
            case .invalidAddress: translatable("Invalid address")
            case .missing: translatable("File not found")
            case .unreadable: translatable("Cannot be read")
            case .cancelled: translatable("Cancelled")
            }
        case .http(let status):
            switch status {
            case 401, 403: String(format: translatable("Access denied (%d)"), status)
            case 404, 410: String(format: translatable("Not found (%d)"), status)
            case 429: String(format: translatable("Too many requests (%d)"), status)
            case 500..<600: String(format: translatable("Server error (%d)"), status)
            default: String(format: translatable("HTTP error %d"), status)
            }
        case .folder: translatable("A folder, not a picture")
        case .notRegularFile: translatable("Not a regular file")
        case .unsupportedAddress: translatable("Unsupported address")
        case .wrongPart: translatable("Wrong part sent")
        case .damaged(let format): String(format: translatable("Damaged or unsupported %@ image"), format)
        case .unsupportedPicture: translatable("Unsupported picture")
        case .formatNotSupported(let name): String(format: translatable("Format not supported (%@)"), name)
        case .noRawPreview: translatable("No RAW preview")
        case .undecodable: translatable("Could not be decoded")
        case .codecMissing(let codec): String(format: translatable("%@ video: codec not installed"), codec)
        case .damagedVideo: translatable("Damaged video")
        }
    }
}

extension PhotoFailure {
    /// What was being done when a GLib error arrived, which decides what it means.
    public enum Origin: Sendable {
        /// Sending an HTTP request.
        case network
        /// Opening a local file.
        case file
        /// Reading the bytes of an open stream (either kind).
        case stream
    }

    /// Classifies a GIO / libsoup error.
    public init(_ error: GLibError, origin: Origin) {
        let detail = error.message
        if error.isCancellation { self = .cancelled; return }
        if error.isIOError(G_IO_ERROR_TIMED_OUT) {
            self.init(.timeout, detail: detail)
            return
        }
        let soupSession = String(cString: g_quark_to_string(soup_session_error_quark()))
        if error.domain == soupSession, error.code == Int32(SOUP_SESSION_ERROR_TOO_MANY_REDIRECTS.rawValue) {
            self.init(.redirects, detail: detail)
            return
        }
        switch origin {
        case .file:
            if error.isIOError(G_IO_ERROR_NOT_FOUND) {
                self.init(.missing, detail: detail)
            } else if error.isIOError(G_IO_ERROR_IS_DIRECTORY) {
                self.init(.folder, detail: detail)
            } else {
                self.init(.unreadable, detail: detail)
            }
        case .network:
            self.init(.transport, detail: detail)
        case .stream:
            // A local read error is the file's; anything else is the connection's.
            let io = String(cString: g_quark_to_string(g_io_error_quark()))
            let local =
                error.domain == io
                && [G_IO_ERROR_PERMISSION_DENIED, G_IO_ERROR_IS_DIRECTORY, G_IO_ERROR_NOT_FOUND]
                    .contains { error.code == Int32($0.rawValue) }
            self.init(local ? .unreadable : .transport, detail: detail)
        }
    }
}
