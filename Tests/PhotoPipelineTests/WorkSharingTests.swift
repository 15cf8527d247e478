import Foundation
import GLibKit
import PhotoPipeline
import Testing

/// The one way work is shared (HTTP transfers, rows' pictures, the viewer joining a row's
/// download), alone: joining, leaving, abandoning, and outcomes reaching every waiter.
@Suite struct WorkSharingTests {
    private typealias Sharing = WorkSharing<PhotoRequest, Int, String>

    private let photo = PhotoRequest(
        address: URL(string: "https://example.org/a.jpg")!, size: 80, kind: .picture(.crop))

    @Test("The first request starts the work and makes its job; later ones join it and get the same outcome")
    func joining() throws {
        let sharing = Sharing()
        var made = 0
        let first = sharing.join(photo) { _ in
            made += 1; return 7
        }
        let second = sharing.join(photo) { _ in
            made += 1; return 8
        }
        #expect(first.started && !second.started)
        #expect(made == 1 && second.job == 7 && first.work === second.work)
        #expect(sharing.jobs == [7])
        // Another size is other work.
        let larger = PhotoRequest(address: photo.address, size: 160, kind: .picture(.crop))
        #expect(sharing.join(larger) { _ in 9 }.started)
        #expect(Set(sharing.jobs) == [7, 9])

        sharing.finish(first.work, .success("picture"))
        #expect(try first.wait().get() == "picture" && second.wait().get() == "picture")
        #expect(sharing.jobs == [9])
        // Once finished, the same request starts anew.
        #expect(sharing.join(photo) { _ in 10 }.started)
    }

    @Test("One of two waiters cancelling leaves the work running for the other")
    func oneLeaves() throws {
        let sharing = Sharing()
        let first = sharing.join(photo) { _ in 1 }
        let second = sharing.join(photo) { _ in 2 }
        #expect(!sharing.leave(first), "someone still waits: not abandoned")
        #expect(first.wait().isCancellation, "the one who left stops waiting at once")
        #expect(sharing.jobs == [1])
        sharing.finish(first.work, .success("done"))
        #expect(try second.wait().get() == "done")
        #expect(sharing.joinRunning(photo) == nil)
    }

    @Test("Every waiter cancelling abandons the work; a request after that starts it anew")
    func allLeave() {
        let sharing = Sharing()
        let first = sharing.join(photo) { _ in 1 }
        let second = sharing.join(photo) { _ in 2 }
        #expect(!sharing.leave(second))
        #expect(sharing.leave(first), "the last waiter left: its job is to be aborted")
        #expect(sharing.jobs.isEmpty)
        let again = sharing.join(photo) { _ in 3 }
        #expect(again.started && again.job == 3)
        // The abandoned work ending late reaches nobody, and leaves the new work alone.
        sharing.finish(first.work, .success("late"))
        #expect(sharing.jobs == [3])
        #expect(first.wait().isCancellation && second.wait().isCancellation)
    }

    @Test("A failure reaches every waiter")
    func failureReachesAll() {
        let sharing = Sharing()
        let tickets = (0..<3).map { n in sharing.join(photo) { _ in n } }
        sharing.finish(tickets[0].work, .failure(PhotoFailure.http(status: 404, phrase: "Not Found")))
        for ticket in tickets {
            guard case .failure(let failure) = ticket.wait() else {
                Issue.record("a waiter got no failure")
                continue
            }
            #expect(failure.kind == .http(status: 404))
        }
    }

    @Test("Waiters on other threads are all woken by the outcome")
    func threads() async {
        let sharing = Sharing()
        let first = sharing.join(photo) { _ in 1 }
        let got = Locked<[String]>([])
        let waiters = (0..<4).map { _ in
            let ticket = sharing.join(photo) { _ in 2 }
            return Thread { got.withLock { $0.append((try? ticket.wait().get()) ?? "") } }
        }
        for thread in waiters { thread.start() }
        sharing.finish(first.work, .success("shared"))
        let deadline = Date().addingTimeInterval(10)
        while got.withLock({ $0.count }) < 4, Date() < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        #expect(got.withLock { $0 } == Array(repeating: "shared", count: 4))
    }

    @Test("joinRunning joins only work in flight whose job it accepts; a closed sharing starts nothing")
    func runningAndClosed() throws {
        let sharing = Sharing()
        #expect(sharing.joinRunning(photo) == nil)
        let first = sharing.join(photo) { _ in 5 }
        #expect(sharing.joinRunning(photo) { $0 == 6 } == nil)
        let joined = sharing.joinRunning(photo) { $0 == 5 }
        #expect(joined?.work === first.work && joined?.started == false)

        #expect(sharing.close() == [5])
        #expect(sharing.isClosed && sharing.jobs.isEmpty)
        let late = sharing.join(photo) { _ in 6 }
        #expect(!late.started && late.wait().isCancellation)
        // Work in flight when closed still ends for those waiting on it.
        sharing.finish(first.work, .success("end"))
        #expect(try first.wait().get() == "end")
    }
}

extension Result where Failure == PhotoFailure {
    fileprivate var isCancellation: Bool {
        if case .failure(let failure) = self { failure.isCancellation } else { false }
    }
}
