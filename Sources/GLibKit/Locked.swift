import Foundation

/// A value guarded by a lock, for state that threads share (every such value in the app, its
/// tests and its benchmark uses it). It uses Foundation's `NSLock` (a pthread mutex) rather
/// than the standard library's `Mutex`, whose futex-based lock ThreadSanitizer cannot see on
/// Linux: code guarded by it was reported as racing with itself, which kept the app from
/// running under it, and made test runs under it fail now and then. Give it a value to guard:
/// a `Locked(())` made ThreadSanitizer report its empty value as racing with itself.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// A result that one thread sets once and any number of threads wait for (pthread-based, for
/// the same reason as `Locked`).
public final class OneShot<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Value?

    public init() {}

    /// Sets the value if none was set; returns whether this call set it.
    @discardableResult
    public func set(_ newValue: Value) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard value == nil else { return false }
        value = newValue
        condition.broadcast()
        return true
    }

    /// Whether the value is set (without waiting for it).
    public var isSet: Bool {
        condition.lock()
        defer { condition.unlock() }
        return value != nil
    }

    /// Waits until the value is set, and returns it.
    public func wait() -> Value {
        condition.lock()
        defer { condition.unlock() }
        while value == nil { condition.wait() }
        return value!
    }
}
