import Foundation
@testable import GifxEncoders
import GifxTimeline
import Testing

/// Typed x264/x265 parameters (issue 37, item 3) render to exactly the text gifx passed before they were typed.
///
/// Every expected string below is a literal captured from main at b587c31, before the change: a throwaway test
/// there printed `EncoderTuning.ladder(...)`'s `setting`, `params`, `options`, `lookahead` and `lowMemory` (and
/// the same after `forRepeatPictures`, `withoutBFrames` and the two `--target-size` passes, then `withParams`)
/// for every codec, ladder level, `lowMemory` nil/true/false, `--level`, thread count and frames under 16
/// pixels; the lines are copied here unchanged. The whole dump (38,736 lines: 4 codecs, 8 frame sizes, 0/1/4
/// threads, 3 presets, the levels; JSON and its round trip included) was also compared after the change: identical.
/// Since issue 51 (key frames by seconds) two private options follow `crf`: x265's `forced-idr=1` and SVT-AV1's
/// `svtav1-params=enable-force-key-frames=1` (a key frame asked for is an IDR, and SVT-AV1 takes it at all);
/// the lines below have them inserted, nothing else changed. Since HEVC repeat pictures (issue 51), x265's
/// repeat-picture forms (`rep`, `pass2rep`) end in `bframes=0:ref=1:temporal-mvp=0:wpp=0` (those keys moved
/// there, as x264's have always been; `wpp=0` since the repeats name x265's own PPS) and their setting text
/// says so; nothing else changed. Since AV1 repeat pictures (issue 51), AV1's repeat-picture forms are libaom
/// real-time (`usage=realtime`, `cpu-used` 8 up to medium and 7 above, `crf` 35 mapped to 30, no lag,
/// `aom-params=tune-content=screen`), written here by hand from `AV1Codec.realtimeOptions`' doc.
/// Since issue 56's fourth stop x265 runs at `log-level=none` (was `error`: its own refusal of a `--target-size`
/// second pass printed a line before gifx's one-line error); that item changed by hand, nothing else.
@Suite struct EncoderParametersTests {
    /// One level as the capture printed it.
    private static func line(_ t: EncoderTuning) -> String {
        let options = t.options.map { "\($0.name)=\($0.value)" }.joined(separator: ";")
        return "\(t.setting) | params=\(t.params) | options=\(options) | lookahead=\(t.lookahead.map(String.init) ?? "nil") | low=\(t.lowMemory)"
    }

    private static func ladder(
        _ codec: VideoCodec, _ width: Int, _ height: Int, threads: Int, lowMemory: Bool? = nil, preset: String = "medium",
        level: String? = nil
    ) -> [EncoderTuning] {
        let options = VideoSettings(
            codec: codec, crf: codec == .h264 ? 23.5 : nil, preset: preset, lowMemory: lowMemory,
            level: level.flatMap { LevelRequest(text: $0) })
        return EncoderTuning.ladder(options: options, frameSize: CanvasSize(width: width, height: height), threads: threads)
    }

    @Test("every ladder level, and its repeat-picture, streamed and two-pass forms, renders what main rendered",
          arguments: 0..<Self.ladderCases.count)
    func ladderLevels(_ index: Int) {
        let (title, codec, levels, expected) = Self.ladderCases[index]
        var got: [String] = []
        for level in levels {
            got.append(Self.line(level))
            got.append("  rep: " + Self.line(level.forRepeatPictures(codec: codec)))
            got.append("  stream: " + Self.line(level.withoutBFrames(codec: codec)))
            got.append("  pass1: " + Self.line(level.withParameters([.pass(1), .stats(path: "/tmp/a:b/s.log")])))
            got.append("  pass2rep: " + Self.line(level.withParameters([.pass(2), .stats(path: "/tmp/s.log"), .bitrate(300)]).forRepeatPictures(codec: codec)))
        }
        #expect(got == expected, "\(title)")
    }

