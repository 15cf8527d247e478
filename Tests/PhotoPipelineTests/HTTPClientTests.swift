import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// The HTTP client's disk cache and coalescing, against a real server on loopback.
@Suite(.serialized) struct HTTPClientTests {
    private func get(
        _ client: HTTPClient, _ url: URL, cancellable: Cancellable = Cancellable()
    ) throws(PhotoFailure) -> Data {
        try client.get(url, cancellable: cancellable, byteLimit: 10 << 20, connectSeconds: 10, maxRedirects: 3)
    }

    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "classic-photos-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("The disk cache answers what the server allowed to be kept, across clients (launches), until cleared")
    func diskCache() throws {
        let server = try LoopbackServer()
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = try Data(contentsOf: Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg"))
        let cacheable = server.url("/cacheable/coffee.jpg"), plain = server.url("/photos/coffee.jpg")

        let first = HTTPClient(cacheDirectory: folder)
        #expect(try get(first, cacheable) == photo)
        #expect(try get(first, plain) == photo)
        first.flushCache() // the cache copies a body a moment after its transfer ends
        #expect(try get(first, cacheable) == photo)
        #expect(server.requestCount("/cacheable/coffee.jpg") == 1)
        first.close() // writes the cache's index, as quitting does
        #expect(first.cacheSize >= photo.count)

        // A second launch: the kept photo comes from the disk; the other (no caching headers)
        // from the server again.
        let second = HTTPClient(cacheDirectory: folder)
        #expect(try get(second, cacheable) == photo)
        #expect(try get(second, plain) == photo)
        #expect(server.requestCount("/cacheable/coffee.jpg") == 1)
        #expect(server.requestCount("/photos/coffee.jpg") >= 2)

        second.clearCache()
        #expect(try get(second, cacheable) == photo)
        #expect(server.requestCount("/cacheable/coffee.jpg") == 2)
        second.close()

        // Without a cache folder nothing is kept.
        let uncached = HTTPClient()
        #expect(try get(uncached, cacheable) == photo)
        #expect(server.requestCount("/cacheable/coffee.jpg") == 3)
    }

    @Test("Requests for one address while it is in flight share one transfer; it survives one of them cancelling")
    func coalescing() async throws {
        let server = try LoopbackServer()
        let client = HTTPClient()
        let url = server.url("/photos/retina.jpg")
        server.holdPhotos()
        let leaving = Cancellable()
        let results = Locked<[Result<Data, PhotoFailure>]>([])
        let threads = (0..<3).map { n in
            Thread { [client] in
                let result = Result { () throws(PhotoFailure) in
                    try client.get(
                        url, cancellable: n == 0 ? leaving : Cancellable(), byteLimit: 10 << 20,
                        connectSeconds: 30, maxRedirects: 0)
                }
                results.withLock { $0.append(result) }
            }
        }
        for thread in threads { thread.start() }
        // All three wait for the one transfer (its request at the server, held there).
        let deadline = Date().addingTimeInterval(10)
        while server.requestCount("/photos/retina.jpg") < 1 || client.requestsWaiting < 3, Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(client.requestsWaiting == 3)
        leaving.cancel() // one request gives up: the others still get the photo
        while results.withLock({ $0.count }) < 1, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        server.releasePhotos()
        while results.withLock({ $0.count }) < 3, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let photo = try Data(contentsOf: Products.packageRoot.appendingPathComponent("data/photos/retina.jpg"))
        let outcomes = results.withLock { $0 }
        #expect(outcomes.count == 3)
        #expect(outcomes.count { (try? $0.get()) == photo } == 2)
        #expect(outcomes.count { if case .failure(let f) = $0 { f.isCancellation } else { false } } == 1)
        #expect(server.requestCount("/photos/retina.jpg") == 1)
        // Once it is over, the next request is a transfer of its own.
        #expect(try get(client, url) == photo)
        #expect(server.requestCount("/photos/retina.jpg") == 2)
    }

    @Test("Freshness comes from max-age less Age, else Expires against Date; no-store and no-cache keep nothing")
    func freshness() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        func fresh(_ cacheControl: String?, age: String? = nil, expires: String? = nil, date: String? = nil) -> Double?
        {
            HTTPClient.freshUntil(cacheControl: cacheControl, age: age, expires: expires, date: date, now: now)
                .map { $0.timeIntervalSince(now) }
        }
        #expect(fresh("public, max-age=3600") == 3600)
        #expect(fresh("max-age=3600", age: "600") == 3000)
        #expect(fresh("max-age=60", age: "600") == nil)
        #expect(fresh("no-store, max-age=3600") == nil)
        #expect(fresh("No-Cache") == nil)
        #expect(fresh(nil) == nil)
        #expect(fresh(nil, expires: "Sun, 06 Nov 1994 09:49:37 GMT", date: "Sun, 06 Nov 1994 08:49:37 GMT") == 3600)
        #expect(fresh(nil, expires: "0", date: "Sun, 06 Nov 1994 08:49:37 GMT") == nil)
    }
}
