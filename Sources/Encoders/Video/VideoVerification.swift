import GifxFrames
import GifxPipeline
import GifxTimeline

/// A verified video (MP4, WebM, AVIF): its packets are decoded as they are written (`VideoTap`, opened with the
/// encoder's session), and the finished temporary is read back packet by packet.
extension VideoSink: VerifiableSink {
    package func makeCheck(context: ConversionContext, settings: VerifySettings) throws -> any OutputCheck {
        VideoCheck(self, context: context, settings: settings)
    }
}

/// The check of one video: the decoder and the queue of YUV frames the encoder has not yet returned (its delay:
/// room for 64 frames at 1.5 bytes a pixel).
final class VideoCheck: OutputCheck {
    private unowned let sink: VideoSink
    private let context: ConversionContext
    private let settings: VerifySettings
    private var tap: VideoTap?
    /// The plan's bytes for the check; the tap sizes its ring of references with them.
    private var bytes: Int?

    init(_ sink: VideoSink, context: ConversionContext, settings: VerifySettings) {
        self.sink = sink
        self.context = context
        self.settings = settings
        sink.sessionOpened = { [unowned self, unowned sink] session in
            guard let result = sink.result as? VideoResult else { return }
            tap = try VideoTap(
                session: session, video: sink.video, keepAlpha: result.keepsAlpha, timeline: context.timeline,
                settings: settings, run: context.settings, memoryBudget: bytes ?? memoryBytes)
        }
    }

    var memoryBytes: Int { 64 * context.metadata.canvasBytes * 3 / 8 + (16 << 20) }

    func useMemory(bytes: Int) { self.bytes = bytes }

    func verify(_ temporaries: [AtomicOutput], in context: ConversionContext, settings: VerifySettings) throws
        -> OutputVerification?
    {
        guard let tap, let output = temporaries.first else { return nil }
        return try tap.finish(temporaryPath: output.temporaryPath, target: sink.target)
    }
}
