import CGLib
import CSoup
import Foundation

/// A whole response body, and until when it may be used without asking the server again.
public struct HTTPResponse: Sendable {
    public let data: Data
    /// From the response's caching headers; nil if it may not be kept.
    public let freshUntil: Date?
    /// For the first bytes of a photo (`HTTPClient.fetchHead`) that the server sent alone: the
    /// whole photo's size (0 when the server did not say). Nil for a whole body.
    public var partialOf: Int? = nil
    /// Where the servers that answered are (the redirects' too): `.local` if all are on this
    /// computer or its network, `.public` if any is not; nil if none was seen (the answer came
    /// from the disk cache, or through a proxy).
    public var reached: AddressScope? = nil

    public init(data: Data, freshUntil: Date?, partialOf: Int? = nil) {
        self.data = data
        self.freshUntil = freshUntil
        self.partialOf = partialOf
    }
}

/// What a request for the first bytes of a photo got.
public enum HTTPHead: Sendable {
    /// The bytes asked for alone (a 206 whose `Content-Range` starts at 0 and matches the
    /// body), with the caching headers and the photo's whole size (nil if not given).
    case partial(Data, totalBytes: Int?, freshUntil: Date?)
    /// The whole photo: the server ignored `Range` (200), or the photo is no longer than what
    /// was asked for.
    case whole(HTTPResponse)
}

extension HTTPClient {
    /// Until when a response may be used without asking the server again, from its
    /// `Cache-Control: max-age` (less its `Age`) or else its `Expires` (against its `Date`);
    /// nil when it says nothing, or `no-store` or `no-cache`.
    static func freshUntil(
        cacheControl: String?, age: String?, expires: String?, date: String?, now: Date = Date()
    ) -> Date? {
        let directives = (cacheControl ?? "").lowercased().split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        if directives.contains(where: { $0 == "no-store" || $0 == "no-cache" }) { return nil }
        if let maxAge = directives.lazy.compactMap({ $0.hasPrefix("max-age=") ? Double($0.dropFirst(8)) : nil }).first {
            let lifetime = maxAge - (age.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? 0)
            return lifetime > 0 ? now.addingTimeInterval(lifetime) : nil
        }
        guard let expires = expires.flatMap(Self.httpDate) else { return nil }
        let lifetime = expires.timeIntervalSince(date.flatMap(Self.httpDate) ?? now)
        return lifetime > 0 ? now.addingTimeInterval(lifetime) : nil
    }

    private static func httpDate(_ text: String) -> Date? {
        guard let parsed = soup_date_time_new_from_http_string(text) else { return nil }
        defer { g_date_time_unref(parsed) }
        return Date(timeIntervalSince1970: TimeInterval(g_date_time_to_unix(parsed)))
    }
}
