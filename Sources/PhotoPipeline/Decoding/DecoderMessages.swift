import Foundation

/// What the app and a decoder helper say to each other, one JSON datagram a message, a
/// descriptor attached where one is named: the picture's bytes with a request, the sealed
/// pixels with a picture.
enum DecoderMessage: Codable, Sendable {
    /// Helper → app, once, when it is ready: how it is confined.
    case ready(HelperReady)
    /// App → helper: decode the picture on the attached descriptor.
    case request(DecodeRequest)
    /// App → helper: the request with this number is no longer wanted.
    case cancel(UInt64)
    /// Helper → app: how a request ended.
    case reply(DecodeReply)
    /// Helper → app: request `id`'s decode needs this many bytes of the app's memory budget.
    case reserve(id: UInt64, bytes: Int)
    /// App → helper: the memory asked for is reserved (nil), or cannot be (why).
    case reserved(id: UInt64, refusal: PhotoFailure?)
}

struct HelperReady: Codable, Sendable {
    /// The helper's seccomp filter is in place.
    var filtered: Bool
    /// The helper's address space is limited to this many bytes (0: not limited).
    var addressSpace: UInt64
}

/// One picture to decode.
struct DecodeRequest: Codable, Sendable {
    enum Job: Codable, Sendable {
        /// The whole picture at `size`; a RAW file's camera preview when `raw`.
        case picture(size: DecodeSize, raw: Bool)
        /// A PNG of the thumbnail cache, whole, with its text options (`tEXt::Thumb::URI`, …).
        case cachedThumbnail
        /// The smaller picture a photo carries of itself (`EmbeddedPreview`), from its first bytes.
        case preview(squareSide: Int)
        /// What the picture's header and EXIF block say (`ImageInfo`), without decoding it; with
        /// `details`, the rest of its metadata too.
        case info(details: Bool)
        /// What a file's metadata says (`PhotoDetails`), for a file whose picture is read
        /// through another (a RAW file's camera preview).
        case details
        /// A RAW file's camera preview, as a picture file, with what the RAW file says
        /// (`RawPhoto.previewAndFacts`).
        case rawPreview
        /// What a RAW file says: its camera preview's header (`ImageInfo`) with the RAW file's
        /// own metadata, in one trip (the preview, its header and the metadata took three).
        case rawFacts
        /// An animated GIF or WebP's frames, the longest side at most `side` (`AnimationDecoder`).
        case animation(side: Int)
        /// The marks of an XMP sidecar, or of a photo's own XMP in its first bytes (`XMPMarks.read`).
        case marks
        /// An XMP sidecar (or a photo's first bytes, to begin one from its XMP) with marks
        /// changed from `old` to `new`, and the alt text where given (`XMPMarks.update`), as a file.
        case updatedMarks(old: PhotoMarks, new: PhotoMarks, altText: AltTextChange?)
        /// A photo file (a JPEG or a PNG) with its own XMP giving the marks `new`, and the alt
        /// text where given (`MarksInPhoto.updated`), as a file.
        case marksInPhoto(new: PhotoMarks, altText: AltTextChange?)
        /// The alt text of an XMP sidecar, or of a photo's own XMP in its first bytes
        /// (`XMPMarks.altText`).
        case altText
        /// A JPEG turned, flipped and cropped without decoding it (`LosslessJPEG`), as a file.
        case editedJPEG(PhotoEdit)
        /// A RAW file's camera preview edited as `editedJPEG` does, with the RAW file's
        /// metadata (`RawEdit`), as a JPEG file.
        case editedRaw(PhotoEdit)
        /// The frame that stands for a video, at `size` (`VideoFrame`).
        case videoFrame(size: DecodeSize)
    }

    var id: UInt64
    var job: Job
    var limits: DecodeLimits
    /// The memory the decode may reserve: the app's budget's capacity (it asks the app for
    /// each reservation).
    var budgetBytes: Int
}

/// How the pixels on the attached sealed memfd are laid out: 8-bit RGB or RGBA rows.
struct PixelLayout: Codable, Sendable, Equatable {
    var width: Int
    var height: Int
    var rowstride: Int
    var hasAlpha: Bool

    var channels: Int { hasAlpha ? 4 : 3 }
    /// The bytes the pixels take (the last row without its padding, as gdk-pixbuf counts).
    var byteCount: Int { rowstride * (height - 1) + width * channels }

