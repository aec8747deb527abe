import GifxEncoders
import Testing
import GifxTimeline

/// The encoder's ladder of settings (issue 24): fastest first, each leaner level estimated smaller, every
/// level on the run's threads, and the preset's own settings left out where they would hold over
/// `defaultCeiling` (4K, 1080p) because the bounded ones cost no time there.
@Suite struct EncoderTuningTests {
    private func ladder(
        _ codec: VideoCodec = .h264, width: Int, height: Int, threads: Int = 2, lowMemory: Bool? = nil
    ) -> [EncoderTuning] {
        EncoderTuning.ladder(
            options: VideoSettings(codec: codec, lowMemory: lowMemory), frameSize: CanvasSize(width: width, height: height),
            threads: threads)
    }

    @Test("each level is estimated leaner than the one before, and runs the run's threads", arguments: [
        VideoCodec.h264, .hevc, .vp9,
    ])
    func levelsShrink(codec: VideoCodec) {
        for threads in [1, 2, 3] {
            let levels = ladder(codec, width: 480, height: 270, threads: threads)
            #expect(levels.count >= 3)
            for (faster, leaner) in zip(levels, levels.dropFirst()) {
                #expect(leaner.estimatedBytes < faster.estimatedBytes, "\(faster.setting) → \(leaner.setting)")
            }
            #expect(levels.allSatisfy { $0.threads == threads })
            #expect(!levels[0].lowMemory)
            #expect(levels.dropFirst().allSatisfy { $0.lowMemory })
        }
    }

    /// libx265 3.5's lookahead writes out of bounds in `Lookahead::cuTree` at widths up to 48 (valgrind on
    /// `to-mp4 --codec hevc`: 3 invalid writes at 34x34, 40x40 and 48x40, none at 50-72 wide; none with
    /// `cutree=0`), so every level there runs without it, and wider frames keep x265's default.
    @Test("x265 at widths up to 48 runs without its CU-tree, at every level; from 50 wide with it")
    func narrowHEVCWithoutCUTree() {
        for (width, height) in [(34, 34), (48, 40), (48, 640)] {
            for threads in [0, 1, 2] {
                let levels = ladder(.hevc, width: width, height: height, threads: threads)
                #expect(levels.allSatisfy { $0.params.split(separator: ":").contains("cutree=0") }, "\(width)x\(height)")
            }
        }
        for (width, height) in [(50, 40), (64, 32), (640, 48)] {
            #expect(ladder(.hevc, width: width, height: height).allSatisfy { !$0.params.contains("cutree") }, "\(width)x\(height)")
        }
        #expect(ladder(.h264, width: 40, height: 40).allSatisfy { !$0.params.contains("cutree") })
    }

    @Test("small frames keep the preset; 1080p starts at lookahead 10; 4K at 1 B-frame, 1 reference")
    func defaultCeiling() {
        // every level ends with x264's psychovisual settings (`H264Codec.psychovisual`, issue 56)
        let psy = "psy-rd=0.0,0.0:chroma-qp-offset=-2"
        #expect(ladder(width: 1280, height: 720)[0].params == psy)
        let hd = ladder(width: 1920, height: 1080)
        #expect(hd[0].params == "rc-lookahead=10:" + psy)
        #expect(hd[0].lookahead == 10)
        let uhd = ladder(width: 3840, height: 2160)
        #expect(uhd[0].params == "bframes=1:ref=1:rc-lookahead=1:sync-lookahead=0:" + psy)
        #expect(uhd[0].estimatedBytes <= EncoderTuning.defaultCeiling(.h264))
        #expect(uhd.last?.params.hasPrefix("sliced-threads=1") == true)
        // The estimate is frames held × padded bytes a frame: (3840 + 64) × (2160 + 64) × 3.9 per frame.
        let frame = 3904 * 2224 * 39 / 10
        #expect(uhd[0].estimatedBytes > 10 * frame && uhd[0].estimatedBytes < 14 * frame)
    }

    /// The frames each x264 preset holds: rc-lookahead, B-frames and references from x264's common/base.c
    /// (`param_apply_preset`), with B-frame repeats at least B-frames + 3 references; 5 frames a B-frame past 2
    /// for `b-adapt=2` (slow and slower), 12 for slower's analysis (16 at placebo), 3 frames a reference for
    /// placebo's `tesa` (docs/memory.md, "x264's presets"). Before issue 56's fifth stop every preset was counted
    /// as `medium`'s 40 + 3 + 3, so `--preset veryslow` was planned 80 frames short.
    @Test("x264's first level counts the preset's own lookahead, B-frames and references", arguments: [
        ("ultrafast", 0 + 0 + 1, 0 + 0 + 1), ("veryfast", 10 + 3 + 1, 10 + 3 + 6),
        ("slow", 50 + 3 + 5 + 5, 50 + 3 + 6 + 5), ("slower", 60 + 3 + 8 + 5 + 12, 60 + 3 + 8 + 5 + 12),
        ("veryslow", 60 + 8 + 16 + 30 + 12, 60 + 8 + 16 + 30 + 12),
        ("placebo", 60 + 16 + 3 * 16 + 70 + 16, 60 + 16 + 3 * 19 + 70 + 16),
    ])
    func presetFrames(preset: String, frames: Int, framesWithBReferences: Int) {
        let size = CanvasSize(width: 480, height: 270), frame = (480 + 64) * (270 + 64) * 39 / 10
        for repeats in [false, true] {
            func first(_ preset: String) -> Int {
                EncoderTuning.ladder(
                    options: VideoSettings(codec: .h264, preset: preset, lowMemory: false), frameSize: size, threads: 1,
                    referenceRepeats: repeats)[0].estimatedBytes
            }
            // against medium's 40 + 3 + 3 (+ 3 more references with B-frame repeats): the fixed bytes and the
            // frames in flight cancel
            let medium = repeats ? 40 + 3 + 6 : 40 + 3 + 3
            #expect(first(preset) - first("medium") == ((repeats ? framesWithBReferences : frames) - medium) * frame,
                    "\(preset), B-frame repeats \(repeats)")
        }
    }

    @Test("--low-memory on forces the leanest level, off the preset's own settings, even at 4K")
    func forced() {
        let on = ladder(width: 64, height: 64, lowMemory: true)
        #expect(on.count == 1)
        #expect(on[0].params.contains("sliced-threads=1"))
        let off = ladder(width: 3840, height: 2160, lowMemory: false)
        #expect(off.count == 1)
        #expect(off[0].params == "psy-rd=0.0,0.0:chroma-qp-offset=-2")  // the preset's, with x264's psychovisual settings
        #expect(!off[0].lowMemory)
    }

    @Test("VP9's leaner levels set libvpx's lag; AV1 has one level")
    func otherCodecs() {
        let vp9 = ladder(.vp9, width: 640, height: 360)
        #expect(vp9.last?.options.contains(EncoderOption("lag-in-frames", "0")) == true)
        #expect(vp9.last?.options.contains(EncoderOption("auto-alt-ref", "0")) == true)
        #expect(!vp9[0].options.contains { $0.name == "lag-in-frames" })
        #expect(ladder(.av1, width: 640, height: 360).count == 1)
    }
}
