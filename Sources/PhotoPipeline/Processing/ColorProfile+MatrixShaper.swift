import CEmbeddedPictures
import CLcms2
import Foundation

extension ColorProfile {
    /// A quicker way through the commonest profiles, those described by three tone curves and
    /// three primaries ("matrix-shaper": Display P3, Adobe RGB, ProPhoto, a camera's own):
    /// the curves, the primaries and sRGB's curve are read by Little CMS into tables, and the
    /// pixels are run through those tables and one 3 × 3 matrix (`cp_matrix_shaper_rows`).
    ///
    /// Little CMS's own 8-bit transform of such a profile took 13 to 20 ns a pixel here: for a
    /// 12-megapixel photo shown whole, about half as long again as decoding it. The tables take
    /// about 4.5 ns (with SSE2). Before they are used, they turn a sample of colours that
    /// Little CMS's transform also turns (see `agrees`), and any disagreement of more than one
    /// level sends the picture through Little CMS.
    final class MatrixShaper: @unchecked Sendable {
        private let tables: UnsafeMutablePointer<cp_matrix_shaper>

        /// nil when the profile is not a plain matrix-shaper one, or the tables do not agree
        /// with `transform` (Little CMS's 8-bit transform from it to sRGB, `channels` 3 or 4).
        init?(source: cmsHPROFILE, checkedAgainst transform: cmsHTRANSFORM, channels: Int) {
            // A profile with lookup tables for this intent is used through those, not its
            // curves and primaries.
            guard cmsIsMatrixShaper(source) != 0,
                cmsIsCLUT(source, cmsUInt32Number(INTENT_PERCEPTUAL), cmsUInt32Number(LCMS_USED_AS_INPUT)) == 0,
                let sRGB = Self.sRGB,
                let colourants = Self.colourants(of: source)
            else { return nil }
            let curves = [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag].map {
                cmsReadTag(source, $0).map { OpaquePointer($0) }
            }
            guard curves.allSatisfy({ $0 != nil }) else { return nil }
            let mix = sRGB.inverse.times(colourants)
            let tables = UnsafeMutablePointer<cp_matrix_shaper>.allocate(capacity: 1)
            withUnsafeMutableBytes(of: &tables.pointee.linear) { raw in
                let linear = raw.bindMemory(to: Float.self)
                for (channel, curve) in curves.enumerated() {
                    for value in 0..<256 {
                        linear[channel * 256 + value] = cmsEvalToneCurveFloat(curve, Float(value) / 255)
                    }
                }
            }
            let scale = Double(CP_MATRIX_SHAPER_STEPS - 1)
            withUnsafeMutableBytes(of: &tables.pointee.matrix) { raw in
                let matrix = raw.bindMemory(to: Float.self)
                for i in 0..<9 { matrix[i] = Float(mix.values[i] * scale) }
            }
            tables.pointee.encode = UnsafePointer(sRGB.encode)
            guard Self.agrees(tables, with: transform, channels: channels) else {
                tables.deallocate()
                return nil
            }
            self.tables = tables
        }

        deinit { tables.deallocate() }

        /// Turns `rows` rows of `width` pixels in place (see `Conversion`).
        func run(_ pixels: UnsafeMutablePointer<UInt8>, width: Int, rows: Int, stride: Int, channels: Int) {
            cp_matrix_shaper_rows(tables, pixels, Int32(width), Int32(rows), stride, Int32(channels))
        }

        /// Whether the tables turn the colours of a sample within one level of what Little
        /// CMS's transform makes of them: a lattice (9 levels a channel: 0, 32 … 255), and each
        /// channel's every value with the other two at 0 or 255 (so that every entry of every
        /// curve is checked, a damaged curve's spike as well).
        private static func agrees(
            _ tables: UnsafePointer<cp_matrix_shaper>, with transform: cmsHTRANSFORM, channels: Int
        ) -> Bool {
            let sample = channels == 4 ? sampleRGBA : sampleRGB
            let count = sample.count / channels
            var theirs = sample, ours = sample
            theirs.withUnsafeMutableBytes {
                cmsDoTransform(transform, $0.baseAddress, $0.baseAddress, cmsUInt32Number(count))
            }
            ours.withUnsafeMutableBufferPointer {
                cp_matrix_shaper_rows(tables, $0.baseAddress, Int32(count), 1, $0.count, Int32(channels))
            }
            return zip(theirs, ours).allSatisfy { abs(Int($0) - Int($1)) <= 1 }
        }

