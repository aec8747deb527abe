import Foundation
@testable import GifxEncoders
import GifxFrames
import GifxTimeline
import Testing

/// A fifth codec is a folder plus one line (issue 58, item 2): a descriptor of its own, and its `VideoCodec` in the
/// registry's list. Here the descriptor is a test's, and the line binds the registry's list for the length of the
/// test (`VideoCodecRegistry.$codecs.withValue`, where gifx's own codecs are `builtIn`); nothing else changes, and
/// the plan and settings machinery takes the codec by its name, into its containers only, with its defaults.
struct Fake5Codec: VideoCodecDescriptor {
    var name: String { "fake5" }
    var displayName: String { "Fake 5" }
    var libavName: String { "fake5" }
    var containers: Set<VideoContainer> { [.webm] }
    var encoderName: String { "libfake5" }
    var crfRange: ClosedRange<Double> { 0...40 }
    var defaultCRF: Double { 17 }
    func baseOptions(_ settings: VideoSettings, encoder: String) -> [EncoderOption] {
        [EncoderOption("quality", "\(Int(settings.crf))")]
    }
}

@Suite struct FifthCodecTests {
    static let fake5 = VideoCodec(Fake5Codec())

    private func timeline(width: Int, height: Int, delays: [Int]) -> Timeline {
        let descriptors = delays.map { delay in
            FrameDescriptor(
                rawDelay: delay, rect: PixelRect(x: 0, y: 0, width: width, height: height),
                disposal: Disposal(rawField: 0), transparentIndex: nil, interlaced: false)
        }
        return Timeline(TimelineInput(canvas: CanvasSize(width: width, height: height), loopCount: 0, frames: descriptors))
    }

    @Test func aRegisteredCodecGoesThroughThePlan() throws {
        try VideoCodecRegistry.$codecs.withValue(VideoCodecRegistry.builtIn + [Self.fake5]) {  // the one line
            // Its name parses, as an option value, a query's `codec=` and JSON.
            #expect(VideoCodec(rawValue: "fake5") == Self.fake5)
            #expect(VideoCodec.allCases.map(\.rawValue) == ["h264", "hevc", "vp9", "av1", "fake5"])
            var given = OutputSettings()
            try given.set("codec", "fake5", in: "codec=fake5")
            #expect(given.codec == Self.fake5)
            let decoded = try JSONDecoder().decode([VideoCodec].self, from: Data(#"["fake5","vp9"]"#.utf8))
            #expect(decoded == [Self.fake5, .vp9])

            // Its containers are honoured, its defaults are its own, and it has no levels.
            let settings = VideoSettings(container: .webm, codec: Self.fake5)
            #expect(settings.crf == 17 && settings.problem == nil)
            #expect(VideoSettings(container: .mp4, codec: Self.fake5).problem == .container(Self.fake5, .mp4))
            #expect(VideoSettings(container: .webm, codec: Self.fake5, crf: 41).problem == .crf(41, codec: Self.fake5))
            let level = try #require(LevelRequest(text: "4.1"))
            #expect(VideoSettings(container: .webm, codec: Self.fake5, level: level).problem == .level(level, codec: Self.fake5))
            #expect(VideoContainer.webm.defaultCodec == .vp9)

            // The plan takes its encoder, settings ladder and key-frame policy from the descriptor, and, with no
            // repeat pictures of its own, encodes every copy of a held frame.
            let plan = try VideoPlan(timeline: timeline(width: 40, height: 30, delays: [10, 30, 20]), options: settings, threads: 1)
            #expect(plan.tuning.encoder == "libfake5")
            #expect(plan.tuningLadder.count == 1)
            #expect(plan.tuning.options == [EncoderOption("quality", "17")])
            #expect(plan.tuning.params.isEmpty)
            #expect(!plan.repeatsAsPictures)
            #expect(plan.requiredLevel == nil)
            #expect(Self.fake5.descriptor.forcesKeyframes(plan.tuning))
            #expect(VideoCodecRegistry.codec(encoder: "libfake5") == Self.fake5)
            #expect(VideoCodecRegistry.codec(libavName: "fake5") == Self.fake5)
        }
        // Outside the binding the registry is gifx's own.
        #expect(VideoCodec(rawValue: "fake5") == nil)
        #expect(VideoCodec.allCases == VideoCodecRegistry.builtIn)
    }
}
