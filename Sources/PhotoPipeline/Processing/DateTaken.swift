import CGLib

/// When a photo was taken, as its EXIF says it, and the one way it is put into words.
///
/// EXIF's `DateTimeOriginal` is a wall-clock time in the photo's own time, with no zone ("the
/// camera's clock said 18:30"; `OffsetTimeOriginal`, where a camera writes it, only says how
/// far that clock was from UTC). `ExifReader` keeps it as text ("2021-07-04 18:30:05") and so
/// do the index and the sort: no instant is ever made of it. Shown, it must stay the time the
/// camera wrote, whatever zone the viewer is in, so it is written as it is: the date is made
/// in UTC, which has neither an offset nor daylight saving time, and formatted in UTC. (Made
/// in the viewer's zone instead, a time that zone skips when its clocks go forward, such as
/// 02:30 on the last Sunday of March in Berlin, came out as 03:00.)
public struct DateTaken: Sendable, Equatable {
    public let year: Int
    public let month: Int
    /// The day and the time of day, where the text gives them.
    public let day: Int?
    public let hour: Int?
    public let minute: Int?
    public let second: Int?

    /// The date in "2021-07-04 18:30:05" (as `ExifReader` and the index keep it) or in EXIF's
    /// own "2021:07:04 18:30:05"; nil where it does not begin with a year and a month.
    public init?(_ text: some StringProtocol) {
        var numbers: [Int] = []
        for field in text.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == ":" }) {
            guard numbers.count < 6, let number = Int(field) else { break }
            numbers.append(number)
        }
        guard numbers.count >= 2, (1...12).contains(numbers[1]) else { return nil }
        year = numbers[0]
        month = numbers[1]
        func at(_ index: Int) -> Int? { index < numbers.count ? numbers[index] : nil }
        (day, hour, minute, second) = (at(2), at(3), at(4), at(5))
    }

    /// The date and time in `format` (a `g_date_time_format()` format: "%x %H:%M" is the
    /// locale's way of writing a date, and the time), in the user's language, at the photo's
    /// own wall-clock time; nil where the text gave no whole date and time, or no such date.
    public func formatted(_ format: String) -> String? {
        guard let day, let hour, let minute, let second else { return nil }
        return Self.format(year, month, day, hour, minute, second, format)
    }

    /// The month alone in `format` ("%B %Y": "July 2021"), for which a year and a month do.
    public func formattedMonth(_ format: String) -> String? {
        Self.format(year, month, 1, 0, 0, 0, format)
    }

    private static func format(
        _ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int, _ format: String
    ) -> String? {
        guard let utc = g_time_zone_new_utc() else { return nil }
        defer { g_time_zone_unref(utc) }
        guard
            let date = g_date_time_new(
                utc, Int32(clamping: year), Int32(clamping: month), Int32(clamping: day), Int32(clamping: hour),
                Int32(clamping: minute), Double(second))
        else { return nil }
        defer { g_date_time_unref(date) }
        guard let text = g_date_time_format(date, format) else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }
}
