/// What drove a scroll, as `scroll.begin` traces it.
public enum ScrollVia: String, Sendable, CaseIterable {
    case wheel, touchpad, scrollbar, keyboard, kinetic
    /// The program moved the list (no user input seen just before).
    case program
    /// The grid's cells were made larger or smaller: the cells on screen change as in a scroll.
    case zoom
}
