import CEmbeddedPictures
import Foundation

/// What a HEIF or AVIF file says of itself before it is decoded, read with libheif from boxes
/// that may lie anywhere in it (so the file is kept whole first): its size, and its `nclx`
/// colour description.
enum HEIFHeader {
    /// The primary picture's size; `damaged` when libheif cannot read the file.
    static func size(of bytes: [UInt8]) throws(PhotoFailure) -> (width: Int, height: Int) {
        var width: Int32 = 0, height: Int32 = 0, thumbnails: Int32 = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = bytes.withUnsafeBytes {
            cp_heif_probe($0.baseAddress, $0.count, &width, &height, &thumbnails, &message)
        }
        defer { free(message) }
        guard status == 0 else {
            throw PhotoFailure(
                .damaged(format: "HEIF"),
                detail: "The HEIF file could not be read: \(message.map { String(cString: $0) } ?? "unknown error")"
            )
        }
        return (Int(width), Int(height))
    }

    /// A HEIF or AVIF file's `nclx` colour description as a profile, where its primary
    /// picture has no ICC profile; nil when it has one, or neither, or sRGB.
    static func nclxProfile(of bytes: [UInt8]) -> Data? {
        var colour = cp_heif_colour()
        defer { free(colour.icc) }
        guard bytes.withUnsafeBytes({ cp_heif_primary_colour($0.baseAddress, $0.count, &colour, nil) }) == 0,
            colour.icc == nil, colour.primaries != 0
        else { return nil }
        return ColourDescription.profile(
            primaries: Int(colour.primaries), transfer: Int(colour.transfer), from: "nclx")
    }
}
