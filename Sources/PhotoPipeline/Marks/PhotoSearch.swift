import CGLib
import Foundation

/// Finding photos by words: each word typed must be found within a word of the photo's name
/// (its sub-folders' names too, in a folder shown with everything beneath it) or of one of
/// its tags, as the file manager finds names ("1234" finds `IMG_1234.JPG`). Words are compared
/// as GLib folds them for search (`g_str_tokenize_and_fold`: lower case, split at anything but
/// letters and digits, "Café" also found as "cafe"), as GNOME's own searches do. "paris 2023"
/// finds `2023/07 Paris/IMG_1.jpg`; "img_00" finds `IMG_0001.JPG`.
public enum PhotoSearch {
    /// What is typed, as words each with the forms that match it (itself, and its ASCII
    /// alternate where it has one); empty when nothing is searched for.
    public static func query(_ text: String) -> [[String]] {
        words(of: text).map { word in [word.folded] + word.alternates }
    }

    /// The words of `text`, folded, each with its ASCII alternate where it has one ("café":
    /// "cafe"; "łódź": "lodz").
    static func words(of text: String) -> [(folded: String, alternates: [String])] {
        guard let tokens = g_str_tokenize_and_fold(text, nil, nil) else { return [] }
        defer { g_strfreev(tokens) }
        var words: [(String, [String])] = []
        var index = 0
        while let token = tokens[index] {
            index += 1
            let word = String(cString: token)
            var alternates: [String] = []
            if word.utf8.contains(where: { $0 >= 0x80 }), let ascii = g_str_to_ascii(token, nil) {
                let plain = String(cString: ascii)
                g_free(ascii)
                if plain != word, !plain.contains("?") { alternates.append(plain) }
            }
            words.append((word, alternates))
        }
        return words
    }

    /// The words of many photos' names, packed: each photo's words (and their alternates) as
    /// one run of bytes, every word preceded by a separator (which no word typed holds, so a
    /// word typed is found within one of them, never across two).
    public struct Words: Sendable {
        var bytes: [UInt8] = []
        /// Where each photo's run ends, by the order it came into the list.
        var ends: [Int32] = []
        var count: Int { ends.count }

        static let separator: UInt8 = 1

        /// Adds the words of `text` as the next photo's; `ended`: with a separator after the
        /// last, so that a word can be found whole.
        mutating func append(_ text: String, ended: Bool = false) {
            var text = text
            let ascii = text.withUTF8 { utf8 in
                guard !utf8.contains(where: { $0 >= 0x80 }) else { return false }
                appendASCII(utf8)
                return true
            }
            if !ascii { appendFolded(text) }
            if ended { bytes.append(Self.separator) }
            ends.append(Int32(clamping: bytes.count))
        }

        /// The words of `text` as GLib folds them (each with its ASCII alternate).
        mutating func appendFolded(_ text: String) {
            for (word, alternates) in PhotoSearch.words(of: text) {
                for form in [word] + alternates {
                    bytes.append(Self.separator)
                    bytes.append(contentsOf: form.utf8)
                }
            }
        }

