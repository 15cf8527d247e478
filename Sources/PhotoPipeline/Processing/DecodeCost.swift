/// How much memory gdk-pixbuf needs to decode a picture, from what its header says, before
/// anything is allocated. Measured on gdk-pixbuf 2.42.10 (peak resident memory of a process
/// decoding one picture to a 160-pixel thumbnail):
///
/// - Baseline JPEG: libjpeg scales while decoding (by 1/2, 1/4 or 1/8, the smallest that is
///   still at least the size asked for), so only the scaled picture is allocated: 11 MB for
///   100 MP. Progressive JPEG: the loader keeps every DCT coefficient of the whole picture
///   (2 bytes each) to render its scans: 296 MB for 100 MP in 4:2:0.
/// - PNG and the other formats: the whole picture at full size, 3 or 4 bytes a pixel, then
///   scaled down: 296 MB for a 100 MP RGB PNG.
/// - GIF: the composited frame (4 bytes a pixel) and its colour indexes (1): 176 MB for 36 MP.
///
/// The estimate errs on the high side.
enum DecodeCost {
    /// Bytes needed to decode a `width`×`height` picture of `format` (gdk-pixbuf's format
    /// name) to `target`, given the bytes seen so far (which hold the header).
    static func estimate(
        format: String?, width: Int, height: Int, target: (Int, Int),
        header: UnsafeRawBufferPointer
    ) -> Int {
        let w = max(1, width), h = max(1, height)
        // The scaled result, its square crop and the row's copy of it.
        let result = 3 * 4 * max(1, target.0) * max(1, target.1)
        let full = w.multipliedReportingOverflow(by: h)
        guard !full.overflow else { return .max }
        switch format {
        case "jpeg":
            let info = jpegInfo(header)
            var denominator = 1
            while denominator < 8, (w + 2 * denominator - 1) / (2 * denominator) >= target.0,
                (h + 2 * denominator - 1) / (2 * denominator) >= target.1
            {
                denominator *= 2
            }
            let outW = (w + denominator - 1) / denominator, outH = (h + denominator - 1) / denominator
            let channels = info?.components == 4 ? 4 : 3
            var bytes = rowstride(outW, channels) * outH
            // Without a frame header in view, assume the worst: progressive, no subsampling.
            let progressive = info?.progressive ?? true
            if progressive {
                let components = info?.sampling ?? [(1, 1), (1, 1), (1, 1)]
                let hMax = components.map(\.0).max() ?? 1, vMax = components.map(\.1).max() ?? 1
                for (hs, vs) in components {
                    let compW = (w * hs + hMax - 1) / hMax, compH = (h * vs + vMax - 1) / vMax
                    bytes += ((compW + 7) / 8) * ((compH + 7) / 8) * 128
                }
            }
            return bytes + result
        case "png":
            return rowstride(w, pngChannels(header)) * h + result
        case "gif":
            return 5 * full.partialValue + result
        default:
            return rowstride(w, 4) * h + result
        }
    }

    private static func rowstride(_ width: Int, _ channels: Int) -> Int { (width * channels + 3) & ~3 }

    /// What a JPEG's frame header (SOFn) says: its size, progressive or not, and each
    /// component's sampling factors; nil if no frame header is in `bytes`.
    static func jpegInfo(
        _ bytes: UnsafeRawBufferPointer
    )
        -> (width: Int, height: Int, progressive: Bool, components: Int, sampling: [(Int, Int)])?
    {
        guard bytes.count >= 4, PictureSignature.isJPEG(bytes) else { return nil }
        var i = 2
        while i + 4 <= bytes.count {
            guard bytes[i] == 0xFF else { return nil }
            let marker = bytes[i + 1]
            if marker == 0xFF { i += 1; continue } // fill byte
            if marker == 0x01 || (0xD0...0xD8).contains(marker) { i += 2; continue } // no length
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2 else { return nil }
            let isFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isFrame {
                let start = i + 4
                guard start + 6 <= bytes.count else { return nil }
                let count = Int(bytes[start + 5])
                guard count >= 1, start + 6 + 3 * count <= bytes.count else { return nil }
                let sampling = (0..<count).map { c -> (Int, Int) in
                    let factors = bytes[start + 6 + 3 * c + 1]
                    return (max(1, Int(factors >> 4)), max(1, Int(factors & 0x0F)))
                }
                let height = Int(bytes[start + 1]) << 8 | Int(bytes[start + 2])
                let width = Int(bytes[start + 3]) << 8 | Int(bytes[start + 4])
                return (width, height, [0xC2, 0xC6, 0xCA, 0xCE].contains(marker), count, sampling)
            }
            if marker == 0xDA { return nil } // scan data before any frame header
            i += 2 + length
        }
        return nil
    }

    /// 3 or 4: what gdk-pixbuf makes of a PNG's colour type (and transparency chunk).
    static func pngChannels(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard bytes.count >= 33 else { return 4 }
        let colourType = bytes[25]
        if colourType == 4 || colourType == 6 { return 4 }
        // A tRNS chunk before the first IDAT adds an alpha channel.
        var i = 8
        while i + 8 <= bytes.count {
            let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            let type = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(i + 4)..<(i + 8)]), as: UTF8.self)
            if type == "tRNS" { return 4 }
            if type == "IDAT" { return 3 }
            i += 12 + length
        }
        return 4
    }
}
