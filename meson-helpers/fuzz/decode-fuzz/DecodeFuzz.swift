// libFuzzer entry point for the decode path: the header and EXIF reader, the decoder with its
// limit checks and memory budget, and the sepia filter, on whatever bytes the fuzzer makes.
// Built only by meson-helpers/sanitizers.sh with -sanitize=fuzzer,address.
import Foundation
import GLibKit
@testable import PhotoPipeline

/// Small limits, so that no input can make a decode large enough to slow the fuzzer down or
/// exhaust its memory; the limit checks themselves are part of what is fuzzed.
private let limits = DecodeLimits(maxBytes: 1 << 20, maxPixels: 4_000_000)
private let budget = DecodeMemoryBudget(capacity: 64 << 20)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecode(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    // The viewer reads the header and EXIF of every photo it shows.
    _ = try? ImageInfo.read(data)
    let cancellable = Cancellable()
    // A row's thumbnail: a centred square no larger than asked for, then sepia in place.
    if let image = try? ImageDecoder.decode(data, size: .square(48), limits: limits, budget: budget, cancellable: cancellable) {
        precondition(image.width == image.height && image.width <= 48, "a row's square: \(image.width)×\(image.height)")
        _ = SepiaFilter().applyInPlace(image)
    }
    // The viewer's picture: the whole image within a box.
    if let image = try? ImageDecoder.decode(data, size: .fit(64), limits: limits, budget: budget, cancellable: cancellable) {
        precondition(max(image.width, image.height) <= 64, "within the viewer's box: \(image.width)×\(image.height)")
    }
    precondition(budget.usage.now == 0, "every reservation is returned")
    return 0
}
