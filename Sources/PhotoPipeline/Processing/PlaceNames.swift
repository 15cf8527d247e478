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
}

/// Names the town where a photo was taken from its GPS position: the nearest town in
/// libgweather's database of the world's towns (the one GNOME's Weather and Clocks read,
/// installed with the desktop, read offline), when it is within `farthest` kilometres; none
/// out at sea or in the wilds. The database is read on one thread of its own (libgweather's
/// locations are not for sharing between threads); each position's answer is kept.
public enum PlaceNames {
    /// The farthest a town may be from the place to be named for it.
    public static let farthest = 15.0

    private struct Position: Hashable {
        let latitude: Double
        let longitude: Double
    }

    private static let queue = DispatchQueue(label: "place names", qos: .utility)
    private static let known = Locked<[Position: PlaceName?]>([:])

    /// The nearest town within `farthest` km of `latitude`, `longitude` (degrees, north and
    /// east positive), or nil. Blocks while the database is searched (a few milliseconds).
    public static func nearestTown(latitude: Double, longitude: Double) -> PlaceName? {
        let position = Position(latitude: latitude, longitude: longitude)
        if let found = known.withLock({ $0[position] }) { return found }
        return queue.sync { searchOnce(position) }
    }

    /// The same, answered on the main actor: at once when the position was asked before, else
    /// once the search (off the main thread) is done.
    @MainActor
    public static func nearestTown(
        latitude: Double, longitude: Double, then answer: @escaping @MainActor @Sendable (PlaceName?) -> Void
    ) {
        let position = Position(latitude: latitude, longitude: longitude)
        if let found = known.withLock({ $0[position] }) { return answer(found) }
        queue.async {
            let found = searchOnce(position)
            MainLoop.onMainActor { answer(found) }
        }
    }

    /// The answer for `position`: kept from before, or searched for and kept.
    private static func searchOnce(_ position: Position) -> PlaceName? {
        if let found = known.withLock({ $0[position] }) { return found }
        let found = search(position)
        known.withLock { $0[position] = found }
        return found
    }

    /// The distance between two places along the Earth's surface (a sphere of the mean
    /// radius), in kilometres: the haversine formula, good to a fraction of a percent.
    private static func distance(from a: Position, to b: Position) -> Double {
        let radians = Double.pi / 180
        let dLatitude = (b.latitude - a.latitude) * radians, dLongitude = (b.longitude - a.longitude) * radians
        let h =
            sin(dLatitude / 2) * sin(dLatitude / 2)
            + cos(a.latitude * radians) * cos(b.latitude * radians) * sin(dLongitude / 2) * sin(dLongitude / 2)
        return 2 * 6_371.0 * asin(min(1, h.squareRoot()))
    }

    /// The world's locations, read once (on `queue`) and kept.
    nonisolated(unsafe) private static var world: OpaquePointer?

    private static func search(_ position: Position) -> PlaceName? {
        dispatchPrecondition(condition: .onQueue(queue))
        guard (-90...90).contains(position.latitude), (-180...180).contains(position.longitude) else { return nil }
        if world == nil { world = gweather_location_get_world() }
        guard let world,
            let city = gweather_location_find_nearest_city(world, position.latitude, position.longitude)
        else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(city)) }
        guard gweather_location_has_coords(city) != 0 else { return nil }
        var latitude = 0.0, longitude = 0.0
        gweather_location_get_coords(city, &latitude, &longitude)
        let kilometres = distance(from: position, to: Position(latitude: latitude, longitude: longitude))
        guard kilometres <= farthest, let name = gweather_location_get_name(city) else { return nil }
        let country = gweather_location_get_country_name(city).map { owned in
            defer { g_free(owned) }
            return String(cString: owned)
        }
        return PlaceName(town: String(cString: name), country: country, kilometres: kilometres)
    }
}
