/// What one photo, and one list, may cost: bytes, pixels, memory while decoding, time and
/// redirects. A photo past any of them fails on its row with its reason code (`too-large`,
/// `too-many-pixels`, `timeout`, `redirects`); a list past them fails to load.
///
/// The defaults suit camera photos and panoramas, not just thumbnails of small pictures:
/// - 100 MB per photo: the largest camera JPEGs are 30–60 MB (100 MP, fine quality), and
///   a 100 MB TIFF or PNG panorama still opens.
/// - 300 megapixels: a 100 MP medium-format photo or a stitched panorama opens; a header
///   claiming 65000×65000 (4.2 gigapixels) does not.
/// - 384 MiB of decoding in flight for the whole app (see `DecodeMemoryBudget`): a 100 MP
///   JPEG, baseline or progressive 4:2:0, and an RGB PNG of 100 MP fit; an RGBA PNG of
///   100 MP (400 MB before it is scaled down) does not.
/// - 15 s for the server to answer, 20 s of silence while reading, 60 s per photo in all:
///   a 100 MB photo arrives in 60 s over 15 Mbit/s; anything slower is not worth a row.
/// - 120 s and 512 MB for a list (a list of a million rows is about 60 MB).
/// - 10 redirects (browsers allow about 20, but photo hosts use one or two).
public struct PhotoLimits: Sendable, Equatable {
    /// The most bytes one photo may have, counted as they arrive (not only from
    /// Content-Length).
    public var maxPhotoBytes: Int
    /// The most pixels (width × height, as the picture's header says) a photo may have. The
    /// viewer uses the same value: `PhotoLimits.standardMaxPixels` unless settings change it.
    public var maxPixels: Int
    /// The most bytes all decodes in flight may need at once (the whole process).
    public var decodeMemoryBytes: Int
    /// How long the server may take to answer a request (connection and response headers).
    public var connectSeconds: Double
    /// How long a connection may stay silent while the request or the body is under way.
    public var silenceSeconds: Double
    /// How long one photo may take, from the request to its decoded pixels.
    public var photoSeconds: Double
    /// How long reading one photo list may take.
    public var listSeconds: Double
    /// The most bytes a photo list may have.
    public var maxListBytes: Int
    /// The most redirects followed for one address.
    public var maxRedirects: Int

    /// The pixel limit photos have unless settings change it.
    public static let standardMaxPixels = 300_000_000

    public static let standard = PhotoLimits(
        maxPhotoBytes: 100_000_000, maxPixels: standardMaxPixels, decodeMemoryBytes: 384 << 20,
        connectSeconds: 15, silenceSeconds: 20, photoSeconds: 60, listSeconds: 120,
        maxListBytes: 512 << 20, maxRedirects: 10)

    public init(
        maxPhotoBytes: Int, maxPixels: Int, decodeMemoryBytes: Int, connectSeconds: Double,
        silenceSeconds: Double, photoSeconds: Double, listSeconds: Double, maxListBytes: Int,
        maxRedirects: Int
    ) {
        self.maxPhotoBytes = maxPhotoBytes
        self.maxPixels = maxPixels
        self.decodeMemoryBytes = decodeMemoryBytes
        self.connectSeconds = connectSeconds
        self.silenceSeconds = silenceSeconds
        self.photoSeconds = photoSeconds
        self.listSeconds = listSeconds
        self.maxListBytes = maxListBytes
        self.maxRedirects = maxRedirects
    }

    /// What the decoder needs to know.
    public var decode: DecodeLimits { DecodeLimits(maxBytes: maxPhotoBytes, maxPixels: maxPixels) }

    /// The amount of bytes in words ("100 MB", "384 MB").
    static func megabytes(_ bytes: Int) -> String {
        bytes >= 1_000_000
            ? "\((bytes + 500_000) / 1_000_000) MB" : bytes >= 1000 ? "\((bytes + 500) / 1000) kB" : "\(bytes) bytes"
    }

    /// Seconds in words ("60 s", "0.5 s").
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}

/// The limits a decode checks: bytes as they arrive, and pixels from the header.
public struct DecodeLimits: Sendable, Equatable, Codable {
    public var maxBytes: Int
    public var maxPixels: Int

    public init(maxBytes: Int, maxPixels: Int) {
        self.maxBytes = maxBytes
        self.maxPixels = maxPixels
    }

    public static let standard = PhotoLimits.standard.decode
}
