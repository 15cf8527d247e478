import CGLib
import CGtk
import GLibKit

// Drops onto a widget: files, links and text, as strings.

extension Handle where Kind == DropTarget {
    /// A new drop target (for `addController`) taking copies of files (a file list, which is
    /// also how links arrive from browsers and file managers) or text.
    public static func forLocations() -> Self { Self(UnsafeMutableRawPointer(cp_drop_target_new_for_locations()!)) }

    /// Connects `body` to "drop", with what was dropped as strings (each file's URI, or the
    /// text); `body` says whether it took the drop. Anything else dropped is refused.
    public func onDrop(_ body: @escaping ([String]) -> Bool) -> SignalConnection {
        SignalConnection.connect(
            raw, "drop",
            pointerDoubles: { value, _, _ in
                guard let value, let strings = cp_drop_value_strings(value.assumingMemoryBound(to: GValue.self))
                else { return false }
                defer { g_strfreev(strings) }
                var dropped: [String] = []
                var index = 0
                while let string = strings[index] {
                    dropped.append(String(cString: string))
                    index += 1
                }
                return body(dropped)
            })
    }
}
