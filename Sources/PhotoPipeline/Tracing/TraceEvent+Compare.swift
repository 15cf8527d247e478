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

extension TraceEvent {
    /// The photo editor's events, as `layOut(into:)` writes them.
    func layOutEdit(into p: inout some TraceEventParts) {
        switch self {
        case .editBegin(let id):
            p.name(.editBegin)
            p.field(.id, id)
        case .editSaved(let id, let path, let lossless, let w, let h, let ms):
            p.name(.editSaved)
            p.field(.id, id)
            p.field(.path, path)
            p.field(.lossless, lossless)
            p.field(.w, w)
            p.field(.h, h)
            p.field(.ms, ms)
        case .editSaving(let id):
            p.name(.editSaving)
            p.field(.id, id)
        case .editFailed(let id, let error):
            p.name(.editFailed)
            p.field(.id, id)
            p.field(.error, error)
        default: break
        }
    }
}

extension TraceEvent {
    /// The filter's, the search's and the details panel's events, as `layOut(into:)` writes them.
    func layOutFinding(into p: inout some TraceEventParts) {
        switch self {
        case .filterChanged(let shown, let total, let reading, let ms, let elapsed):
            p.name(.filterChanged)
            p.field(.shown, shown)
            p.field(.total, total)
            p.field(.reading, reading)
            p.field(.ms, ms)
            p.field(.elapsed, elapsed)
        case .searchChanged(let query, let shown, let total, let ms):
            p.name(.searchChanged)
            p.field(.query, query)
            p.field(.shown, shown)
            p.field(.total, total)
            p.field(.ms, ms)
        case .searchOpen:
            p.name(.searchOpen)
        case .viewerDetails(let id, let fields, let sheet, let ms):
            p.name(.viewerDetails)
            if let id { p.field(.id, id) }
            p.field(.fields, fields)
            p.field(.sheet, sheet)
            p.field(.ms, ms)
        default: break
        }
    }
}
