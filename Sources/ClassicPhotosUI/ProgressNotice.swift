import CGLib
import CGtk
import Foundation
import GLibKit
import GtkKit
import PhotoPipeline

/// Work on many photos that takes a while, said over the bottom of the window: what is being
/// done and how far it is ("Moving 3,214 of 10,000 photos to the trash"), a bar, and Cancel.
/// Work that ends within a second is never shown; the notice stays over the viewer too.
@MainActor
final class ProgressNotice {
    /// One piece of work the notice follows.
    final class Job {
        let kind: FileBatchKind
        let total: Int
        fileprivate(set) var done = 0
        fileprivate let text: (_ done: Int, _ total: Int) -> String
        fileprivate let cancel: () -> Void

        fileprivate init(
            kind: FileBatchKind, total: Int, text: @escaping (Int, Int) -> String, cancel: @escaping () -> Void
        ) {
            self.kind = kind
            self.total = total
            self.text = text
            self.cancel = cancel
        }
    }

    /// How long work runs before the notice says so.
    static let delay: UInt32 = 1_000

    private let box: Widget<Box>
    private let label: Widget<Label>
    private let bar: Widget<ProgressBar>
    private var jobs: [Job] = []
    private var showing: MainLoopSource?
    private var connections: [SignalConnection] = []

    /// Puts the (hidden) notice over `area`, above what it holds already.
    init(over area: Widget<Overlay>) {
        box = .make(GTK_ORIENTATION_HORIZONTAL, spacing: 12)
        box.addCSSClass("osd")
        box.addCSSClass("progress-notice")
        box.setHorizontalAlign(GTK_ALIGN_CENTER)
        box.setVerticalAlign(GTK_ALIGN_END)
        box.setMargins(horizontal: 12, vertical: 24)
        box.isVisible = false
        let column = Widget<Box>.make(GTK_ORIENTATION_VERTICAL, spacing: 6)
        column.setVerticalAlign(GTK_ALIGN_CENTER)
        label = .make()
        label.setHorizontalAlign(GTK_ALIGN_START)
        bar = .make()
        bar.setSizeRequest(width: 280, height: -1)
        column.append(label)
        column.append(bar)
        let cancel = Widget<Button>.make(mnemonic: tr("_Cancel"))
        cancel.setVerticalAlign(GTK_ALIGN_CENTER)
        box.append(column)
        box.append(cancel)
        area.addOverlay(box)
        connections.append(cancel.connect("clicked") { [unowned self] in jobs.forEach { $0.cancel() } })
    }

    /// Follows work on `total` photos; `text` words it, `cancel` stops it.
    func begin(
        _ kind: FileBatchKind, total: Int, text: @escaping (_ done: Int, _ total: Int) -> String,
        cancel: @escaping () -> Void
    ) -> Job {
        let job = Job(kind: kind, total: total, text: text, cancel: cancel)
        jobs.append(job)
        if !box.isVisible, showing == nil {
            showing = MainLoopSource.onMainActor(.timeout(milliseconds: Self.delay)) { [weak self] in
                self?.showing = nil
                self?.show()
                return .remove
            }
        }
        return job
    }

    /// `job` has done `done` of its photos.
    func update(_ job: Job, done: Int) {
        job.done = done
        guard box.isVisible else { return }
        refresh()
        Trace.shared.emit(.batchProgress(kind: job.kind, done: done, count: job.total))
    }

    /// `job` is over; the notice goes with the last.
    func end(_ job: Job) {
        jobs.removeAll { $0 === job }
        if jobs.isEmpty {
            showing = nil
            box.isVisible = false
        } else if box.isVisible {
            refresh()
        }
    }

    private func show() {
        guard !jobs.isEmpty else { return }
        box.isVisible = true
        refresh()
        for job in jobs { Trace.shared.emit(.batchProgress(kind: job.kind, done: job.done, count: job.total)) }
    }

    /// The latest work's words, and a bar for all of it.
    private func refresh() {
        guard let latest = jobs.last else { return }
        label.setText(latest.text(latest.done, latest.total))
        let total = jobs.reduce(0) { $0 + $1.total }
        bar.setFraction(total > 0 ? Double(jobs.reduce(0) { $0 + $1.done }) / Double(total) : 0)
    }

    /// Lets go of the handlers (the window is closing); work still running is stopped.
    func close() {
        jobs.forEach { $0.cancel() }
        jobs = []
        showing = nil
        connections.removeAll()
    }
}
