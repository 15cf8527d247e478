/// Tells a double-click by when its presses happened (the times the display server stamped on
/// them), not by when the app got round to them.
///
/// GTK 4.8's click gesture ends its count of presses with a wall-clock timer, so when the main
/// loop is held up between handling the two presses of a double-click (a large picture painted
/// on a busy machine), the timer fires first and the pair counts as two single clicks.
public struct DoubleClick: Sendable {
    /// The longest time from the first press to the second (milliseconds) and the farthest the
    /// second may be from the first along either axis (logical pixels): the desktop's settings.
    public var time: UInt32
    public var distance: Double
    private var first: (time: UInt32, x: Double, y: Double)?

    public init(time: UInt32 = 400, distance: Double = 5) {
        self.time = time
        self.distance = distance
    }

    /// A press at `time` (the event's, in milliseconds) and `x`, `y`: true when it is the second
    /// press of a double-click, after which the count starts again (a third press is a first).
    public mutating func press(at time: UInt32, x: Double, y: Double) -> Bool {
        // The server's clock is 32 bits of milliseconds and wraps; a press stamped before the
        // first comes out far beyond the limit.
        if let first, time &- first.time <= self.time, abs(x - first.x) <= distance, abs(y - first.y) <= distance {
            self.first = nil
            return true
        }
        first = (time, x, y)
        return false
    }

    /// The press under way became a drag (the picture panned): the next press is a first.
    public mutating func reset() { first = nil }

    /// The press under way moved `dx`, `dy` from where it began: past the distance it is a drag,
    /// and the next press is a first.
    public mutating func moved(dx: Double, dy: Double) {
        if abs(dx) > distance || abs(dy) > distance { first = nil }
    }
}
