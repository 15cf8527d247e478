/// Text from a source (photo names, addresses in messages) made safe to show: the one place
/// the rules live, used for row titles, accessible names, alternative text and tooltips.
///
/// Names come from whoever wrote the list, and GTK would show them as written:
/// - Line breaks (LF, CR, VT, FF, NEL, U+2028, U+2029) and tabs become one space, so a name
///   is always one line and a row keeps its height.
/// - Other control characters, NUL among them, become U+FFFD (�): visible, where a C string
///   would silently end the name at a NUL.
/// - Bidirectional embeddings, overrides and isolates (U+202A–202E, U+2066–2069) are removed,
///   so a name cannot make its end appear at its start ("photo‮gpj.exe"); the name then shows
///   in its logical order. Marks (U+200E, U+200F) have no such power and stay.
/// - A character with more than 16 combining marks keeps the first 16 (stacked marks would
///   draw far above and below the line).
/// - At most `maxCharacters` characters; longer text ends with "…". The label ellipsises to
///   its width anyway; this bounds the work of laying out a name of a megabyte.
public enum DisplayText {
    /// The most characters (grapheme clusters) a name shows.
    public static let maxCharacters = 256
    /// The most Unicode scalars one character keeps.
    static let maxScalarsPerCharacter = 16

    /// `raw` as one safe line of at most `limit` characters.
    public static func line(_ raw: String, limit: Int = maxCharacters) -> String {
        let limit = max(1, limit)
        if isPlain(raw, limit: limit) { return raw }
        var scalars = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in raw.unicodeScalars {
            switch scalar.value {
            case 0x09...0x0D, 0x85, 0x2028, 0x2029:
                pendingSpace = !scalars.isEmpty
                continue
            case 0x202A...0x202E, 0x2066...0x2069:
                continue
            case 0x00...0x1F, 0x7F...0x9F:
                if pendingSpace { scalars.append(" ") }
                pendingSpace = false
                scalars.append("\u{FFFD}")
            default:
                if pendingSpace, scalar != " " { scalars.append(" ") }
                pendingSpace = false
                scalars.append(scalar)
            }
        }
        var result = ""
        var count = 0
        for character in String(scalars) {
            if count == limit {
                result.removeLast()
                result.append("…")
                break
            }
            if character.unicodeScalars.count > maxScalarsPerCharacter {
                result.unicodeScalars.append(contentsOf: character.unicodeScalars.prefix(maxScalarsPerCharacter))
            } else {
                result.append(character)
            }
            count += 1
        }
        return result
    }

    /// Whether `raw` needs nothing done: short, and no character the rules touch.
    private static func isPlain(_ raw: String, limit: Int) -> Bool {
        guard raw.utf8.count <= limit else { return false } // cannot have more characters than bytes
        return raw.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: false
            // Combining marks.
            case 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F: false
            default: true
            }
        }
    }
}

extension PhotoSnapshot {
    /// The name as rows and the viewer show it (see `DisplayText`): a photo's own name,
    /// without the sub-folder it is in (see `PhotoEntry.subfolder`).
    public var displayName: String { DisplayText.line(String(entry.leafName)) }
}