        /// The words of ASCII text, folded as GLib folds them (its letters and digits, split at
        /// anything else, in lower case) without its allocations: a name is read several
        /// times faster (100,000 paths took 0.6 s).
        mutating func appendASCII(_ utf8: UnsafeBufferPointer<UInt8>) {
            var inWord = false
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    if !inWord { bytes.append(Self.separator) }
                    inWord = true
                    bytes.append(byte <= UInt8(ascii: "Z") && byte >= UInt8(ascii: "A") ? byte + 0x20 : byte)
                default:
                    inWord = false
                }
            }
        }

        /// Whether photo `index`'s words have, for each of `query`'s words, one that holds it.
        func matches(_ index: Int, _ query: [[UInt8]]) -> Bool {
            let start = index == 0 ? 0 : Int(ends[index - 1])
            let end = Int(ends[index])
            return bytes.withUnsafeBufferPointer { all in
                let run = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(all)[start..<end])
                return query.allSatisfy { PhotoSearch.contains(run, $0) }
            }
        }
    }

    /// What finds a word typed among a date's and a camera's words: a number whole ("2021",
    /// not "2" for every photo of 2026), other words from their start, three letters at least
    /// ("nov", "can"; not "be" for September to December).
    static func factNeedle(_ form: [UInt8]) -> [UInt8] {
        let whole = form.count < 3 || form.allSatisfy { (0x30...0x39).contains($0) }
        return [Words.separator] + form + (whole ? [Words.separator] : [])
    }

    /// Whether `needle` is found in `run`: at each of its first byte, the bytes from there
    /// compared.
    static func contains(_ run: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        guard let base = run.baseAddress, !needle.isEmpty, run.count >= needle.count else { return false }
        let end = base + run.count
        return needle.withUnsafeBytes { wanted in
            var at = base
            while end - at >= needle.count, let found = memchr(at, Int32(needle[0]), end - at) {
                let start = UnsafeRawPointer(found)
                if end - start < needle.count { return false }
                if memcmp(start, wanted.baseAddress!, needle.count) == 0 { return true }
                at = start + 1
            }
            return false
        }
    }

    /// `names` made on with the words of the photos of `snapshot` that came since they were
    /// made (by arrival); nil once `cancelled` says so.
    static func names(
        of snapshot: PhotoCollectionSnapshot, after names: Words, cancelled: () -> Bool
    ) -> Words? {
        var names = names
        let arrivals = snapshot.arrivals
        guard names.count < arrivals else { return names }
        // Names by arrival: the snapshot lists them by position.
        var byArrival = [String?](repeating: nil, count: arrivals - names.count)
        for position in 0..<snapshot.count {
            let arrival = snapshot.arrival(at: position)
            if arrival >= names.count { byArrival[arrival - names.count] = snapshot.entry(at: position).name }
        }
        for (offset, name) in byArrival.enumerated() {
            if offset % 4_096 == 0, cancelled() { return nil }
            names.append(name ?? "")
        }
        return names
    }

    /// The words of what the index knows of each photo of `snapshot` that is a file here, by
    /// arrival: the year and month it was taken ("2021", "july" and the month's name in the
    /// user's language), its camera ("canon", "eos", "5d") and lens, and the town nearest where
    /// it was taken with its country (in the user's language and in English: "munich",
    /// "münchen", "germany"). Photos the index has not read yet (`learn`) have none. Nil once
    /// `cancelled` says so.
    static func facts(of snapshot: PhotoCollectionSnapshot, in index: PhotoIndex, cancelled: () -> Bool) -> Words? {
        let paths = localPaths(of: snapshot)
        guard !cancelled() else { return nil }
        let known = index.facts(inFolder: PhotoListFilter.commonFolder(of: Array(paths.values)))
        guard !cancelled() else { return nil }
        var words = Words()
        for arrival in 0..<snapshot.arrivals {
            guard let path = paths[arrival], let facts = known[path] else {
                words.append("")
                continue
            }
            if arrival % 4_096 == 0, cancelled() { return nil }
            words.append(factText(facts), ended: true)
        }
        return words
    }

    /// The words a photo is found by from what the index knows of it: the year and month it was
    /// taken, its camera and lens, and its town and country.
    static func factText(_ facts: PhotoIndex.Facts) -> String {
        var place = ""
        if let latitude = facts.latitude, let longitude = facts.longitude {
            place = PlaceNames.nearestTown(latitude: latitude, longitude: longitude)?.words ?? ""
        }
        return [words(taken: facts.taken), facts.camera ?? "", facts.lens ?? "", place].joined(separator: " ")
    }

    /// Has the index learn the date taken and camera of `snapshot`'s photos it does not know
    /// (their files' first bytes read, as sorting by date does), when they are at most
    /// `limit`: a phone's folder, not a tree of 100,000 (sorting that by date teaches it).
    /// Whether it learnt any.
    static func learn(
        _ snapshot: PhotoCollectionSnapshot, into index: PhotoIndex, limit: Int, cancelled: () -> Bool
    ) -> Bool {
        let paths = Array(localPaths(of: snapshot).values)
        let known = index.facts(inFolder: PhotoListFilter.commonFolder(of: paths))
        let unknown = paths.filter { known[$0] == nil }
        guard !unknown.isEmpty, unknown.count <= limit else { return false }
        for (count, path) in unknown.enumerated() {
            if count % 64 == 0, cancelled() { break }
            _ = SortFacts.read(path: path, taken: true, index: index, known: known)
        }
        index.flush()
        return true
    }

    /// The paths of `snapshot`'s photos that are files here, by arrival (as the filter finds
    /// them to read their marks).
    private static func localPaths(of snapshot: PhotoCollectionSnapshot) -> [Int: String] {
        Dictionary(
            PhotoListFilter.localPhotos(of: snapshot, except: [:]).map { ($0.arrival, $0.path) },
            uniquingKeysWith: { first, _ in first })
    }

    /// The words a date taken ("2021-07-04 18:30:05") is found by: its year and its month's
    /// names (English, and the user's language).
    static func words(taken: String) -> String {
        let parts = taken.split(separator: "-")
        guard parts.count >= 2, let month = Int(parts[1]), (1...12).contains(month) else { return "" }
        return "\(parts[0]) \(monthNames.english[month - 1]) \(monthNames.local[month - 1])"
    }

    private static let monthNames: (english: [String], local: [String]) = {
        let english = DateFormatter()
        english.locale = Locale(identifier: "en_US_POSIX")
        let local = DateFormatter()
        local.locale = Locale.current
        return (english.standaloneMonthSymbols, local.standaloneMonthSymbols)
    }()

    /// Which photos of `snapshot` the query matches, by their arrival in the list (sub-folders
    /// never match); `names` are the words of their names (`names(of:after:cancelled:)`).
    /// `tags`: the tags of the photos that have some, by arrival. Stops early (nil) once
    /// `cancelled` says so.
    static func match(
        _ query: [[String]], in snapshot: PhotoCollectionSnapshot, names: Words, facts: Words? = nil,
        tags: [Int: [String]], cancelled: () -> Bool
    ) -> [Bool]? {
        let arrivals = snapshot.arrivals
        guard names.count >= arrivals else { return nil }
        // Each word typed, as the bytes that find it: any of its forms.
        let forms = query.map { forms in forms.map { Array($0.utf8) } }
        var tagWords: [Int: Words] = [:]
        for (arrival, photoTags) in tags {
            var words = Words()
            words.append(photoTags.joined(separator: " "))
            tagWords[arrival] = words
        }
        var verdicts = [Bool](repeating: false, count: arrivals)
        for position in 0..<snapshot.count {
            if position % 4_096 == 0, cancelled() { return nil }
            let arrival = snapshot.arrival(at: position)
            let tagged = tagWords[arrival]
            verdicts[arrival] = forms.allSatisfy { word in
                word.contains { form in
                    names.matches(arrival, [form]) || tagged?.matches(0, [form]) == true
                        || facts.map { arrival < $0.count && $0.matches(arrival, [Self.factNeedle(form)]) } == true
                }
            }
        }
        // Sub-folders are not photos found (only those matched are looked at).
        for position in 0..<snapshot.count where verdicts[snapshot.arrival(at: position)] {
            if snapshot.entry(at: position).isFolder { verdicts[snapshot.arrival(at: position)] = false }
        }
        return verdicts
    }
}
