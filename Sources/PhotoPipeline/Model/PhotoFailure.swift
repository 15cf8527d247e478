import CGLib
import CSoup
import GLibKit

/// Why a photo could not be shown: a stable reason code (traced, and matched by tests), a
/// short phrase for the row's subtitle, and the full detail for its tooltip.
public struct PhotoFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable codes; the raw values are what the trace's `op.fail` carries as `reason`.
    public enum Reason: String, Sendable, CaseIterable {
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

    public let reason: Reason
    /// A few words for the row's subtitle: "Not found (404)", "Timed out", "Not a picture".
    public let summary: String
    /// The whole story, for the tooltip and logs.
    public let detail: String

    public init(_ reason: Reason, summary: String? = nil, detail: String) {
        self.reason = reason
        self.summary = summary ?? Self.defaultSummary(reason)
        self.detail = detail
    }

    public var description: String { detail }
    public var isCancellation: Bool { reason == .cancelled }

    public static let cancelled = PhotoFailure(.cancelled, detail: "Cancelled")

    /// An HTTP status, summarised the way people know it ("Not found (404)").
    public static func http(status: Int, phrase: String) -> PhotoFailure {
        let summary: String
        switch status {
        case 401, 403: summary = String(format: translatable("Access denied (%d)"), status)
        case 404, 410: summary = String(format: translatable("Not found (%d)"), status)
        case 429: summary = String(format: translatable("Too many requests (%d)"), status)
        case 500..<600: summary = String(format: translatable("Server error (%d)"), status)
        default: summary = String(format: translatable("HTTP error %d"), status)
        }
        return PhotoFailure(.http, summary: summary, detail: "HTTP \(status)\(phrase.isEmpty ? "" : " \(phrase)")")
    }

    static func defaultSummary(_ reason: Reason) -> String {
        switch reason {
        case .http: translatable("HTTP error")
        case .transport: translatable("Connection failed")
        case .timeout: translatable("Timed out")
        case .tooLarge: translatable("Too large")
        case .tooManyPixels: translatable("Too many pixels")
        case .notImage: translatable("Not a picture")
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
    }

    /// The summary in the user's language. Summaries stay English in the value (it is traced,
    /// and may come from a decoder helper), so they are looked up here: as they are, or, for
    /// those with a number or a name in them, by the template they were made from.
    public var localizedSummary: String {
        let translated = MessageCatalogue.translate(summary)
        if translated != summary { return translated }
        for template in Self.summaryTemplates {
            guard let placeholder = ["%d", "%@"].first(where: template.contains) else { continue }
            let parts = template.components(separatedBy: placeholder)
            guard parts.count == 2, summary.count > parts[0].count + parts[1].count, summary.hasPrefix(parts[0]),
                summary.hasSuffix(parts[1])
            else { continue }
            let value = String(summary.dropFirst(parts[0].count).dropLast(parts[1].count))
            let localized = MessageCatalogue.translate(template)
            guard let target = ["%1$d", "%1$@", placeholder].first(where: localized.contains) else { return summary }
            return localized.replacingOccurrences(of: target, with: value)
        }
        return summary
    }

    /// The summaries made with a value in them.
    static let summaryTemplates = [
        translatable("Access denied (%d)"), translatable("Not found (%d)"), translatable("Too many requests (%d)"),
        translatable("Server error (%d)"), translatable("HTTP error %d"), translatable("Format not supported (%@)"),
    ]
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
                self.init(.notImage, summary: translatable("A folder, not a picture"), detail: detail)
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
