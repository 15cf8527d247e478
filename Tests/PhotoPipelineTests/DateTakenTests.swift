import Foundation
import PhotoPipeline
import Testing

/// A date taken is shown as the camera's clock said it, whatever zone the viewer is in.
/// The zone is changed the way a user's session sets it (`TZ`), and put back after.
@Suite(.serialized) struct DateTakenTests {
    /// Runs `body` with `TZ` set to `zone`.
    private func inZone<T>(_ zone: String, _ body: () -> T) -> T {
        let before = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", zone, 1)
        tzset()
        defer {
            if let before { setenv("TZ", before, 1) } else { unsetenv("TZ") }
            tzset()
        }
        return body()
    }

    /// The hour of the day at `seconds` since 1970 in the zone `TZ` names.
    private func localHour(of seconds: Int) -> Int32 {
        var time = time_t(seconds)
        var parts = tm()
        localtime_r(&time, &parts)
        return parts.tm_hour
    }

    @Test("An EXIF date reads as its wall-clock time in New York, Tokyo and UTC alike")
    func wallClockInAnyZone() throws {
        let exif = try #require(DateTaken("2021:07:04 18:30:05"))
        let kept = try #require(DateTaken("2021-07-04 18:30:05"))
        #expect(exif == kept)
        #expect(exif.year == 2021 && exif.month == 7 && exif.day == 4)
        #expect(exif.hour == 18 && exif.minute == 30 && exif.second == 5)
        for zone in ["America/New_York", "Asia/Tokyo", "UTC", "Pacific/Kiritimati"] {
            inZone(zone) {
                // The zone took: 18:30 UTC that day is another hour on the clocks there.
                #expect((localHour(of: 1_625_423_405) == 18) == (zone == "UTC"), "in \(zone)")
                #expect(exif.formatted("%Y-%m-%d %H:%M:%S") == "2021-07-04 18:30:05", "in \(zone)")
                #expect(kept.formatted("%H:%M") == "18:30", "in \(zone)")
                #expect(exif.formatted("%x %H:%M")?.hasSuffix(" 18:30") == true, "in \(zone)")
                #expect(exif.formattedMonth("%B %Y") == "July 2021", "in \(zone)")
            }
        }
    }

    @Test("A time the viewer's zone skips (clocks going forward) is shown as the camera wrote it")
    func timeInADaylightSavingGap() throws {
        // Berlin went from 02:00 straight to 03:00 on 28 March 2021.
        let taken = try #require(DateTaken("2021:03:28 02:30:00"))
        inZone("Europe/Berlin") {
            #expect(taken.formatted("%d.%m.%Y %H:%M") == "28.03.2021 02:30")
        }
        // New Year's Eve just before midnight stays in the old year, east of UTC and west.
        let late = try #require(DateTaken("2020-12-31 23:59:59"))
        for zone in ["Asia/Tokyo", "America/Los_Angeles"] {
            inZone(zone) { #expect(late.formattedMonth("%Y-%m") == "2020-12", "in \(zone)") }
        }
    }

    @Test("Text that is no date gives nothing; a year and a month still give the month")
    func partialAndBadDates() {
        #expect(DateTaken("") == nil)
        #expect(DateTaken("unknown") == nil)
        #expect(DateTaken("2021-13-01 00:00:00") == nil)
        #expect(DateTaken("    :  :     :  :  ") == nil)
        let monthOnly = DateTaken("2021:07:  :  :  ")
        #expect(monthOnly?.formatted("%H:%M") == nil)
        #expect(monthOnly?.formattedMonth("%Y-%m") == "2021-07")
        // A day GLib knows is not in the month.
        #expect(DateTaken("2021-02-30 10:00:00")?.formatted("%d") == nil)
    }
}