        /// The colours `agrees` checks, made once: packed RGB, and RGBA (opaque).
        private static let sampleRGB = sample(channels: 3)
        private static let sampleRGBA = sample(channels: 4)

        private static func sample(channels: Int) -> [UInt8] {
            var sample: [UInt8] = []
            func add(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
                sample += [red, green, blue]
                if channels == 4 { sample.append(255) }
            }
            let levels = (0..<9).map { UInt8(min(255, $0 * 32)) }
            for red in levels {
                for green in levels {
                    for blue in levels { add(red, green, blue) }
                }
            }
            for value in 0...255 {
                let v = UInt8(value)
                for (one, other) in [(0, 0), (0, 255), (255, 0), (255, 255)] as [(UInt8, UInt8)] {
                    add(v, one, other)
                    add(one, v, other)
                    add(one, other, v)
                }
            }
            return sample
        }

        /// The primaries' XYZ as the profile gives them (its red, green and blue colourant
        /// tags), as the columns of a matrix: the matrix from the profile's linear light to XYZ.
        private static func colourants(of profile: cmsHPROFILE) -> Matrix3? {
            var values = [Double](repeating: 0, count: 9)
            for (column, tag) in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag].enumerated() {
                guard let xyz = cp_cms_read_xyz_tag(profile, tag)?.pointee else { return nil }
                values[column] = xyz.X
                values[3 + column] = xyz.Y
                values[6 + column] = xyz.Z
            }
            return Matrix3(values: values)
        }

        /// What every turning into sRGB shares: XYZ to sRGB's linear light, and sRGB's encoding
        /// of each step of linear light, both from Little CMS's own sRGB profile.
        private static let sRGB: SRGBTables? = {
            guard let profile = cmsCreate_sRGBProfile() else { return nil }
            defer { cmsCloseProfile(profile) }
            guard let inverse = colourants(of: profile)?.inverse,
                let red = cmsReadTag(profile, cmsSigRedTRCTag),
                let reversed = cmsReverseToneCurve(OpaquePointer(red))
            else { return nil }
            defer { cmsFreeToneCurve(reversed) }
            let steps = Int(CP_MATRIX_SHAPER_STEPS)
            let encode = UnsafeMutablePointer<UInt8>.allocate(capacity: steps)
            for step in 0..<steps {
                let value = cmsEvalToneCurveFloat(reversed, Float(step) / Float(steps - 1))
                encode[step] = UInt8((min(max(value, 0), 1) * 255).rounded())
            }
            return SRGBTables(inverse: inverse, encode: encode)
        }()

        /// sRGB's side of every matrix-shaper turning (written once, then only read; kept for
        /// the life of the process).
        private final class SRGBTables: @unchecked Sendable {
            let inverse: Matrix3
            let encode: UnsafeMutablePointer<UInt8>
            init(inverse: Matrix3, encode: UnsafeMutablePointer<UInt8>) {
                (self.inverse, self.encode) = (inverse, encode)
            }
        }
    }
}

/// A 3 × 3 matrix, row-major.
struct Matrix3: Sendable {
    var values: [Double]

    func times(_ other: Matrix3) -> Matrix3 {
        var product = [Double](repeating: 0, count: 9)
        for row in 0..<3 {
            for column in 0..<3 {
                product[row * 3 + column] = (0..<3).reduce(0) {
                    $0 + values[row * 3 + $1] * other.values[$1 * 3 + column]
                }
            }
        }
        return Matrix3(values: product)
    }

    /// nil when the matrix has no inverse (its primaries do not span a space).
    var inverse: Matrix3? {
        let m = values
        let cofactors = [
            m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ]
        let determinant = m[0] * cofactors[0] + m[1] * cofactors[3] + m[2] * cofactors[6]
        guard abs(determinant) > 1e-12 else { return nil }
        return Matrix3(values: cofactors.map { $0 / determinant })
    }
}
