import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// Head-first requests (`Range`) against a real server on loopback: servers that honour them,
/// ignore them or answer them wrongly, and the disk cache around them.
@Suite(.serialized) struct HTTPRangeTests {
    private static let photo =
        (try? Data(contentsOf: Products.packageRoot.appendingPathComponent("data/photos/hubble-deep-field.jpg")))
        ?? Data()

    private func head(
        _ client: HTTPClient, _ url: URL, bytes: Int = 16 << 10,
        cancellable: Cancellable = Cancellable()
    ) throws(PhotoFailure) -> HTTPHead {
        try client.fetchHead(
            url, bytes: bytes, cancellable: cancellable, byteLimit: 10 << 20, connectSeconds: 10, maxRedirects: 3)
    }

    private func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "classic-photos-range-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("A server that honours Range sends the first bytes alone, with the photo's size")
    func partial() throws {
        #expect(Self.photo.count > 32 << 10)
        let server = try LoopbackServer()
        let client = HTTPClient()
        guard case .partial(let data, let total, _) = try head(client, server.url("/photos/hubble-deep-field.jpg"))
        else {
            Issue.record("not partial")
            return
        }
        #expect(data == Self.photo.prefix(16 << 10))
        #expect(total == Self.photo.count)
        #expect(server.rangeRequestCount("/photos/hubble-deep-field.jpg") == 1)
        #expect(server.photoBytesSent == 16 << 10)
        // A photo shorter than the head asked for is whole.
        guard case .whole(let whole) = try head(client, server.url("/photos/hubble-deep-field.jpg"), bytes: 10 << 20)
        else {
            Issue.record("a short photo's head is not whole")
            return
        }
        #expect(whole.data == Self.photo)
    }

    @Test("A server that ignores Range is read in full, with no second request")
    func ignored() throws {
        let server = try LoopbackServer()
        guard case .whole(let response) = try head(HTTPClient(), server.url("/norange/hubble-deep-field.jpg")) else {
            Issue.record("not whole")
            return
        }
        #expect(response.data == Self.photo)
        #expect(server.requestCount("/norange/hubble-deep-field.jpg") == 1)
    }

    @Test("A 206 whose Content-Range is not the part asked for fails as transport")
    func wrongRange() throws {
        let server = try LoopbackServer()
        do throws(PhotoFailure) {
            _ = try head(HTTPClient(), server.url("/badrange/hubble-deep-field.jpg"))
            Issue.record("accepted")
        } catch {
            #expect(error.reason == .transport, "\(error)")
        }
        // An empty photo has no first byte: empty, not an HTTP error.
        do throws(PhotoFailure) {
            _ = try head(HTTPClient(), server.url("/empty"))
        } catch {
            #expect(error.reason == .empty, "\(error)")
        }
    }

    @Test("The disk cache never hands a head to a whole fetch, nor keeps one as the photo, across launches")
    func cache() throws {
        let server = try LoopbackServer()
        let cacheFolder = try folder()
        defer { try? FileManager.default.removeItem(at: cacheFolder) }
        let url = server.url("/cacheable/hubble-deep-field.jpg")
        let first = HTTPClient(cacheDirectory: cacheFolder)
        guard case .partial = try head(first, url) else { Issue.record("not partial"); return }
        first.flushCache()
        let whole = try first.fetch(
            url, cancellable: Cancellable(), byteLimit: 10 << 20, connectSeconds: 10, maxRedirects: 3)
        #expect(whole.data == Self.photo)
        #expect(whole.partialOf == nil)
        first.close()

        // The next launch: the whole photo from the cache; a head is the head again, or the
        // whole photo, never anything else.
        let second = HTTPClient(cacheDirectory: cacheFolder)
        let requests = server.requestCount("/cacheable/hubble-deep-field.jpg")
        let again = try second.fetch(
            url, cancellable: Cancellable(), byteLimit: 10 << 20, connectSeconds: 10, maxRedirects: 3)
        #expect(again.data == Self.photo)
        #expect(server.requestCount("/cacheable/hubble-deep-field.jpg") == requests, "kept on disk")
        switch try head(second, url) {
        case .partial(let data, _, _): #expect(data == Self.photo.prefix(16 << 10))
        case .whole(let response): #expect(response.data == Self.photo)
        }
        second.close()
    }

    @Test("Cancelling a head request ends it at once")
    func cancelled() throws {
        let server = try LoopbackServer()
        server.holdPhotos()
        defer { server.releasePhotos() }
        let cancellable = Cancellable()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { cancellable.cancel() }
        do throws(PhotoFailure) {
            _ = try head(HTTPClient(), server.url("/photos/hubble-deep-field.jpg"), cancellable: cancellable)
            Issue.record("finished")
        } catch {
            #expect(error.isCancellation)
        }
    }

    @Test("A paced link takes its time: 1 MB at 8 Mbit/s takes about a second")
    func pacedLink() throws {
        let server = try LoopbackServer(photos: try folder())
        defer { try? FileManager.default.removeItem(at: URL(fileURLWithPath: server.photosFolder)) }
        try Data(repeating: 0x5A, count: 1 << 20).write(
            to: URL(fileURLWithPath: server.photosFolder).appendingPathComponent("big.jpg"))
        server.setLink(bitsPerSecond: 8_000_000, latencyMs: 30)
        let start = Date()
        let data = try HTTPClient().get(
            server.url("/photos/big.jpg"), cancellable: Cancellable(), byteLimit: 10 << 20,
            connectSeconds: 10, maxRedirects: 3)
        let seconds = Date().timeIntervalSince(start)
        #expect(data.count == 1 << 20)
        #expect(server.photoBytesSent == 1 << 20)
        // A lower bound only (with slack): the link is slow, never fast; how slow is the benchmark's to say.
        #expect(seconds > 0.8, "took \(seconds) s")
    }
}
