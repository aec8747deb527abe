import Frames
import Timeline

/// The encoder settings actually used, reported by `--stats` so a run can be reproduced and its memory
/// understood. In low-memory mode the encoder's own frame buffers are bounded as well as gifx's cache:
/// libx264 holds roughly `rc-lookahead + b-frames + references + frame threads` full frames (each with
/// its half-resolution planes), which at 4K dwarfs everything else.
public struct EncoderTuning: Codable, Sendable, Hashable {
    /// libavcodec encoder name (`libx264`, `libx265`).
    public var encoder: String
    public var preset: String
    public var crf: Double
    /// Whether the encoder's buffers were bounded.
    public var lowMemory: Bool
    /// Encoder threads (`AVCodecContext.thread_count`); 0 lets the encoder choose (1.5 × cores for x264).
    public var threads: Int
    /// Frames the rate control looks ahead, `nil` for the preset's default (40 for x264 medium).
    public var lookahead: Int?
    /// The `x264-params` / `x265-params` string passed, empty when none.
    public var params: String

    /// Picks the settings for `frameSize` output frames. Low-memory mode applies when `lowMemory` says so,
    /// or (when `nil`) when the estimated encoder buffers at the preset's defaults exceed `budget`
    /// (default: `defaultEncoderBudget`).
    public static func choose(
        options: MP4Options, frameSize: CanvasSize, budget: Int?, cores: Int
    ) -> EncoderTuning {
        let frameBytes = estimatedFrameBytes(frameSize)
        let defaultFrames = estimatedFramesHeld(lookahead: 40, threads: defaultThreads(cores: cores))
        let low = options.lowMemory ?? (frameBytes * defaultFrames > (budget ?? defaultEncoderBudget))
        var tuning = EncoderTuning(
            encoder: options.codec.encoderName, preset: options.preset, crf: options.crf, lowMemory: low,
            threads: 0, lookahead: nil, params: "")
        var params: [String] = []
        if options.codec == .hevc { params.append("log-level=error") }
        if low {
            let threads = max(1, min(cores, 2))
            let target = budget ?? defaultEncoderBudget
            // Whatever remains after the fixed frames goes to lookahead, between 4 and the preset's 40.
            let fixed = estimatedFramesHeld(lookahead: 0, threads: threads)
            let lookahead = max(4, min(40, target / max(1, frameBytes) - fixed))
            tuning.threads = threads
            tuning.lookahead = lookahead
            switch options.codec {
            case .h264: params += ["rc-lookahead=\(lookahead)", "sync-lookahead=0"]
            case .hevc: params += ["rc-lookahead=\(lookahead)", "frame-threads=\(threads)", "pools=\(threads)"]
            }
        }
        tuning.params = params.joined(separator: ":")
        return tuning
    }

    /// Encoder memory above which low-memory mode starts when no budget is given.
    public static let defaultEncoderBudget = 256 << 20

    /// libx264's per-frame footprint: the padded yuv420p picture (1.5 bytes/pixel), four half-resolution
    /// planes for motion search (1 byte/pixel) and per-macroblock data.
    static func estimatedFrameBytes(_ size: CanvasSize) -> Int {
        let paddedWidth = size.width + 64, paddedHeight = size.height + 64
        let pixels = paddedWidth * paddedHeight
        let macroblocks = (paddedWidth / 16) * (paddedHeight / 16)
        return pixels * 5 / 2 + macroblocks * 64
    }

    /// Frames libx264 keeps: lookahead, 3 B-frames, 3 references plus one being reconstructed, and one per thread.
    static func estimatedFramesHeld(lookahead: Int, threads: Int) -> Int { lookahead + 3 + 4 + threads }

    /// libx264's automatic thread count (1.5 × cores).
    static func defaultThreads(cores: Int) -> Int { max(1, cores * 3 / 2) }
}
