/// What drove a scroll, as `scroll.begin` traces it.
public enum ScrollVia: String, Sendable, CaseIterable {
    case wheel, touchpad, scrollbar, keyboard, kinetic
    /// The program moved the list (no user input seen just before).
    case program
}
