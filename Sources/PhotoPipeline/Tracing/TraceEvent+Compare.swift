extension TraceEvent {
    /// The compare view's events, as `layOut(into:)` writes them.
    func layOutCompare(into p: inout some TraceEventParts) {
        switch self {
        case .compareOpen(let count):
            p.name(.compareOpen)
            p.field(.count, count)
        case .compareImage(let id, let width, let height, let state):
            p.name(.compareImage)
            p.field(.id, id)
            p.field(.w, width)
            p.field(.h, height)
            p.field(.state, state)
        case .compareView(let id, let level, let x, let y):
            p.name(.compareView)
            p.field(.id, id)
            p.field(.level, level)
            p.field(.x, x)
            p.field(.y, y)
        case .compareFocus(let id):
            p.name(.compareFocus)
            p.field(.id, id)
        case .compareClose:
            p.name(.compareClose)
        default: break
        }
    }
}