    /// (what the case shows, the codec, the ladder, the lines captured at main: each level, then its repeat-picture,
    /// streamed, pass-1 and pass-2-with-repeat-pictures forms).
    static let ladderCases: [(String, VideoCodec, [EncoderTuning], [String])] = [
        ("x264, 640x480, 4 threads: the preset, lookahead 10, the lean level, sliced threads", .h264, ladder(.h264, 640, 480, threads: 4), [
            "x264 preset medium | params= | options=preset=medium;crf=23.5 | lookahead=nil | low=false",
            "  rep: x264 preset medium, no B-frames, 1 reference (repeat pictures) | params=bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=bframes=0:ref=1 | lookahead=nil | low=false",
            "  stream: x264 preset medium, no B-frames (streamed) | params=bframes=0 | options=preset=medium;crf=23.5;x264-params=bframes=0 | lookahead=nil | low=false",
            "  pass1: x264 preset medium | params=pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=pass=1:stats=/tmp/a:b/s.log | lookahead=nil | low=false",
            "  pass2rep: x264 preset medium, no B-frames, 1 reference (repeat pictures) | params=pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=nil | low=false",
            "x264 lookahead 10 | params=rc-lookahead=10 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10 | lookahead=10 | low=true",
            "  rep: x264 lookahead 10, no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=10:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:bframes=0:ref=1 | lookahead=10 | low=true",
            "  stream: x264 lookahead 10, no B-frames (streamed) | params=rc-lookahead=10:bframes=0 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:bframes=0 | lookahead=10 | low=true",
            "  pass1: x264 lookahead 10 | params=rc-lookahead=10:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:pass=1:stats=/tmp/a:b/s.log | lookahead=10 | low=true",
            "  pass2rep: x264 lookahead 10, no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=10:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=10 | low=true",
            "x264 1 B-frame, 1 reference, lookahead 1 | params=bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | options=preset=medium;crf=23.5;x264-params=bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | lookahead=1 | low=true",
            "  rep: x264 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | lookahead=1 | low=true",
            "  stream: x264 1 B-frame, 1 reference, lookahead 1, no B-frames (streamed) | params=ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  pass1: x264 1 B-frame, 1 reference, lookahead 1 | params=bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | lookahead=1 | low=true",
            "  pass2rep: x264 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=1 | low=true",
            "x264 sliced threads, 1 B-frame, 1 reference, lookahead 1 | params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | lookahead=1 | low=true",
            "  rep: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | lookahead=1 | low=true",
            "  stream: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames (streamed) | params=sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  pass1: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1 | params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | lookahead=1 | low=true",
            "  pass2rep: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=1 | low=true",
        ]),
        ("x264 on one thread: no sliced-threads level", .h264, ladder(.h264, 640, 480, threads: 1), [
            "x264 preset medium | params= | options=preset=medium;crf=23.5 | lookahead=nil | low=false",
            "  rep: x264 preset medium, no B-frames, 1 reference (repeat pictures) | params=bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=bframes=0:ref=1 | lookahead=nil | low=false",
            "  stream: x264 preset medium, no B-frames (streamed) | params=bframes=0 | options=preset=medium;crf=23.5;x264-params=bframes=0 | lookahead=nil | low=false",
            "  pass1: x264 preset medium | params=pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=pass=1:stats=/tmp/a:b/s.log | lookahead=nil | low=false",
            "  pass2rep: x264 preset medium, no B-frames, 1 reference (repeat pictures) | params=pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=nil | low=false",
            "x264 lookahead 10 | params=rc-lookahead=10 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10 | lookahead=10 | low=true",
            "  rep: x264 lookahead 10, no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=10:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:bframes=0:ref=1 | lookahead=10 | low=true",
            "  stream: x264 lookahead 10, no B-frames (streamed) | params=rc-lookahead=10:bframes=0 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:bframes=0 | lookahead=10 | low=true",
            "  pass1: x264 lookahead 10 | params=rc-lookahead=10:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:pass=1:stats=/tmp/a:b/s.log | lookahead=10 | low=true",
            "  pass2rep: x264 lookahead 10, no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=10:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=10 | low=true",
            "x264 1 B-frame, 1 reference, lookahead 1 | params=bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | options=preset=medium;crf=23.5;x264-params=bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | lookahead=1 | low=true",
            "  rep: x264 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | lookahead=1 | low=true",
            "  stream: x264 1 B-frame, 1 reference, lookahead 1, no B-frames (streamed) | params=ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  pass1: x264 1 B-frame, 1 reference, lookahead 1 | params=bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | lookahead=1 | low=true",
            "  pass2rep: x264 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=1 | low=true",
        ]),
        ("x264 at 4K: the levels above the ceiling left out", .h264, ladder(.h264, 3840, 2160, threads: 4), [
            "x264 sliced threads, 1 B-frame, 1 reference, lookahead 1 | params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | lookahead=1 | low=true",
            "  rep: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | lookahead=1 | low=true",
            "  stream: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames (streamed) | params=sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  pass1: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1 | params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | lookahead=1 | low=true",
            "  pass2rep: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=1 | low=true",
        ]),
        ("x264 at 1080p: starts at lookahead 10", .h264, ladder(.h264, 1920, 1080, threads: 4), [
            "x264 lookahead 10 | params=rc-lookahead=10 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10 | lookahead=10 | low=true",
            "  rep: x264 lookahead 10, no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=10:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:bframes=0:ref=1 | lookahead=10 | low=true",
            "  stream: x264 lookahead 10, no B-frames (streamed) | params=rc-lookahead=10:bframes=0 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:bframes=0 | lookahead=10 | low=true",
            "  pass1: x264 lookahead 10 | params=rc-lookahead=10:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:pass=1:stats=/tmp/a:b/s.log | lookahead=10 | low=true",
            "  pass2rep: x264 lookahead 10, no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=10:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=10 | low=true",
            "x264 1 B-frame, 1 reference, lookahead 1 | params=bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | options=preset=medium;crf=23.5;x264-params=bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | lookahead=1 | low=true",
            "  rep: x264 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | lookahead=1 | low=true",
            "  stream: x264 1 B-frame, 1 reference, lookahead 1, no B-frames (streamed) | params=ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  pass1: x264 1 B-frame, 1 reference, lookahead 1 | params=bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | lookahead=1 | low=true",
            "  pass2rep: x264 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=1 | low=true",
            "x264 sliced threads, 1 B-frame, 1 reference, lookahead 1 | params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | lookahead=1 | low=true",
            "  rep: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | lookahead=1 | low=true",
            "  stream: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames (streamed) | params=sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  pass1: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1 | params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | lookahead=1 | low=true",
            "  pass2rep: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=1 | low=true",
        ]),
        ("--low-memory on: the leanest level only", .h264, ladder(.h264, 640, 480, threads: 4, lowMemory: true), [
            "x264 sliced threads, 1 B-frame, 1 reference, lookahead 1 | params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | lookahead=1 | low=true",
            "  rep: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | lookahead=1 | low=true",
            "  stream: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames (streamed) | params=sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  pass1: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1 | params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | lookahead=1 | low=true",
            "  pass2rep: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=1 | low=true",
        ]),
        ("--low-memory off: the preset only, even at 4K", .h264, ladder(.h264, 3840, 2160, threads: 4, lowMemory: false), [
            "x264 preset medium | params= | options=preset=medium;crf=23.5 | lookahead=nil | low=false",
            "  rep: x264 preset medium, no B-frames, 1 reference (repeat pictures) | params=bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=bframes=0:ref=1 | lookahead=nil | low=false",
            "  stream: x264 preset medium, no B-frames (streamed) | params=bframes=0 | options=preset=medium;crf=23.5;x264-params=bframes=0 | lookahead=nil | low=false",
            "  pass1: x264 preset medium | params=pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=pass=1:stats=/tmp/a:b/s.log | lookahead=nil | low=false",
            "  pass2rep: x264 preset medium, no B-frames, 1 reference (repeat pictures) | params=pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=nil | low=false",
        ]),
        ("--level 3 at 1280x720: level, VBV, no B-pyramid and 2 references first, the leaner levels' own ref=1 after", .h264, ladder(.h264, 1280, 720, threads: 4, level: "3"), [
            "x264 preset medium | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2 | lookahead=nil | low=false",
            "  rep: x264 preset medium, no B-frames, 1 reference (repeat pictures) | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:bframes=0:ref=1 | lookahead=nil | low=false",
            "  stream: x264 preset medium, no B-frames (streamed) | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:bframes=0 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:bframes=0 | lookahead=nil | low=false",
            "  pass1: x264 preset medium | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:pass=1:stats=/tmp/a:b/s.log | lookahead=nil | low=false",
            "  pass2rep: x264 preset medium, no B-frames, 1 reference (repeat pictures) | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=nil | low=false",
            "x264 lookahead 10 | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:rc-lookahead=10 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:rc-lookahead=10 | lookahead=10 | low=true",
            "  rep: x264 lookahead 10, no B-frames, 1 reference (repeat pictures) | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:rc-lookahead=10:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:rc-lookahead=10:bframes=0:ref=1 | lookahead=10 | low=true",
            "  stream: x264 lookahead 10, no B-frames (streamed) | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:rc-lookahead=10:bframes=0 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:rc-lookahead=10:bframes=0 | lookahead=10 | low=true",
            "  pass1: x264 lookahead 10 | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:rc-lookahead=10:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:rc-lookahead=10:pass=1:stats=/tmp/a:b/s.log | lookahead=10 | low=true",
            "  pass2rep: x264 lookahead 10, no B-frames, 1 reference (repeat pictures) | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:rc-lookahead=10:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:rc-lookahead=10:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=10 | low=true",
            "x264 1 B-frame, 1 reference, lookahead 1 | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | lookahead=1 | low=true",
            "  rep: x264 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | lookahead=1 | low=true",
            "  stream: x264 1 B-frame, 1 reference, lookahead 1, no B-frames (streamed) | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  pass1: x264 1 B-frame, 1 reference, lookahead 1 | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | lookahead=1 | low=true",
            "  pass2rep: x264 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=1 | low=true",
            "x264 sliced threads, 1 B-frame, 1 reference, lookahead 1 | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | lookahead=1 | low=true",
            "  rep: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:sliced-threads=1:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:sliced-threads=1:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | lookahead=1 | low=true",
            "  stream: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames (streamed) | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  pass1: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1 | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:sliced-threads=1:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | lookahead=1 | low=true",
            "  pass2rep: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:sliced-threads=1:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:sliced-threads=1:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=1 | low=true",
        ]),
        ("--level 4.1 at 1080p with veryslow (16 references): ref=4", .h264, ladder(.h264, 1920, 1080, threads: 1, lowMemory: true, preset: "veryslow", level: "4.1"), [
            "x264 1 B-frame, 1 reference, lookahead 1 | params=level=4.1:vbv-maxrate=50000:vbv-bufsize=62500:ref=4:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | options=preset=veryslow;crf=23.5;x264-params=level=4.1:vbv-maxrate=50000:vbv-bufsize=62500:ref=4:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0 | lookahead=1 | low=true",
            "  rep: x264 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=level=4.1:vbv-maxrate=50000:vbv-bufsize=62500:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | options=preset=veryslow;crf=23.5;x264-params=level=4.1:vbv-maxrate=50000:vbv-bufsize=62500:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | lookahead=1 | low=true",
            "  stream: x264 1 B-frame, 1 reference, lookahead 1, no B-frames (streamed) | params=level=4.1:vbv-maxrate=50000:vbv-bufsize=62500:ref=4:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=veryslow;crf=23.5;x264-params=level=4.1:vbv-maxrate=50000:vbv-bufsize=62500:ref=4:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  pass1: x264 1 B-frame, 1 reference, lookahead 1 | params=level=4.1:vbv-maxrate=50000:vbv-bufsize=62500:ref=4:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | options=preset=veryslow;crf=23.5;x264-params=level=4.1:vbv-maxrate=50000:vbv-bufsize=62500:ref=4:bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:pass=1:stats=/tmp/a:b/s.log | lookahead=1 | low=true",
            "  pass2rep: x264 1 B-frame, 1 reference, lookahead 1, no B-frames, 1 reference (repeat pictures) | params=level=4.1:vbv-maxrate=50000:vbv-bufsize=62500:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=veryslow;crf=23.5;x264-params=level=4.1:vbv-maxrate=50000:vbv-bufsize=62500:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=1 | low=true",
        ]),
        ("under 16 pixels: no B-frames on every level (bframes=0 replaces the lean level's bframes=1, at the end)", .h264, ladder(.h264, 8, 8, threads: 4), [
            "x264 preset medium, no B-frames (under 16 pixels) | params=bframes=0 | options=preset=medium;crf=23.5;x264-params=bframes=0 | lookahead=nil | low=false",
            "  rep: x264 preset medium, no B-frames (under 16 pixels), no B-frames, 1 reference (repeat pictures) | params=bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=bframes=0:ref=1 | lookahead=nil | low=false",
            "  stream: x264 preset medium, no B-frames (under 16 pixels), no B-frames (streamed) | params=bframes=0 | options=preset=medium;crf=23.5;x264-params=bframes=0 | lookahead=nil | low=false",
            "  pass1: x264 preset medium, no B-frames (under 16 pixels) | params=bframes=0:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=bframes=0:pass=1:stats=/tmp/a:b/s.log | lookahead=nil | low=false",
            "  pass2rep: x264 preset medium, no B-frames (under 16 pixels), no B-frames, 1 reference (repeat pictures) | params=pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=nil | low=false",
            "x264 lookahead 10, no B-frames (under 16 pixels) | params=rc-lookahead=10:bframes=0 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:bframes=0 | lookahead=10 | low=true",
            "  rep: x264 lookahead 10, no B-frames (under 16 pixels), no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=10:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:bframes=0:ref=1 | lookahead=10 | low=true",
            "  stream: x264 lookahead 10, no B-frames (under 16 pixels), no B-frames (streamed) | params=rc-lookahead=10:bframes=0 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:bframes=0 | lookahead=10 | low=true",
            "  pass1: x264 lookahead 10, no B-frames (under 16 pixels) | params=rc-lookahead=10:bframes=0:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:bframes=0:pass=1:stats=/tmp/a:b/s.log | lookahead=10 | low=true",
            "  pass2rep: x264 lookahead 10, no B-frames (under 16 pixels), no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=10:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=10:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=10 | low=true",
            "x264 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels) | params=ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  rep: x264 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels), no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | lookahead=1 | low=true",
            "  stream: x264 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels), no B-frames (streamed) | params=ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  pass1: x264 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels) | params=ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0:pass=1:stats=/tmp/a:b/s.log | lookahead=1 | low=true",
            "  pass2rep: x264 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels), no B-frames, 1 reference (repeat pictures) | params=rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=1 | low=true",
            "x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels) | params=sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  rep: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels), no B-frames, 1 reference (repeat pictures) | params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | lookahead=1 | low=true",
            "  stream: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels), no B-frames (streamed) | params=sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  pass1: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels) | params=sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0:pass=1:stats=/tmp/a:b/s.log | lookahead=1 | low=true",
            "  pass2rep: x264 sliced threads, 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels), no B-frames, 1 reference (repeat pictures) | params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=sliced-threads=1:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=1 | low=true",
        ]),
        ("under 16 pixels with --level 1b and --low-memory on", .h264, ladder(.h264, 12, 40, threads: 1, lowMemory: true, level: "1b"), [
            "x264 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels) | params=level=1b:vbv-maxrate=128:vbv-bufsize=350:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=level=1b:vbv-maxrate=128:vbv-bufsize=350:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  rep: x264 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels), no B-frames, 1 reference (repeat pictures) | params=level=1b:vbv-maxrate=128:vbv-bufsize=350:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=level=1b:vbv-maxrate=128:vbv-bufsize=350:rc-lookahead=1:sync-lookahead=0:bframes=0:ref=1 | lookahead=1 | low=true",
            "  stream: x264 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels), no B-frames (streamed) | params=level=1b:vbv-maxrate=128:vbv-bufsize=350:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | options=preset=medium;crf=23.5;x264-params=level=1b:vbv-maxrate=128:vbv-bufsize=350:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0 | lookahead=1 | low=true",
            "  pass1: x264 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels) | params=level=1b:vbv-maxrate=128:vbv-bufsize=350:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23.5;x264-params=level=1b:vbv-maxrate=128:vbv-bufsize=350:ref=1:rc-lookahead=1:sync-lookahead=0:bframes=0:pass=1:stats=/tmp/a:b/s.log | lookahead=1 | low=true",
            "  pass2rep: x264 1 B-frame, 1 reference, lookahead 1, no B-frames (under 16 pixels), no B-frames, 1 reference (repeat pictures) | params=level=1b:vbv-maxrate=128:vbv-bufsize=350:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | options=preset=medium;crf=23.5;x264-params=level=1b:vbv-maxrate=128:vbv-bufsize=350:rc-lookahead=1:sync-lookahead=0:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1 | lookahead=1 | low=true",
        ]),
        ("x265 with 4 threads: pools=4 on every level", .hevc, ladder(.hevc, 640, 480, threads: 4), [
            "x265 preset medium | params=log-level=none:pools=4 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4 | lookahead=nil | low=false",
            "  rep: x265 preset medium, no B-frames, 1 reference, no temporal MVP, no wavefronts (repeat pictures) | params=log-level=none:pools=4:bframes=0:ref=1:temporal-mvp=0:wpp=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4:bframes=0:ref=1:temporal-mvp=0:wpp=0 | lookahead=nil | low=false",
            "  stream: x265 preset medium, no B-frames (streamed) | params=log-level=none:pools=4:bframes=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4:bframes=0 | lookahead=nil | low=false",
            "  pass1: x265 preset medium | params=log-level=none:pools=4:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4:pass=1:stats=/tmp/a:b/s.log | lookahead=nil | low=false",
            "  pass2rep: x265 preset medium, no B-frames, 1 reference, no temporal MVP, no wavefronts (repeat pictures) | params=log-level=none:pools=4:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1:temporal-mvp=0:wpp=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1:temporal-mvp=0:wpp=0 | lookahead=nil | low=false",
            "x265 lookahead 10 | params=log-level=none:pools=4:rc-lookahead=10 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4:rc-lookahead=10 | lookahead=10 | low=true",
            "  rep: x265 lookahead 10, no B-frames, 1 reference, no temporal MVP, no wavefronts (repeat pictures) | params=log-level=none:pools=4:rc-lookahead=10:bframes=0:ref=1:temporal-mvp=0:wpp=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4:rc-lookahead=10:bframes=0:ref=1:temporal-mvp=0:wpp=0 | lookahead=10 | low=true",
            "  stream: x265 lookahead 10, no B-frames (streamed) | params=log-level=none:pools=4:rc-lookahead=10:bframes=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4:rc-lookahead=10:bframes=0 | lookahead=10 | low=true",
            "  pass1: x265 lookahead 10 | params=log-level=none:pools=4:rc-lookahead=10:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4:rc-lookahead=10:pass=1:stats=/tmp/a:b/s.log | lookahead=10 | low=true",
            "  pass2rep: x265 lookahead 10, no B-frames, 1 reference, no temporal MVP, no wavefronts (repeat pictures) | params=log-level=none:pools=4:rc-lookahead=10:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1:temporal-mvp=0:wpp=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4:rc-lookahead=10:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1:temporal-mvp=0:wpp=0 | lookahead=10 | low=true",
            "x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5 | params=log-level=none:pools=4:frame-threads=1:bframes=2:ref=1:rc-lookahead=5 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4:frame-threads=1:bframes=2:ref=1:rc-lookahead=5 | lookahead=5 | low=true",
            "  rep: x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5, no B-frames, 1 reference, no temporal MVP, no wavefronts (repeat pictures) | params=log-level=none:pools=4:frame-threads=1:rc-lookahead=5:bframes=0:ref=1:temporal-mvp=0:wpp=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4:frame-threads=1:rc-lookahead=5:bframes=0:ref=1:temporal-mvp=0:wpp=0 | lookahead=5 | low=true",
            "  stream: x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5, no B-frames (streamed) | params=log-level=none:pools=4:frame-threads=1:ref=1:rc-lookahead=5:bframes=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4:frame-threads=1:ref=1:rc-lookahead=5:bframes=0 | lookahead=5 | low=true",
            "  pass1: x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5 | params=log-level=none:pools=4:frame-threads=1:bframes=2:ref=1:rc-lookahead=5:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4:frame-threads=1:bframes=2:ref=1:rc-lookahead=5:pass=1:stats=/tmp/a:b/s.log | lookahead=5 | low=true",
            "  pass2rep: x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5, no B-frames, 1 reference, no temporal MVP, no wavefronts (repeat pictures) | params=log-level=none:pools=4:frame-threads=1:rc-lookahead=5:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1:temporal-mvp=0:wpp=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:pools=4:frame-threads=1:rc-lookahead=5:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1:temporal-mvp=0:wpp=0 | lookahead=5 | low=true",
        ]),
        ("x265 with the encoder's own threads: no pools", .hevc, ladder(.hevc, 640, 480, threads: 0, lowMemory: true), [
            "x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5 | params=log-level=none:frame-threads=1:bframes=2:ref=1:rc-lookahead=5 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:frame-threads=1:bframes=2:ref=1:rc-lookahead=5 | lookahead=5 | low=true",
            "  rep: x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5, no B-frames, 1 reference, no temporal MVP, no wavefronts (repeat pictures) | params=log-level=none:frame-threads=1:rc-lookahead=5:bframes=0:ref=1:temporal-mvp=0:wpp=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:frame-threads=1:rc-lookahead=5:bframes=0:ref=1:temporal-mvp=0:wpp=0 | lookahead=5 | low=true",
            "  stream: x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5, no B-frames (streamed) | params=log-level=none:frame-threads=1:ref=1:rc-lookahead=5:bframes=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:frame-threads=1:ref=1:rc-lookahead=5:bframes=0 | lookahead=5 | low=true",
            "  pass1: x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5 | params=log-level=none:frame-threads=1:bframes=2:ref=1:rc-lookahead=5:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:frame-threads=1:bframes=2:ref=1:rc-lookahead=5:pass=1:stats=/tmp/a:b/s.log | lookahead=5 | low=true",
            "  pass2rep: x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5, no B-frames, 1 reference, no temporal MVP, no wavefronts (repeat pictures) | params=log-level=none:frame-threads=1:rc-lookahead=5:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1:temporal-mvp=0:wpp=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=log-level=none:frame-threads=1:rc-lookahead=5:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1:temporal-mvp=0:wpp=0 | lookahead=5 | low=true",
        ]),
        ("x265 --level 4.1: level-idc, Main tier, VBV first", .hevc, ladder(.hevc, 1920, 1080, threads: 4, level: "4.1"), [
            "x265 lookahead 10 | params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:rc-lookahead=10 | options=preset=medium;crf=23;forced-idr=1;x265-params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:rc-lookahead=10 | lookahead=10 | low=true",
            "  rep: x265 lookahead 10, no B-frames, 1 reference, no temporal MVP, no wavefronts (repeat pictures) | params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:rc-lookahead=10:bframes=0:ref=1:temporal-mvp=0:wpp=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:rc-lookahead=10:bframes=0:ref=1:temporal-mvp=0:wpp=0 | lookahead=10 | low=true",
            "  stream: x265 lookahead 10, no B-frames (streamed) | params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:rc-lookahead=10:bframes=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:rc-lookahead=10:bframes=0 | lookahead=10 | low=true",
            "  pass1: x265 lookahead 10 | params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:rc-lookahead=10:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23;forced-idr=1;x265-params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:rc-lookahead=10:pass=1:stats=/tmp/a:b/s.log | lookahead=10 | low=true",
            "  pass2rep: x265 lookahead 10, no B-frames, 1 reference, no temporal MVP, no wavefronts (repeat pictures) | params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:rc-lookahead=10:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1:temporal-mvp=0:wpp=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:rc-lookahead=10:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1:temporal-mvp=0:wpp=0 | lookahead=10 | low=true",
            "x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5 | params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:frame-threads=1:bframes=2:ref=1:rc-lookahead=5 | options=preset=medium;crf=23;forced-idr=1;x265-params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:frame-threads=1:bframes=2:ref=1:rc-lookahead=5 | lookahead=5 | low=true",
            "  rep: x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5, no B-frames, 1 reference, no temporal MVP, no wavefronts (repeat pictures) | params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:frame-threads=1:rc-lookahead=5:bframes=0:ref=1:temporal-mvp=0:wpp=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:frame-threads=1:rc-lookahead=5:bframes=0:ref=1:temporal-mvp=0:wpp=0 | lookahead=5 | low=true",
            "  stream: x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5, no B-frames (streamed) | params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:frame-threads=1:ref=1:rc-lookahead=5:bframes=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:frame-threads=1:ref=1:rc-lookahead=5:bframes=0 | lookahead=5 | low=true",
            "  pass1: x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5 | params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:frame-threads=1:bframes=2:ref=1:rc-lookahead=5:pass=1:stats=/tmp/a:b/s.log | options=preset=medium;crf=23;forced-idr=1;x265-params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:frame-threads=1:bframes=2:ref=1:rc-lookahead=5:pass=1:stats=/tmp/a:b/s.log | lookahead=5 | low=true",
            "  pass2rep: x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5, no B-frames, 1 reference, no temporal MVP, no wavefronts (repeat pictures) | params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:frame-threads=1:rc-lookahead=5:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1:temporal-mvp=0:wpp=0 | options=preset=medium;crf=23;forced-idr=1;x265-params=level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=20000:log-level=none:pools=4:frame-threads=1:rc-lookahead=5:pass=2:stats=/tmp/s.log:bitrate=300:bframes=0:ref=1:temporal-mvp=0:wpp=0 | lookahead=5 | low=true",
        ]),
        ("libvpx: lag as private options, no parameters", .vp9, ladder(.vp9, 640, 480, threads: 4), [
            "libvpx lag 25 | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32 | lookahead=nil | low=false",
            "  rep: libvpx lag 25, error resilient (repeat pictures) | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32;error-resilient=default | lookahead=nil | low=false",
            "  stream: libvpx lag 25 | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32 | lookahead=nil | low=false",
            "  pass1: libvpx lag 25 | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32 | lookahead=nil | low=false",
            "  pass2rep: libvpx lag 25, error resilient (repeat pictures) | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32;error-resilient=default | lookahead=nil | low=false",
            "libvpx lag 10 | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32;lag-in-frames=10 | lookahead=nil | low=true",
            "  rep: libvpx lag 10, error resilient (repeat pictures) | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32;lag-in-frames=10;error-resilient=default | lookahead=nil | low=true",
            "  stream: libvpx lag 10 | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32;lag-in-frames=10 | lookahead=nil | low=true",
            "  pass1: libvpx lag 10 | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32;lag-in-frames=10 | lookahead=nil | low=true",
            "  pass2rep: libvpx lag 10, error resilient (repeat pictures) | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32;lag-in-frames=10;error-resilient=default | lookahead=nil | low=true",
            "libvpx no lag, no alt-ref | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32;lag-in-frames=0;auto-alt-ref=0 | lookahead=nil | low=true",
            "  rep: libvpx no lag, no alt-ref, error resilient (repeat pictures) | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32;lag-in-frames=0;auto-alt-ref=0;error-resilient=default | lookahead=nil | low=true",
            "  stream: libvpx no lag, no alt-ref | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32;lag-in-frames=0;auto-alt-ref=0 | lookahead=nil | low=true",
            "  pass1: libvpx no lag, no alt-ref | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32;lag-in-frames=0;auto-alt-ref=0 | lookahead=nil | low=true",
            "  pass2rep: libvpx no lag, no alt-ref, error resilient (repeat pictures) | params= | options=deadline=good;cpu-used=3;row-mt=1;crf=32;lag-in-frames=0;auto-alt-ref=0;error-resilient=default | lookahead=nil | low=true",
        ]),
        ("SVT-AV1 and libaom: their own options only", .av1, ladder(.av1, 640, 480, threads: 4, preset: "veryslow"), [
            "libsvtav1 preset veryslow | params= | options=preset=4;crf=35;svtav1-params=enable-force-key-frames=1 | lookahead=nil | low=false",
            "  rep: libaom real-time cpu-used 7 (repeat pictures) | params= | options=usage=realtime;cpu-used=7;row-mt=1;crf=30;lag-in-frames=0;aom-params=tune-content=screen | lookahead=nil | low=false",
            "  stream: libsvtav1 preset veryslow | params= | options=preset=4;crf=35;svtav1-params=enable-force-key-frames=1 | lookahead=nil | low=false",
            "  pass1: libsvtav1 preset veryslow | params= | options=preset=4;crf=35;svtav1-params=enable-force-key-frames=1 | lookahead=nil | low=false",
            "  pass2rep: libaom real-time cpu-used 7 (repeat pictures) | params= | options=usage=realtime;cpu-used=7;row-mt=1;crf=30;lag-in-frames=0;aom-params=tune-content=screen | lookahead=nil | low=false",
        ]),
        ("libaom (AV1 under 64 pixels)", .av1, ladder(.av1, 40, 12, threads: 1, preset: "ultrafast"), [
            "libaom-av1 preset ultrafast | params= | options=cpu-used=8;row-mt=1;crf=35;lag-in-frames=0 | lookahead=nil | low=false",
            "  rep: libaom real-time cpu-used 8 (repeat pictures) | params= | options=usage=realtime;cpu-used=8;row-mt=1;crf=30;lag-in-frames=0;aom-params=tune-content=screen | lookahead=nil | low=false",
            "  stream: libaom-av1 preset ultrafast | params= | options=cpu-used=8;row-mt=1;crf=35;lag-in-frames=0 | lookahead=nil | low=false",
            "  pass1: libaom-av1 preset ultrafast | params= | options=cpu-used=8;row-mt=1;crf=35;lag-in-frames=0 | lookahead=nil | low=false",
            "  pass2rep: libaom real-time cpu-used 8 (repeat pictures) | params= | options=usage=realtime;cpu-used=8;row-mt=1;crf=30;lag-in-frames=0;aom-params=tune-content=screen | lookahead=nil | low=false",
        ]),
    ]

