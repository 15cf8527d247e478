import CGLib
import CGWeather
import Foundation
import GLibKit

/// The town nearest a place on Earth, and how far it is.
public struct PlaceName: Sendable, Equatable {
    /// The town's name in the user's language (as libgweather's translations give it).
    public let town: String
    public let country: String?
    public let kilometres: Double
    /// The words a search finds the place by: the town's and the country's names in the
    /// user's language and in English ("München Germany Munich Deutschland" for a German).
    public let words: String

    public init(town: String, country: String?, kilometres: Double, words: String? = nil) {
        self.town = town
        self.country = country
        self.kilometres = kilometres
        self.words = words ?? [town, country ?? ""].joined(separator: " ")
    }
}

/// Names the town where a photo was taken from its GPS position: the nearest town in
/// libgweather's database of the world's towns (the one GNOME's Weather and Clocks read,
/// installed with the desktop, read offline), when it is within `farthest` kilometres; none
/// out at sea or in the wilds. The database's towns (some 4,200) are read once (libgweather's
/// locations are not for sharing between threads: nothing else touches them), into a table
/// ordered by latitude: a position's nearest town is then found among the few within
/// `farthest` km north or south of it, in microseconds (libgweather's own search measures the
/// distance to every town: 2–3 ms a position, too slow for a search over thousands of photos).
public enum PlaceNames {
    /// The farthest a town may be from the place to be named for it.
    public static let farthest = 15.0

    private struct Town {
        let latitude: Double
        let longitude: Double
        let name: String
        let country: String?
        let words: String
    }

    /// The towns, by latitude: read the first time a place is named (on the thread that asks;
    /// libgweather is touched nowhere else).
    private static let towns: [Town] = readTowns()

    /// The nearest town within `farthest` km of `latitude`, `longitude` (degrees, north and
    /// east positive), or nil. The first call reads the database (some 10 ms).
    public static func nearestTown(latitude: Double, longitude: Double) -> PlaceName? {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
        let towns = towns
        // Kilometres per degree of latitude, a little under (so the band is never too narrow).
        let band = farthest / 110.5
        var low = 0, high = towns.count
        while low < high {
            let middle = (low + high) / 2
            if towns[middle].latitude < latitude - band { low = middle + 1 } else { high = middle }
        }
        var nearest: (town: Town, kilometres: Double)?
        for town in towns[low...] {
            if town.latitude > latitude + band { break }
            let kilometres = distance(from: (latitude, longitude), to: (town.latitude, town.longitude))
            if kilometres <= farthest, kilometres < nearest?.kilometres ?? .infinity { nearest = (town, kilometres) }
        }
        return nearest.map {
            PlaceName(town: $0.town.name, country: $0.town.country, kilometres: $0.kilometres, words: $0.town.words)
        }
    }

    /// The same, answered on the main actor: at once when the towns have been read, else once
    /// they are (off the main thread).
    @MainActor
    public static func nearestTown(
        latitude: Double, longitude: Double, then answer: @escaping @MainActor @Sendable (PlaceName?) -> Void
    ) {
        DispatchQueue.global(qos: .userInitiated).async {
            let found = nearestTown(latitude: latitude, longitude: longitude)
            MainLoop.onMainActor { answer(found) }
        }
    }

    /// The distance between two places along the Earth's surface (a sphere of the mean
    /// radius), in kilometres: the haversine formula, good to a fraction of a percent.
    private static func distance(
        from a: (latitude: Double, longitude: Double), to b: (latitude: Double, longitude: Double)
    ) -> Double {
        let radians = Double.pi / 180
        let dLatitude = (b.latitude - a.latitude) * radians, dLongitude = (b.longitude - a.longitude) * radians
        let h =
            sin(dLatitude / 2) * sin(dLatitude / 2)
            + cos(a.latitude * radians) * cos(b.latitude * radians) * sin(dLongitude / 2) * sin(dLongitude / 2)
        return 2 * 6_371.0 * asin(min(1, h.squareRoot()))
    }

    /// Every town of libgweather's world that has a position, by latitude.
    private static func readTowns() -> [Town] {
        guard let world = gweather_location_get_world() else { return [] }
        defer { g_object_unref(UnsafeMutableRawPointer(world)) }
        var towns: [Town] = []
        func text(_ owned: UnsafeMutablePointer<CChar>?) -> String? {
            guard let owned else { return nil }
            defer { g_free(owned) }
            return String(cString: owned)
        }
        /// The English name of the country `location` lies in.
        func englishCountry(_ location: OpaquePointer) -> String? {
            var at = gweather_location_get_parent(location)
            while let parent = at {
                defer { g_object_unref(UnsafeMutableRawPointer(parent)) }
                if gweather_location_get_level(parent) == GWEATHER_LOCATION_COUNTRY {
                    return gweather_location_get_english_name(parent).map { String(cString: $0) }
                }
                at = gweather_location_get_parent(parent)
            }
            return nil
        }
        func walk(_ parent: OpaquePointer) {
            var child: OpaquePointer?
            while let next = gweather_location_next_child(parent, child) {
                // `next_child` lets go of the child it was given and hands back a new one.
                child = next
                if gweather_location_get_level(next) == GWEATHER_LOCATION_CITY {
                    if gweather_location_has_coords(next) != 0, let name = gweather_location_get_name(next) {
                        var latitude = 0.0, longitude = 0.0
                        gweather_location_get_coords(next, &latitude, &longitude)
                        let town = String(cString: name)
                        let country = text(gweather_location_get_country_name(next))
                        let english = gweather_location_get_english_name(next).map { String(cString: $0) }
                        let words = [town, country, english, englishCountry(next)].compactMap { $0 }
                        towns.append(
                            Town(
                                latitude: latitude, longitude: longitude, name: town, country: country,
                                words: words.joined(separator: " ")))
                    }
                } else {
                    walk(next)
                }
            }
        }
        walk(world)
        return towns.sorted { $0.latitude < $1.latitude }
    }
}
