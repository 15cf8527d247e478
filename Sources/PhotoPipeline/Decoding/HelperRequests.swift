import CGLib
import Foundation
import GLibKit

/// What the app says to a helper about one picture, and what it makes of the answer (see
/// `DecoderMessage`): the request with the picture's descriptor, the helper's asks for memory
/// from the app's budget, a cancel, the deadline, and the reply checked against what was asked.
extension HelperRoster {
    /// What a picture is handed to a helper as.
    enum Input {
        case bytes(Data)
        case descriptor(Int32)
    }

    struct Decoded {
        var image: PhotoImage?
        var outcome: DecodeReply.Outcome
        /// A file the helper made (a RAW file's preview).
        var file: Data? = nil
        /// An animation's frames.
        var frames: [PhotoImage] = []
    }

    /// Runs `job` on `input` in a helper; the caller keeps its descriptor (a copy is sent).
    func run(
        _ job: DecodeRequest.Job, input: Input, limits: DecodeLimits, budget: DecodeMemoryBudget,
        cancellable: Cancellable
    ) throws(PhotoFailure) -> Decoded {
        let fd: Int32
        switch input {
        case .descriptor(let given): fd = given
        case .bytes(let data): fd = try SealedPixels.sealedFile(holding: data)
        }
        defer { if case .bytes = input { close(fd) } }
        var helper = try checkOut(cancellable: cancellable)
        let id = nextRequestID()
        let request = DecodeRequest(id: id, job: job, limits: limits, budgetBytes: budget.capacity)
        if helper.channel.send(.request(request), attached: fd) != nil {
            // It left or died while idle: a fresh one takes the picture.
            retire(helper, died: true)
            helper = try checkOut(cancellable: cancellable)
            if let error = helper.channel.send(.request(request), attached: fd) {
                retire(helper, died: true)
                throw PhotoFailure(
                    .decoderCrashed,
                    detail: "The decoder helper did not take the picture: \(String(cString: strerror(error)))")
            }
        }
        return try waitForReply(id, from: helper, limits: limits, budget: budget, cancellable: cancellable)
    }

    private func waitForReply(
        _ id: UInt64, from helper: HelperProcess, limits: DecodeLimits, budget: DecodeMemoryBudget,
        cancellable: Cancellable
    ) throws(PhotoFailure) -> Decoded {
        // What the helper reserved of the budget, given back when the decode ends, however it ends.
        var reservations: [DecodeMemoryBudget.Reservation] = []
        defer { for reservation in reservations { reservation.release() } }
        let deadline = Self.monotonicSeconds + deadlineSeconds
        let budgetDeadline = DispatchTime.now() + deadlineSeconds
        var cancelSent = false
        /// A helper that stops reading what the app sends is not waited for.
        func send(_ message: DecoderMessage) throws(PhotoFailure) {
            guard let error = helper.channel.send(message) else { return }
            retire(helper, died: error != EAGAIN)
            throw PhotoFailure(
                .decoderCrashed,
                detail: "The decoder stopped listening to the app (\(String(cString: strerror(error))))")
        }
        while true {
            if cancellable.isCancelled, !cancelSent {
                cancelSent = true
                try send(.cancel(id))
            }
            if Self.monotonicSeconds > deadline {
                retire(helper, died: false)
                throw PhotoFailure(
                    .timeout,
                    detail: "Decoding took more than \(PhotoLimits.seconds(deadlineSeconds)); the decoder was stopped")
            }
            guard helper.channel.waitReadable(milliseconds: 50) else { continue }
            switch helper.channel.receive() {
            case .closed:
                let (how, _) = retire(helper, died: true)
                throw PhotoFailure(.decoderCrashed, detail: "The decoder \(how) while decoding this picture")
            case .message(.reply(let reply), let fd) where reply.id == id:
                checkIn(helper)
                return try Self.decoded(reply.outcome, fd: fd, limits: limits)
            case .message(.reserve(let asked, let bytes), let fd) where asked == id:
                if let fd { close(fd) }
                var refusal: PhotoFailure?
                // One picture's reservations together fit in the budget (else two halves
                // and a bit would wait for each other for ever); the wait ends with the decode's.
                let held = reservations.reduce(0) { $0 + $1.bytes }
                if bytes < 0 || bytes > budget.capacity - held {
                    refusal = PhotoFailure(
                        .tooManyPixels,
                        detail: "Decoding it would need more than \(PhotoLimits.megabytes(budget.capacity)) of memory")
                } else {
                    do throws(PhotoFailure) {
                        reservations.append(
                            try budget.reserve(bytes, cancellable: cancellable, deadline: budgetDeadline))
                    } catch {
                        refusal = error
                    }
                }
                try send(.reserved(id: id, refusal: refusal))
            case .message(_, let fd):
                if let fd { close(fd) } // an answer to an earlier request, or noise
            }
        }
    }

    /// What a reply means, once what it says has been checked against what was asked: no
    /// more pixels than the limits allow, no larger file than the picture was.
    private static func decoded(
        _ outcome: DecodeReply.Outcome, fd: Int32?, limits: DecodeLimits
    ) throws(PhotoFailure) -> Decoded {
        let unusable = PhotoFailure(.decoderCrashed, detail: "The decoder helper's answer is larger than was asked for")
        switch outcome {
        case .picture(let layout, _), .preview(let layout, _, _, _, _), .video(let layout, _):
            guard layout.isWithin(maxPixels: limits.maxPixels) else {
                if let fd { close(fd) }
                throw unusable
            }
        case .animation(let layouts, _, _, _):
            // Each frame within the limits (so the sum of at most `maxFrames` cannot overflow),
            // and all of them within what an animation's frames may take.
            let framesFit =
                layouts.count <= AnimationDecoder.maxFrames
                && layouts.allSatisfy { $0.isWithin(maxPixels: limits.maxPixels) }
            guard framesFit, layouts.reduce(0, { $0 + $1.byteCount }) <= AnimationDecoder.maxFrameBytes else {
                if let fd { close(fd) }
                throw unusable
            }
        case .file(let byteCount), .rawPreview(_, let byteCount):
            guard byteCount >= 0, byteCount <= limits.maxBytes else {
                if let fd { close(fd) }
                throw unusable
            }
        default: break
        }
        switch outcome {
        case .failure(let failure):
            if let fd { close(fd) }
            throw failure
        case .animation(let layouts, let offsets, _, _):
            guard let fd else {
                throw PhotoFailure(.decoderCrashed, detail: "The decoder helper sent no frames with its animation")
            }
            let frames = try SealedPixels.images(from: fd, layouts: layouts, offsets: offsets)
            return Decoded(image: nil, outcome: outcome, frames: frames)
        case .noPreview, .info, .details, .still, .marks, .text:
            if let fd { close(fd) }
            return Decoded(image: nil, outcome: outcome)
        case .file(let byteCount), .editedJPEG(_, let byteCount), .rawPreview(_, let byteCount):
            guard let fd else {
                throw PhotoFailure(.decoderCrashed, detail: "The decoder helper sent no file with its answer")
            }
            return Decoded(image: nil, outcome: outcome, file: try SealedPixels.bytes(from: fd, byteCount: byteCount))
        case .picture(let layout, _), .preview(let layout, _, _, _, _), .video(let layout, _):
            guard let fd else {
                throw PhotoFailure(.decoderCrashed, detail: "The decoder helper sent no pixels with its picture")
            }
            return Decoded(image: try SealedPixels.image(from: fd, layout: layout), outcome: outcome)
        }
    }
}