    /// Whether these are sizes a pixbuf can have.
    var isPlausible: Bool {
        width > 0 && height > 0 && width <= Int(Int32.max) && height <= Int(Int32.max)
            && rowstride >= width * channels && rowstride <= Int(Int32.max)
            && !rowstride.multipliedReportingOverflow(by: height).overflow
    }

    /// Whether a decode asked to keep within `maxPixels` could have made these pixels: no
    /// more of them than that, in no more bytes than a picture of that many pixels takes
    /// (the rows may be those of a larger picture they were cut from, padded as pixbufs are).
    func isWithin(maxPixels: Int) -> Bool {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard isPlausible, !overflow, pixels <= maxPixels, maxPixels <= Int(Int32.max) else { return false }
        return byteCount <= maxPixels * 4 + height * 64
    }
}

struct DecodeReply: Codable, Sendable {
    enum Outcome: Codable, Sendable {
        case picture(PixelLayout, options: [String: String])
        /// A video's frame, and what its container says.
        case video(PixelLayout, facts: VideoFacts)
        case preview(
            PixelLayout, origin: EmbeddedPreview.Origin, photoWidth: Int, photoHeight: Int, options: [String: String])
        /// The photo carries no preview that can be trusted.
        case noPreview
        case info(ImageInfo)
        /// What the metadata said (nil: none that could be read).
        case details(PhotoDetails?)
        /// A picture file of this many bytes, on the attached sealed memfd.
        case file(byteCount: Int)
        /// A RAW file's preview of this many bytes, on the attached sealed memfd, and what the
        /// RAW file says of itself.
        case rawPreview(ImageInfo, byteCount: Int)
        /// An edited JPEG of this many bytes, on the attached sealed memfd, and what the edit came to.
        case editedJPEG(LosslessJPEG.Outcome, byteCount: Int)
        /// An animation's frames, all on the attached sealed memfd, each at its offset.
        case animation(frames: [PixelLayout], offsets: [Int], delays: [Int], plays: Int)
        /// An animation that plays as a still picture (why).
        case still(reason: String)
        /// The marks XMP held (nil: no XMP that could be read).
        case marks(PhotoMarks?)
        /// A text XMP held (nil: none).
        case text(String?)
        /// The picture could not be decoded: the failure as a typed value (its kind and values,
        /// not words), made into words by the app where it is shown.
        case failure(PhotoFailure)
    }

    var id: UInt64
    var outcome: Outcome
}

/// Faults a helper can be told to commit, so that tests can show what the app does when a
/// decoder crashes, hangs, allocates without bound or tries to reach out. A helper honours
/// them only when started with `CLASSIC_PHOTOS_DECODER_FAULTS=1`; otherwise the request fails.
public enum DecoderFault: String, Codable, Sendable, CaseIterable {
    /// Dies of SIGSEGV, as a decoder reading out of bounds does.
    case crash
    /// Never finishes, whatever it is told.
    case loop
    /// Takes 30 seconds, but stops when the request is cancelled (a long decode).
    case slow
    /// Allocates (and touches) memory until there is none.
    case allocate
    /// Opens a TCP socket to the address in the picture's bytes; reports what happened.
    case socket
    /// Creates a file at the path in the picture's bytes; reports what happened.
    case write
    /// Tries everything else the sandbox should refuse, aimed at the process whose id is in
    /// the picture's bytes (the app); reports what got through ("nothing got through").
    case escape
    /// Asks for a little over half of the memory budget twice for one picture.
    case hog
    /// Floods the app with requests for memory without reading its answers.
    case deaf

    /// The bytes of a picture that asks for this fault, with what it needs to know
    /// ("CLASSIC-PHOTOS-FAULT socket 127.0.0.1:8080\n").
    public func picture(_ argument: String = "") -> Data { Data("\(Self.prefix)\(rawValue) \(argument)\n".utf8) }

    static let prefix = "CLASSIC-PHOTOS-FAULT "

    /// The fault a picture asks for, and its argument, from its first bytes.
    static func asked(by head: Data) -> (DecoderFault, argument: String)? {
        guard head.starts(with: Data(prefix.utf8)) else { return nil }
        let line = String(decoding: head.dropFirst(prefix.utf8.count).prefix { $0 != 0x0A }, as: UTF8.self)
        let words = line.split(separator: " ", maxSplits: 1)
        guard let first = words.first, let fault = DecoderFault(rawValue: String(first)) else { return nil }
        return (fault, words.count > 1 ? String(words[1]) : "")
    }
}
