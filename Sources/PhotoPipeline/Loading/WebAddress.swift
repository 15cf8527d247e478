import Foundation

extension URL {
    /// The schemes fetched over HTTP (`HTTPClient`): the one place they are named.
    public static let webSchemes: Set<String> = ["http", "https"]

    /// Whether `scheme`, in any case, is one fetched over HTTP.
    public static func isWebScheme(_ scheme: String) -> Bool { webSchemes.contains(scheme.lowercased()) }

    /// Whether this is an `http` or `https` address (its scheme in any case).
    public var isWebAddress: Bool { scheme.map(Self.isWebScheme) ?? false }
}