    @Test("the report's JSON is main's text: params, the x264-params option, lookahead when set")
    func reportText() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let level3 = Self.ladder(.h264, 1280, 720, threads: 4, level: "3")
        // estimatedBytes, by hand since x264's estimate met its peak RSS (issue 56): 7 MiB + frames × 1344 × 784 ×
        // 39 / 10 (4,109,414 a frame); lookahead 10: 10 + 3 + 3 + 3 × 4 + 3 = 31 frames; the preset: 40 + … = 61.
        #expect(String(decoding: try encoder.encode(level3[1]), as: UTF8.self) == """
            {"crf":23.5,"encoder":"libx264","estimatedBytes":134731866,"lookahead":10,"lowMemory":true,"options":[{"name":"preset","value":"medium"},{"name":"crf","value":"23.5"},{"name":"x264-params","value":"level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:rc-lookahead=10"}],"params":"level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:ref=2:rc-lookahead=10","preset":"medium","reason":"","setting":"x264 lookahead 10","threads":4}
            """)
        #expect(String(decoding: try encoder.encode(level3[0].forRepeatPictures()), as: UTF8.self) == """
            {"crf":23.5,"encoder":"libx264","estimatedBytes":258014286,"lowMemory":false,"options":[{"name":"preset","value":"medium"},{"name":"crf","value":"23.5"},{"name":"x264-params","value":"level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:bframes=0:ref=1"}],"params":"level=3:vbv-maxrate=10000:vbv-bufsize=10000:b-pyramid=none:bframes=0:ref=1","preset":"medium","reason":"","setting":"x264 preset medium, no B-frames, 1 reference (repeat pictures)","threads":4}
            """)
        let vp9 = Self.ladder(.vp9, 640, 480, threads: 4)
        #expect(String(decoding: try encoder.encode(vp9[0]), as: UTF8.self) == """
            {"crf":32,"encoder":"libvpx-vp9","estimatedBytes":80875520,"lowMemory":false,"options":[{"name":"deadline","value":"good"},{"name":"cpu-used","value":"3"},{"name":"row-mt","value":"1"},{"name":"crf","value":"32"}],"params":"","preset":"medium","reason":"","setting":"libvpx lag 25","threads":4}
            """)
    }

    @Test("a later item of a key replaces every earlier one, at the end; lookahead is the last rc-lookahead")
    func replacing() {
        let level: EncoderParameters = [.level(LevelRequest(tenths: 30)), .ref(2), .bframes(1), .rcLookahead(10), .ref(1)]
        #expect(level.rendered == "level=3:ref=2:bframes=1:rc-lookahead=10:ref=1")
        #expect(level.lookahead == 10)
        let replaced = level.replacing(with: [.bframes(0), .ref(1)])
        #expect(replaced.rendered == "level=3:rc-lookahead=10:bframes=0:ref=1")
        #expect(([.rcLookahead(10), .rcLookahead(1)] as EncoderParameters).lookahead == 1)
        #expect(EncoderParameters().rendered.isEmpty && EncoderParameters().lookahead == nil)
        #expect(level.replacing(with: []) == level)
    }

    @Test("each parameter renders as x264/x265 read it")
    func rendering() {
        let all: EncoderParameters = [
            .level(LevelRequest(tenths: 9)), .levelIDC(LevelRequest(tenths: 41)), .highTier(false), .vbvMaxRate(20000),
            .vbvBufferSize(25000), .bPyramid(.none), .ref(1), .bframes(0), .rcLookahead(5), .syncLookahead(0),
            .slicedThreads, .logLevel(.error), .pools(4), .frameThreads(1), .pass(2), .stats(path: "/tmp/a b/x.log"),
            .bitrate(300),
        ]
        #expect(all.rendered == "level=1b:level-idc=4.1:high-tier=0:vbv-maxrate=20000:vbv-bufsize=25000:b-pyramid=none:"
            + "ref=1:bframes=0:rc-lookahead=5:sync-lookahead=0:sliced-threads=1:log-level=error:pools=4:frame-threads=1:"
            + "pass=2:stats=/tmp/a b/x.log:bitrate=300")
    }

    @Test("the report decoded and encoded again is the same JSON, lookahead and x264-params included")
    func reportRoundTrip() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for codec in [VideoCodec.h264, .hevc, .vp9, .av1] {
            for level in Self.ladder(codec, 1280, 720, threads: 2, level: codec == .h264 ? "3" : nil) {
                let tunings = [
                    level, level.forRepeatPictures(codec: codec),
                    level.withParameters([.pass(1), .stats(path: "/tmp/x:y/s.log")]),
                ]
                for tuning in tunings {
                    let json = try encoder.encode(tuning)
                    let back = try JSONDecoder().decode(EncoderTuning.self, from: json)
                    #expect(String(decoding: try encoder.encode(back), as: UTF8.self) == String(decoding: json, as: UTF8.self))
                    #expect(back.lookahead == tuning.lookahead && back.params == tuning.params && back.options == tuning.options)
                }
            }
        }
    }

    @Test("SVT-AV1's crf maps onto libaom real-time's: 0...35 onto 0...30, 35...63 onto 30...63, rounded")
    func realtimeAV1CRF() {
        // 7 × 30/35 = 6; 23 × 30/35 = 19.7; 30 + 14 × 33/28 = 46.5, rounded away from zero
        let pairs: [(Double, Int)] = [(0, 0), (7, 6), (23, 20), (34.6, 30), (35, 30), (49, 47), (63, 63), (80, 63), (-3, 0)]
        for (svt, aom) in pairs { #expect(AV1Codec.realtimeCRF(svt) == aom, "crf \(svt)") }
    }
}
