import CGLib
import Foundation
import GLibKit
import Synchronization
import Testing
import TestSupport

/// `Debounce` on the main actor (the default context, turned by the test) and on a private
/// context.
@Suite(.serialized) @MainActor struct DebounceTests {
    @Test("Scheduled again before it fires, the wait starts over; it fires once, after the last")
    func restartsAndFiresOnce() async {
        var fired: [Date] = []
        let debounce = Debounce.onMainActor { fired.append(Date()) }
        // 150 ms in all, each wait of 60 ms put off before it is over. The loop does not turn
        // meanwhile (a busy machine may turn it late): a wait replaced is gone, due or not.
        var lastScheduled = Date()
        for _ in 0..<5 {
            lastScheduled = Date()
            debounce.schedule(afterMilliseconds: 60)
            #expect(debounce.isPending)
            usleep(30_000)
        }
        #expect(await waitUntil(5) { !fired.isEmpty })
        await MainLoop.turn(milliseconds: 100)
        #expect(fired.count == 1)
        let after = (fired.first ?? .distantPast).timeIntervalSince(lastScheduled) * 1000
        #expect(after >= 55, "fired \(after) ms after the last schedule")
        #expect(!debounce.isPending)
    }

    @Test("Cancelled, it does not fire; scheduled again, it does")
    func cancel() async {
        var count = 0
        let debounce = Debounce.onMainActor { count += 1 }
        debounce.schedule(afterMilliseconds: 10)
        debounce.cancel()
        #expect(!debounce.isPending)
        await MainLoop.turn(milliseconds: 40)
        #expect(count == 0)
        debounce.schedule(afterMilliseconds: 10)
        #expect(await waitUntil(5) { count == 1 })
    }

    @Test("The wait is over when the action runs: the action may schedule again")
    func actionSchedulesAgain() async {
        var count = 0
        var pendingInAction: [Bool] = []
        let holder = Holder()
        holder.debounce = Debounce.onMainActor {
            count += 1
            pendingInAction.append(holder.debounce?.isPending ?? true)
            if count < 3 { holder.debounce?.schedule(afterMilliseconds: 5) }
        }
        holder.debounce?.schedule(afterMilliseconds: 5)
        #expect(await waitUntil(5) { count == 3 })
        await MainLoop.turn(milliseconds: 30)
        #expect(count == 3 && pendingInAction == [false, false, false])
        holder.debounce = nil
    }

    @MainActor private final class Holder {
        var debounce: Debounce?
    }

    @Test("Dropped, it does not fire")
    func dropped() async {
        var count = 0
        var debounce: Debounce? = Debounce.onMainActor { count += 1 }
        debounce?.schedule(afterMilliseconds: 10)
        debounce = nil
        await MainLoop.turn(milliseconds: 40)
        #expect(count == 0)
    }

    @Test("On a context of its own, the action runs on the thread that iterates it")
    nonisolated func otherContext() {
        let context = g_main_context_new()!
        defer { g_main_context_unref(context) }
        let fired = Atomic<Int>(0)
        let debounce = Debounce(on: context) { fired.add(1, ordering: .sequentiallyConsistent) }
        debounce.schedule(afterMilliseconds: 30)
        debounce.schedule(afterMilliseconds: 30)
        let deadline = Date().addingTimeInterval(5)
        while fired.load(ordering: .sequentiallyConsistent) == 0, Date() < deadline {
            if g_main_context_iteration(context, 0) == 0 { usleep(1_000) }
        }
        let until = Date().addingTimeInterval(0.1)
        while Date() < until {
            if g_main_context_iteration(context, 0) == 0 { usleep(1_000) }
        }
        #expect(fired.load(ordering: .sequentiallyConsistent) == 1)
    }
}
