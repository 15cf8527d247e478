import Foundation

/// Work that must never run on the main thread, where it would hold up every frame: a
/// `stat` of a photo's file, a query or a write of the index. Each such place says so here;
/// done on the main thread, it is traced as `io.main` (the tests and the soak count them) and
/// carried out all the same.
public enum MainThreadIO {
    public enum Kind: String, Sendable { case stat, index }

    /// Notes `kind` of disk work about to run at `place` (the calling function by default).
    @inline(__always)
    public static func check(_ kind: Kind, _ place: StaticString = #function) {
        guard Thread.isMainThread else { return }
        Trace.shared.emit(.ioOnMain(kind: kind.rawValue, text: "\(place)"))
    }
}
