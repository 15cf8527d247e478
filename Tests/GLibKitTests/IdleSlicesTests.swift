import CGLib
import Foundation
import GLibKit
import Testing
import TestSupport

/// `IdleSlices` on the default main context, turned by the test on the main actor. A marker
/// source of the same priority runs once in every iteration, so the steps' record shows which
/// slice each ran in.
@Suite(.serialized) @MainActor struct IdleSlicesTests {
    /// What ran, in order: "s" for a step, "|" for an iteration's marker.
    private final class Record {
        var text = ""
        /// The steps run, slice by slice (the markers between them).
        var slices: [Int] { text.split(separator: "|").map(\.count).filter { $0 > 0 } }
        var steps: Int { text.filter { $0 == "s" }.count }
    }

    /// Marks each iteration of the default context (at the slices' priority) until dropped.
    private func marking(_ record: Record) -> MainLoopSource {
        MainLoopSource.onMainActor(.idle, priority: G_PRIORITY_DEFAULT_IDLE) {
            record.text += "|"
            return .continue
        }
    }

    @Test("Cheap steps go many to a slice, in order, until one says it is done")
    func cheapStepsShareASlice() async {
        let record = Record()
        var order: [Int] = []
        let slices = IdleSlices {
            order.append(order.count)
            record.text += "s"
            return order.count < 20 ? .more : .done
        }
        let marker = marking(record)
        slices.start()
        #expect(slices.isRunning)
        #expect(await waitUntil(5) { !slices.isRunning })
        marker.cancel()
        #expect(order == Array(0..<20))
        #expect(record.slices.count < 5, "\(record.text)") // one slice, unless the machine stalls it
    }

    @Test("A slice stops once it has taken the budget: steps of 2 ms go at most two to a slice")
    func sliceKeepsToItsBudget() async {
        let record = Record()
        var count = 0
        let slices = IdleSlices {
            usleep(2_000)
            count += 1
            record.text += "s"
            return count < 12 ? .more : .done
        }
        let marker = marking(record)
        slices.start()
        #expect(await waitUntil(5) { !slices.isRunning })
        marker.cancel()
        #expect(count == 12)
        #expect(record.slices.allSatisfy { $0 <= 2 } && record.slices.count >= 6, "\(record.text)")
    }

    @Test("Started now, the first slice runs before start returns; the rest at later iterations")
    func startNow() async {
        var count = 0
        let slices = IdleSlices {
            usleep(4_000)
            count += 1
            return count < 3 ? .more : .done
        }
        slices.start(now: true)
        #expect(count == 1)
        #expect(slices.isRunning)
        #expect(await waitUntil(5) { !slices.isRunning })
        #expect(count == 3)

        // Work that fits in the first slice leaves nothing running.
        var quick = 0
        let done = IdleSlices {
            quick += 1
            return .done
        }
        done.start(now: true)
        #expect(quick == 1 && !done.isRunning)
    }

    @Test("Cancelled from a step, no step runs after it; start while running does nothing; done, it starts again")
    func cancelAndRestart() async {
        var count = 0
        var slices: IdleSlices!
        slices = IdleSlices {
            count += 1
            if count == 3 { slices.cancel() }
            return .more
        }
        slices.start()
        slices.start()
        #expect(await waitUntil(5) { !slices.isRunning })
        await MainLoop.turn(milliseconds: 20)
        #expect(count == 3)
        slices = nil

        var runs = 0
        let again = IdleSlices {
            runs += 1
            return .done
        }
        again.start()
        #expect(await waitUntil(5) { !again.isRunning })
        again.start()
        #expect(await waitUntil(5) { !again.isRunning })
        #expect(runs == 2)
    }

    @Test("Dropping the handle stops the slices")
    func droppedHandleStops() async {
        var count = 0
        var slices: IdleSlices? = IdleSlices {
            count += 1
            return count < 5 ? .more : .done
        }
        slices?.start()
        #expect(slices?.isRunning == true)
        slices = nil
        await MainLoop.turn(milliseconds: 30)
        #expect(count == 0)
    }
}
