import Foundation

/// A photo's alt text to be written (nil: taken away): what it shows, in words for people
/// who cannot see it, as IPTC's `Iptc4xmpCore:AltTextAccessibility` holds it. It is written
/// beside the marks, in the same sidecar or photo, and kept in no index.
public struct AltTextChange: Sendable, Equatable, Codable {
    public var text: String?

    /// `text` trimmed, on at most 2,000 characters (IPTC suggests fewer than 250); empty is none.
    public init(_ text: String?) {
        let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        self.text = trimmed.isEmpty ? nil : String(trimmed.prefix(2_000))
    }
}

/// What a person marked a photo with to pick the keepers, as the XMP standard properties hold
/// it, so that digiKam, darktable, Lightroom, Shotwell and cameras read the same marks:
/// `xmp:Rating` (stars, or −1: rejected), `xmp:Label` (a colour label by name) and the tags,
/// `dc:subject` (and `lr:hierarchicalSubject` for a tag with a path, "Places|France|Paris").
public struct PhotoMarks: Sendable, Equatable, Hashable, Codable {
    /// −1: rejected; 0: not rated; 1 to 5: stars.
    public var rating: Int
    /// The colour label's name as Lightroom and digiKam write it ("Red", "Yellow", "Green",
    /// "Blue", "Purple"), or any other a photo came with; nil: none.
    public var label: String?
    /// The tags, in the order they were given; a tag with a path has its levels joined by "|".
    public var tags: [String]

    public init(rating: Int = 0, label: String? = nil, tags: [String] = []) {
        self.rating = min(max(rating, Self.rejected), Self.mostStars)
        self.label = label.flatMap { $0.isEmpty ? nil : $0 }
        self.tags = Self.unique(tags)
    }

    public static let none = PhotoMarks()
    public static let rejected = -1
    public static let mostStars = 5

    public var isRejected: Bool { rating == Self.rejected }
    public var stars: Int { max(rating, 0) }
    public var isEmpty: Bool { self == .none }

    /// The labels people are offered, in the order Lightroom and digiKam list them.
    public static let labels = ["Red", "Yellow", "Green", "Blue", "Purple"]

    /// These marks with those of `other` where `other` has them: a sidecar's marks over those
    /// of the photo's own XMP. (A property `other` does not hold at all is `nil` there.)
    func overlaid(by other: Partial) -> PhotoMarks {
        PhotoMarks(
            rating: other.rating ?? rating, label: other.label ?? label, tags: other.tags ?? tags)
    }

    /// Marks as one XMP packet holds them: each property may be missing (nil), which is not the
    /// same as empty when a sidecar's marks are laid over the photo's own.
    struct Partial: Sendable, Equatable {
        var rating: Int?
        var label: String?
        var tags: [String]?

        var marks: PhotoMarks { PhotoMarks.none.overlaid(by: self) }
    }

    /// `tags` without repeats (the first of each kept), without empty ones, each on one line
    /// and without spaces around its levels.
    public static func unique(_ tags: [String]) -> [String] {
        var seen = Set<String>()
        return tags.compactMap { tag in
            let line = tag.components(separatedBy: .newlines).joined(separator: " ")
            let trimmed = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }.joined(separator: "|")
            guard !trimmed.isEmpty, seen.insert(trimmed).inserted else { return nil }
            return trimmed
        }
    }
}
