import CLcms2
import Foundation

/// Colour spaces described by numbers rather than by an ICC profile: the code points of
/// ISO/IEC 23091-2 (H.273), as PNG's `cICP` chunk and HEIF's and AVIF's `nclx` colour
/// description give them, and PNG's older `gAMA` and `cHRM` chunks. Each is made into an ICC
/// profile with Little CMS, so that it is turned into sRGB the way embedded profiles are.
public enum ColourDescription {
    /// The primaries (CIE xy of red, green and blue) and white point a code point names.
    private struct Primaries {
        let red: (Double, Double), green: (Double, Double), blue: (Double, Double), white: (Double, Double)
        let name: String
    }

    private static let d65 = (0.3127, 0.3290)

    private static func primaries(_ code: Int) -> Primaries? {
        switch code {
        case 1: Primaries(red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), white: d65, name: "BT.709")
        case 4:
            Primaries(
                red: (0.67, 0.33), green: (0.21, 0.71), blue: (0.14, 0.08), white: (0.310, 0.316), name: "BT.470 M")
        case 5: Primaries(red: (0.64, 0.33), green: (0.29, 0.60), blue: (0.15, 0.06), white: d65, name: "BT.601 625")
        case 6, 7:
            Primaries(red: (0.630, 0.340), green: (0.310, 0.595), blue: (0.155, 0.070), white: d65, name: "BT.601 525")
        case 9:
            Primaries(red: (0.708, 0.292), green: (0.170, 0.797), blue: (0.131, 0.046), white: d65, name: "BT.2020")
        case 11:
            Primaries(
                red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), white: (0.314, 0.351), name: "DCI-P3")
        case 12:
            Primaries(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), white: d65, name: "Display P3")
        default: nil
        }
    }

    /// The tone curve a transfer code point names, and its name; nil for those this cannot
    /// show (PQ and HLG are high dynamic range, which an sRGB texture cannot hold) or that are
    /// unspecified.
    private static func transfer(_ code: Int) -> (curve: OpaquePointer, name: String)? {
        func parametric(_ type: Int32, _ values: [Double]) -> OpaquePointer? {
            values.withUnsafeBufferPointer { cmsBuildParametricToneCurve(nil, type, $0.baseAddress) }
        }
        let made: (OpaquePointer?, String)
        switch code {
        // BT.709 (and BT.601, BT.2020's 10- and 12-bit forms, which share it): a linear foot and
        // an exponent of 1/0.45, as Little CMS's type 4 curve.
        case 1, 6, 14, 15: made = (parametric(4, [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081]), "BT.709")
        case 4: made = (cmsBuildGamma(nil, 2.2), "gamma 2.2")
        case 5: made = (cmsBuildGamma(nil, 2.8), "gamma 2.8")
        case 8: made = (cmsBuildGamma(nil, 1.0), "linear")
        case 13: made = (parametric(4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]), "sRGB")
        default: return nil
        }
        return made.0.map { ($0, made.1) }
    }

    /// A profile for the colour space the code points name, described "Display P3 (cICP)";
    /// nil when that is sRGB (nothing to do), or when it is unspecified, unknown or of high
    /// dynamic range (shown as sRGB).
    public static func profile(primaries code: Int, transfer transferCode: Int, from source: String) -> Data? {
        guard let primaries = primaries(code), let (curve, curveName) = transfer(transferCode) else { return nil }
        defer { cmsFreeToneCurve(curve) }
        if code == 1, transferCode == 13 { return nil } // sRGB itself
        let name =
            curveName == "sRGB" || curveName == primaries.name
            ? "\(primaries.name) (\(source))" : "\(primaries.name), \(curveName) (\(source))"
        return make(
            red: primaries.red, green: primaries.green, blue: primaries.blue, white: primaries.white, curve: curve,
            name: name)
    }

    /// A profile for PNG's `gAMA` (the file's gamma, in 100,000ths: 45455 is 1/2.2) and
    /// `cHRM` (white and primaries, in 100,000ths) chunks, for a PNG with no profile, `sRGB` or
    /// `cICP` chunk. nil when they describe sRGB's gamma with no other primaries, as most such
    /// files do, or make no sense.
    static func pngProfile(gamma: UInt32?, chromaticities: [UInt32]?) -> Data? {
        let exponent = gamma.flatMap { $0 > 0 ? 100_000 / Double($0) : nil } ?? 2.2
        guard (0.2...5).contains(exponent) else { return nil }
        var points = chromaticities.map { $0.map { Double($0) / 100_000 } }
        if let values = points, values.count != 8 || values.contains(where: { !(0.0...1.0).contains($0) }) {
            points = nil
        }
        if points == nil, abs(exponent - 2.2) < 0.05 { return nil }
        guard let curve = cmsBuildGamma(nil, exponent) else { return nil }
        defer { cmsFreeToneCurve(curve) }
        let p = points ?? [d65.0, d65.1, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06]
        return make(
            red: (p[2], p[3]), green: (p[4], p[5]), blue: (p[6], p[7]), white: (p[0], p[1]), curve: curve,
            name: String(format: "Gamma %.2f%@ (PNG gAMA)", exponent, points == nil ? "" : ", PNG primaries"))
    }

    /// What a PNG's chunks before its pixels say of its colours, from its first bytes.
    struct PNGChunks: Equatable {
        /// `cICP`: primaries and transfer code points.
        var cicp: (primaries: Int, transfer: Int)?
        var hasICCP = false
        var hasSRGB = false
        var gamma: UInt32?
        var chromaticities: [UInt32]?

        static func == (a: PNGChunks, b: PNGChunks) -> Bool {
            a.cicp?.primaries == b.cicp?.primaries && a.cicp?.transfer == b.cicp?.transfer
                && a.hasICCP == b.hasICCP && a.hasSRGB == b.hasSRGB && a.gamma == b.gamma
                && a.chromaticities == b.chromaticities
        }

        /// The chunks in `bytes` (a PNG's start) up to its first `IDAT`; nil if they are not a
        /// PNG's.
        static func read(_ bytes: some Collection<UInt8>) -> PNGChunks? {
            let b = Array(bytes.prefix(1 << 20))
            guard b.count > 8, b[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
                return nil
            }
            func word(_ at: Int) -> UInt32 {
                UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
            }
            var chunks = PNGChunks()
            var at = 8
            while at + 8 <= b.count {
                let length = Int(word(at))
                let type = String(decoding: b[(at + 4)..<(at + 8)], as: UTF8.self)
                let body = at + 8
                guard length <= b.count, body + length <= b.count else { break }
                switch type {
                case "IDAT", "IEND": return chunks
                case "cICP" where length >= 2: chunks.cicp = (Int(b[body]), Int(b[body + 1]))
                case "iCCP": chunks.hasICCP = true
                case "sRGB": chunks.hasSRGB = true
                case "gAMA" where length == 4: chunks.gamma = word(body)
                case "cHRM" where length == 32: chunks.chromaticities = (0..<8).map { word(body + 4 * $0) }
                default: break
                }
                at = body + length + 4
            }
            return chunks
        }

        /// The profile these chunks give the picture, by the PNG standard's order: `cICP`
        /// first (a profile, or nil for sRGB), then an embedded profile (`iCCP`, handed over by
        /// gdk-pixbuf: `.none` here), `sRGB`, and last `gAMA` with `cHRM`.
        var profile: Choice {
            if let cicp {
                return .replaces(
                    ColourDescription.profile(primaries: cicp.primaries, transfer: cicp.transfer, from: "cICP"))
            }
            if hasICCP || hasSRGB { return .none }
            guard gamma != nil || chromaticities != nil else { return .none }
            return ColourDescription.pngProfile(gamma: gamma, chromaticities: chromaticities).map { .fallback($0) }
                ?? .none
        }

        enum Choice: Equatable {
            /// Nothing from these chunks.
            case none
            /// Used in place of any embedded profile (nil: the pixels are sRGB).
            case replaces(Data?)
            /// Used when there is no embedded profile.
            case fallback(Data)
        }
    }

    /// An RGB profile of these primaries (CIE xy), white (D65 unless given) and one gamma for
    /// all three channels, described as `name` (Little CMS's own words when nil), as ICC bytes.
    public static func rgbProfile(
        red: (Double, Double), green: (Double, Double), blue: (Double, Double), white: (Double, Double)? = nil,
        gamma: Double, name: String? = nil
    ) -> Data? {
        guard let curve = cmsBuildGamma(nil, gamma) else { return nil }
        defer { cmsFreeToneCurve(curve) }
        return make(red: red, green: green, blue: blue, white: white ?? d65, curve: curve, name: name)
    }

    /// An RGB profile of these primaries, white and one curve for all three channels.
    private static func make(
        red: (Double, Double), green: (Double, Double), blue: (Double, Double), white: (Double, Double),
        curve: OpaquePointer, name: String?
    ) -> Data? {
        var whitePoint = cmsCIExyY(x: white.0, y: white.1, Y: 1)
        var triple = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: red.0, y: red.1, Y: 1), Green: cmsCIExyY(x: green.0, y: green.1, Y: 1),
            Blue: cmsCIExyY(x: blue.0, y: blue.1, Y: 1))
        var curves: [OpaquePointer?] = [curve, curve, curve]
        guard
            let made = curves.withUnsafeMutableBufferPointer({
                cmsCreateRGBProfile(&whitePoint, &triple, $0.baseAddress)
            })
        else { return nil }
        return named(made, name)
    }

    /// A grey profile of `gamma` and D50 white (as DNG's "Gray Gamma 2.2" is), described `name`.
    public static func greyProfile(gamma: Double, name: String? = nil) -> Data? {
        guard let curve = cmsBuildGamma(nil, gamma) else { return nil }
        defer { cmsFreeToneCurve(curve) }
        var white = cmsCIExyY(x: 0.3457, y: 0.3585, Y: 1)
        guard let made = cmsCreateGrayProfile(&white, curve) else { return nil }
        return named(made, name)
    }

    /// `profile` (closed here) described `name`, as ICC bytes.
    private static func named(_ profile: cmsHPROFILE, _ name: String?) -> Data? {
        defer { cmsCloseProfile(profile) }
        if let name, let text = cmsMLUalloc(nil, 1) {
            defer { cmsMLUfree(text) }
            cmsMLUsetASCII(text, "en", "US", name)
            cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeMutableRawPointer(text))
        }
        return serialized(profile)
    }

    /// A profile Little CMS holds, as ICC bytes; nil if it cannot be written.
    public static func serialized(_ profile: cmsHPROFILE) -> Data? {
        var length: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(profile, nil, &length) != 0, length > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        guard cmsSaveProfileToMem(profile, &bytes, &length) != 0 else { return nil }
        return Data(bytes)
    }
}
