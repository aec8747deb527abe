import Foundation
import GifFixtures
import GifxFrames
import Testing

/// gifx's own LZW decoder against giflib, the oracle: byte-identical canvases and the same errors,
/// warnings and kept rows, on every corpus GIF and a sample of the generated sweep (the full sweep:
/// `make differential`, GIFX_DIFFERENTIAL=full).
@Suite struct DecoderDifferentialTests {
    static let full = ProcessInfo.processInfo.environment["GIFX_DIFFERENTIAL"] == "full"

    @Test(
        .enabled(if: corpusDirectory("pygif") != nil, "../shared/corpus is absent"),
        arguments: ["pygif", "peterdn", "fuzz"])
    func everyCorpusGIFDecodesTheSame(corpus: String) throws {
        let directory = try #require(corpusDirectory(corpus))
        let files = corpusGIFs(in: directory)
        #expect(files.count > 10)
        var compared = 0
        for file in files {
            let path = directory.appendingPathComponent(file).path
            for strict in [false, true] {
                for threads in [1, 2] {
                    let difference = decoderDifference(path, strict: strict, threads: threads)
                    #expect(difference == nil, "\(corpus)/\(file) strict \(strict) threads \(threads): \(difference ?? "")")
                    compared += 1
                }
            }
        }
        print("differential \(corpus): \(files.count) files, \(compared) runs identical to giflib")
    }

    /// Found by the differential fuzz target: frame 0's LZW data ends early (giflib records "EOF too soon"),
    /// and the file ends right before frame 2's code size byte, where giflib fails without setting its
    /// error code. The warning once repeated frame 0's stale text when giflib had decoded frame 0 (and said
    /// "giflib error 0" when gifx had); now both say what happened at frame 2.
    @Test func aFailureGiflibLeavesUnexplainedIsWordedTheSameWhoeverDecodedBefore() throws {
        let data = try #require(Data(base64Encoded:
            "R0lGJDlhAgACAPAAAAAAAP///yH/C05FVFNDQVBFMi4wAwEAAAAh+QQIMgAAACwAAAAAQQABAAACAkwBACH5BAgyAAAALAEAAAABAAEAAAICTAEAIfkECDIAAAAsAQEBANMACQA7"))
        let path = try temporaryFile(data)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for threads in [1, 2] {
            let difference = decoderDifference(path, strict: false, threads: threads)
            #expect(difference == nil, "threads \(threads): \(difference ?? "")")
        }
        let (_, warnings) = try decodeAllCanvases(path)
        #expect(warnings.contains("frame 2: truncated GIF at byte 102: data ends while reading an image; kept the rows decoded before it"), "\(warnings)")
    }

    @Test func generatedSweepDecodesTheSame() throws {
        let sizes = Self.full ? DifferentialSweep.allSizes : DifferentialSweep.sampleSizes
        var runs = 0
        for size in sizes {
            let data = try DifferentialSweep.gif(size: size).encode()
            let path = try temporaryFile(data, name: "sweep\(size)")
            defer { try? FileManager.default.removeItem(atPath: path) }
            for strict in [false, true] {
                let difference = decoderDifference(path, strict: strict, threads: size % 2 + 1)
                #expect(difference == nil, "size \(size) strict \(strict): \(difference ?? "")")
                runs += 1
            }
            // Truncation at every block boundary (a sample of them outside the full sweep).
            let cuts = DifferentialSweep.cuts(data)
            let stride = Self.full ? 1 : Swift.max(1, cuts.count / 12)
            for cut in Swift.stride(from: 0, to: cuts.count, by: stride).map({ cuts[$0] }) {
                let cutPath = try temporaryFile(data.prefix(cut), name: "sweep\(size)cut")
                defer { try? FileManager.default.removeItem(atPath: cutPath) }
                let difference = decoderDifference(cutPath, strict: cut % 2 == 0, threads: cut % 3 == 0 ? 2 : 1)
                #expect(difference == nil, "size \(size) cut at \(cut): \(difference ?? "")")
                runs += 1
            }
            // Damaged image data: codes beyond the table, early end codes, broken chains.
            for (index, damaged) in DifferentialSweep.damaged(data, seed: UInt64(size), count: Self.full ? 40 : 4).enumerated() {
                let damagedPath = try temporaryFile(damaged, name: "sweep\(size)damaged")
                defer { try? FileManager.default.removeItem(atPath: damagedPath) }
                let difference = decoderDifference(damagedPath, strict: index % 2 == 1, threads: index % 3 == 0 ? 2 : 1)
                #expect(difference == nil, "size \(size) damage \(index): \(difference ?? "")")
                runs += 1
            }
            // Code sizes 0–8 written over the real ones (0 and 1 take giflib's own widening rule).
            for (codeSize, recoded) in DifferentialSweep.recoded(data).enumerated()
            where Self.full || codeSize < 2 || codeSize == 3 + size % 6 {
                let recodedPath = try temporaryFile(recoded, name: "sweep\(size)recoded")
                defer { try? FileManager.default.removeItem(atPath: recodedPath) }
                let difference = decoderDifference(recodedPath, strict: codeSize % 2 == 0, threads: codeSize % 3 == 0 ? 2 : 1)
                #expect(difference == nil, "size \(size) code size \(codeSize): \(difference ?? "")")
                runs += 1
            }
        }
        print("differential sweep: \(sizes.count) sizes, \(runs) runs identical to giflib")
    }
}
