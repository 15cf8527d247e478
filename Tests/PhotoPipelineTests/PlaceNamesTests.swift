import PhotoPipeline
import Testing

/// The town nearest a GPS position, from libgweather's database of the world's towns, offline.
@Suite struct PlaceNamesTests {
    @Test("A position in a town gives the town and its country, a few kilometres off at most")
    func towns() throws {
        let sydney = try #require(PlaceNames.nearestTown(latitude: -33.8568, longitude: 151.2153))
        #expect(sydney.town == "Sydney")
        #expect(sydney.country == "Australia")
        #expect(sydney.kilometres < 10)
        let paris = try #require(PlaceNames.nearestTown(latitude: 48.8584, longitude: 2.2945))
        #expect(paris.town == "Paris")
        // Asked again: the same answer (kept, not searched again).
        #expect(PlaceNames.nearestTown(latitude: 48.8584, longitude: 2.2945) == paris)
    }

    @Test("Out at sea, far from any town, or no place on Earth: no town")
    func none() {
        // The middle of the Atlantic: the nearest town is hundreds of kilometres off.
        #expect(PlaceNames.nearestTown(latitude: 0, longitude: -30) == nil)
        #expect(PlaceNames.nearestTown(latitude: 95, longitude: 0) == nil)
        #expect(PlaceNames.nearestTown(latitude: 10, longitude: 200) == nil)
        #expect(PlaceNames.nearestTown(latitude: .nan, longitude: 0) == nil)
    }
}
