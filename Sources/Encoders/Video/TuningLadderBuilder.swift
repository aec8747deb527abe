import GifxFrames
import GifxSystem
import GifxTimeline

/// What a codec's descriptor builds its settings ladder from (`VideoCodecDescriptor.tuningLadder`): the run's
/// settings, the frame size, the encoder chosen for it and the threads, and `tuning`, which makes one level
/// with its estimated bytes.
package struct TuningLadderBuilder {
    package let settings: VideoSettings
    package let frameSize: CanvasSize
    /// The encoder chosen for `frameSize`.
    package let encoder: String
    /// Encoder threads: `--threads`, else 0 (the encoder decides).
    package let threads: Int
    /// The threads counted for memory: `threads`, or the encoder's own choice on this machine.
    package let countedThreads: Int
    /// Whether the stream's repeats may keep the encoder's B-frames (`VideoCodecDescriptor.hasReferenceRepeats`).
    package let referenceRepeats: Bool
    /// The level's parameters (`--level`), first on every level that takes parameters, so a leaner level's own
    /// `ref=1` and `bframes=1` win (x264 reads them in order).
    let levelParameters: EncoderParameters

    init(settings: VideoSettings, frameSize: CanvasSize, threads: Int, referenceRepeats: Bool) {
        self.settings = settings
        self.frameSize = frameSize
        self.threads = max(0, threads)
        countedThreads = self.threads > 0 ? self.threads : ThreadCounts.machine.encoderOwnChoice
        encoder = settings.codec.encoderName(for: frameSize)
        self.referenceRepeats = referenceRepeats
        levelParameters = settings.levelLimits?.encoderParameters(frameSize: frameSize, preset: settings.preset) ?? []
    }

    /// x265's thread pools where the threads were given (`pools`), none otherwise.
    package var pools: EncoderParameters { threads > 0 ? [.pools(threads)] : [] }

    /// Frames in flight per frame thread, the reconstruction, slack.
    package var held: Int { 3 * countedThreads + 3 }

    /// One ladder level: `label` (the memory plan's report), the encoder frames it holds (its estimated bytes
    /// are the descriptor's fixed bytes plus that many frames), and its parameters or private options after
    /// the codec's `baseOptions`. Parameters go only to an encoder that takes them (`parametersOption`).
    package func tuning(
        _ label: String, frames: Int, parameters: EncoderParameters = [], extra: [EncoderOption] = []
    ) -> EncoderTuning {
        let codec = settings.codec.descriptor
        var result = EncoderTuning(
            encoder: encoder, preset: settings.preset, crf: settings.crf, lowMemory: false, threads: threads,
            parameters: [], codecOptions: [], estimatedBytes: 0, budgetBytes: nil, reason: "")
        result.setting = label
        result.estimatedBytes = codec.fixedBytes(encoder: encoder) + frames * codec.frameBytes(frameSize)
        if codec.parametersOption(encoder: encoder) != nil { result.parameters = levelParameters + parameters }
        result.codecOptions = codec.baseOptions(settings, encoder: encoder) + extra
        return result
    }
}
