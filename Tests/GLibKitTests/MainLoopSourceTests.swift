import CGLib
import Foundation
import GLibKit
import Synchronization
import Testing

/// `MainLoopSource` on a private main context iterated by the test itself: callbacks fire when
/// and as often as asked, and GLib releases every closure box whichever way the source ends.
/// Boxes are followed through weak references to what each closure holds (a process-wide
/// count would see other suites running in parallel).
@Suite(.serialized) struct MainLoopSourceTests {
    /// A private main context, iterated without blocking so a test can stop at any time.
    private final class Context {
        let pointer: OpaquePointer = g_main_context_new()

        deinit { g_main_context_unref(pointer) }

        /// Iterates until `done` holds or `seconds` pass; returns whether `done` held.
        @discardableResult
        func run(seconds: Double, until done: () -> Bool = { false }) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while !done() {
                if Date() > deadline { return false }
                if g_main_context_iteration(pointer, 0) == 0 { usleep(500) }
            }
            return true
        }
    }

    /// Captured by a callback: once it is gone, so is the closure holding it.
    private final class Sentinel: Sendable {}

    /// Counts callback runs from whichever thread they happen on.
    private final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        var count: Int { value.load(ordering: .sequentiallyConsistent) }
        @discardableResult func increment() -> Int { value.add(1, ordering: .sequentiallyConsistent).newValue }
    }

    @Test("A timeout fires once, after about its delay, and its box is released after it fires")
    func timeoutFiresOnce() {
        let context = Context()
        let fired = Counter()
        let firedAt = Locked<Date?>(nil)
        weak var weakSentinel: Sentinel?
        let start = Date()
        let source: MainLoopSource
        do {
            let sentinel = Sentinel()
            weakSentinel = sentinel
            source = MainLoopSource(.timeout(milliseconds: 60), on: context.pointer) {
                withExtendedLifetime(sentinel) {}
                fired.increment()
                firedAt.withLock { $0 = Date() }
                return .remove
            }
        }
        #expect(source.isActive)
        #expect(context.run(seconds: 5) { fired.count > 0 })
        let delayMs = (firedAt.withLock { $0 } ?? start).timeIntervalSince(start) * 1000
        #expect(delayMs >= 55)
        #expect(delayMs < 2000)
        context.run(seconds: 0.2)
        #expect(fired.count == 1)
        #expect(!source.isActive)
        #expect(weakSentinel == nil)
    }

    @Test("A cancelled source never fires, and its box is released at once")
    func cancelledSourceNeverFires() {
        let context = Context()
        let fired = Counter()
        weak var weakSentinel: Sentinel?
        let timeout: MainLoopSource, idle: MainLoopSource
        do {
            let sentinel = Sentinel()
            weakSentinel = sentinel
            timeout = MainLoopSource(.timeout(milliseconds: 20), on: context.pointer) {
                withExtendedLifetime(sentinel) {}
                fired.increment()
                return .remove
            }
            idle = MainLoopSource(.idle, on: context.pointer) {
                fired.increment()
                return .continue
            }
        }
        timeout.cancel()
        idle.cancel()
        idle.cancel() // twice is harmless
        #expect(weakSentinel == nil)
        #expect(!timeout.isActive && !idle.isActive)
        context.run(seconds: 0.15)
        #expect(fired.count == 0)
    }

    @Test("Dropping the handle removes the source and releases its box")
    func droppedHandleRemovesSource() {
        let context = Context()
        let fired = Counter()
        weak var weakSentinel: Sentinel?
        do {
            let sentinel = Sentinel()
            weakSentinel = sentinel
            let owned = MainLoopSource(.timeout(milliseconds: 10), on: context.pointer) {
                withExtendedLifetime(sentinel) {}
                fired.increment()
                return .continue
            }
            #expect(owned.isActive)
        }
        #expect(weakSentinel == nil)
        context.run(seconds: 0.1)
        #expect(fired.count == 0)
    }

    @Test("A callback that continues runs again until it asks to be removed")
    func continueRepeats() {
        let context = Context()
        let fired = Counter()
        let source = MainLoopSource(.idle, on: context.pointer) {
            fired.increment() < 3 ? .continue : .remove
        }
        #expect(context.run(seconds: 5) { !source.isActive })
        context.run(seconds: 0.05)
        #expect(fired.count == 3)
    }

    @Test("A detached one-shot runs with no handle kept, then its box is released")
    func detachedOneShotRuns() {
        let context = Context()
        let fired = Counter()
        weak var weakSentinel: Sentinel?
        do {
            let sentinel = Sentinel()
            weakSentinel = sentinel
            MainLoopSource.attachDetached(.idle, on: context.pointer) {
                withExtendedLifetime(sentinel) {}
                fired.increment()
                return .remove
            }
        }
        #expect(weakSentinel != nil) // GLib holds it until the source runs
        #expect(context.run(seconds: 5) { fired.count == 1 })
        #expect(weakSentinel == nil)
    }

    @Test("Callbacks run on the thread that iterates the context, not the one that attached them")
    func runsOnTheContextsThread() {
        let context = Context()
        let ranOn = Locked<Thread?>(nil)
        let attached = DispatchSemaphore(value: 0)
        let holder = Locked<MainLoopSource?>(nil)
        let contextPointer = UnsafeSendable(context.pointer)
        Thread.detachNewThread {
            let source = MainLoopSource(.idle, on: contextPointer.value) {
                ranOn.withLock { $0 = Thread.current }
                return .remove
            }
            holder.withLock { $0 = source }
            attached.signal()
        }
        attached.wait()
        #expect(context.run(seconds: 5) { ranOn.withLock { $0 } != nil })
        #expect(ranOn.withLock { $0 } == Thread.current)
        holder.withLock { $0 = nil }
    }

    @Test("A file descriptor watch fires when the descriptor is readable")
    func fileDescriptorWatch() {
        let context = Context()
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let reader = fds[0]
        let received = Locked<[UInt8]>([])
        let watch = MainLoopSource(.fileDescriptor(reader, condition: G_IO_IN), on: context.pointer) {
            var byte: UInt8 = 0
            if read(reader, &byte, 1) == 1 { received.withLock { $0.append(byte) } }
            return .continue
        }
        context.run(seconds: 0.05)
        #expect(received.withLock { $0 }.isEmpty)
        var byte: UInt8 = 42
        #expect(write(fds[1], &byte, 1) == 1)
        #expect(context.run(seconds: 5) { !received.withLock { $0 }.isEmpty })
        #expect(received.withLock { $0 } == [42])
        watch.cancel()
    }

    @Test("A Unix signal is delivered to the callback on the context's thread")
    func unixSignal() {
        let context = Context()
        let fired = Counter()
        let watch = MainLoopSource(.unixSignal(SIGUSR1), on: context.pointer) {
            fired.increment()
            return .continue
        }
        kill(getpid(), SIGUSR1)
        #expect(context.run(seconds: 5) { fired.count == 1 })
        kill(getpid(), SIGUSR1)
        #expect(context.run(seconds: 5) { fired.count == 2 })
        watch.cancel()
    }
}

/// Carries a C pointer to a thread that only passes it on to GLib.
private struct UnsafeSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
