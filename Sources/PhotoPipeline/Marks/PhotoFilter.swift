/// Which photos a person wants to see by their marks: at least so many stars, not the rejected
/// ones, those with one of the labels picked, those with a tag. Each part left at its default
/// lets every photo through; all parts set must hold.
public struct PhotoFilter: Sendable, Equatable, Hashable, Codable {
    /// 0: any rating (rejected photos too, unless `hidesRejected`); 1–5: that many stars or more.
    public var minimumStars = 0
    public var hidesRejected = false
    /// Label names (`PhotoMarks.labels`); empty: any label or none.
    public var labels: Set<String> = []
    /// A tag the photo has, as one of its tags, a level of one ("France" in
    /// "Places|France|Paris") or a path above one ("Places|France"); nil: any.
    public var tag: String?

    public init(minimumStars: Int = 0, hidesRejected: Bool = false, labels: Set<String> = [], tag: String? = nil) {
        self.minimumStars = min(max(minimumStars, 0), PhotoMarks.mostStars)
        self.hidesRejected = hidesRejected
        self.labels = labels
        self.tag = tag.flatMap { $0.isEmpty ? nil : $0 }
    }

    public static let none = PhotoFilter()

    /// Whether it hides any photo at all.
    public var isOn: Bool { self != .none }

    public func passes(_ marks: PhotoMarks) -> Bool {
        if minimumStars > 0, marks.stars < minimumStars { return false }
        if hidesRejected, marks.isRejected { return false }
        if !labels.isEmpty, !(marks.label.map(labels.contains) ?? false) { return false }
        if let tag, !marks.tags.contains(where: { Self.tag($0, holds: tag) }) { return false }
        return true
    }

    /// Whether the photo's tag `given` is `wanted`, has it as a level, or lies under it.
    static func tag(_ given: String, holds wanted: String) -> Bool {
        if given == wanted || given.hasPrefix(wanted + "|") { return true }
        return !wanted.contains("|") && given.split(separator: "|").contains { $0 == wanted }
    }
}
