import GifxTimeline

/// H.264 samples in MP4 with 2-byte NAL unit lengths (`avcC`'s `lengthSizeMinusOne` 1) for pictures of at most
/// `maximumMacroblocks`, where every NAL unit fits in 65,535 bytes: 2 bytes a sample fewer than libavformat's
/// 4-byte lengths. On a small GIF at a 1 cs tick that is 5-7 % of the file (lottie-test-Stroke, 100×100: 1,011
/// samples, 29,221 bytes), since most samples are repeat pictures of a few bytes (issue 56; docs/repeats.md,
/// "Sample lengths (H.264)"). ISO/IEC 14496-15 allows 1, 2 or 4 bytes.
struct AVCShortLengths: MP4SampleFraming {
    /// The largest picture, in macroblocks (64: 128×128), whose NAL units always fit in 2-byte lengths. x264's
    /// largest slice measured on white noise (4:2:0, the worst case for its entropy coder) is 386 bytes a
    /// macroblock lossless (where x264 falls back to PCM) and 551 at QP 1 (no fallback in lossy coding; 176×176,
    /// the ffmpeg CLI's libx264 on `geq=random` frames); 64 macroblocks at 1,000 bytes each,
    /// plus x264's SEI (about 700 bytes), stay under 65,535. A unit over it is refused, never cut.
    static let maximumMacroblocks = 64

    /// Whether pictures of `size` take 2-byte lengths.
    static func applies(to size: CanvasSize) -> Bool {
        let columns = (size.width + 15) / 16, rows = (size.height + 15) / 16
        return columns * rows <= maximumMacroblocks
    }

    /// FFmpeg's `ff_isom_write_avcc` record with `lengthSizeMinusOne` 1: version 1, the SPS's profile,
    /// constraint flags and level, the SPS and PPS units with 16-bit lengths, and for profiles other than
    /// Baseline, Main and Extended the chroma format and bit depths (no SPS extension).
    func configurationRecord(extradata: [UInt8]) throws -> [UInt8] {
        let units = extradata.withUnsafeBufferPointer { bytes in annexBUnits(bytes).map { Array(bytes[$0]) } }
        let sps = units.filter { $0.first.map { $0 & 0x1F == 7 } ?? false }
        let pps = units.filter { $0.first.map { $0 & 0x1F == 8 } ?? false }
        guard let first = sps.first, first.count >= 4, !pps.isEmpty, sps.count < 32, pps.count < 256,
              (sps + pps).allSatisfy({ $0.count <= 0xFFFF })
        else { throw BitstreamError("the H.264 extradata has no SPS and PPS to write an avcC from") }
        let parameters = try H264SequenceParameters(rbsp: unescapeRBSP(first.dropFirst()))
        var record: [UInt8] = [1, first[1], first[2], first[3], 0xFC | 1, 0xE0 | UInt8(sps.count)]
        for unit in sps { record += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        record.append(UInt8(pps.count))
        for unit in pps { record += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        if ![66, 77, 88].contains(Int(first[1])) {
            record += [
                0xFC | UInt8(parameters.chromaFormatIDC), 0xF8 | UInt8(parameters.bitDepthLuma - 8),
                0xF8 | UInt8(parameters.bitDepthChroma - 8), 0,
            ]
        }
        return record
    }

    func sample(_ annexB: UnsafeBufferPointer<UInt8>) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(annexB.count)
        for unit in annexBUnits(annexB) {
            guard unit.count <= 0xFFFF else {
                throw BitstreamError("an H.264 NAL unit of \(unit.count) bytes does not fit the stream's 2-byte lengths")
            }
            out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)]
            out += annexB[unit]
        }
        return out
    }
}
