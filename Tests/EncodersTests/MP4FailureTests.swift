import GifxEncoders
import Foundation
import GifxFrames
import GifFixtures
import GifxPipeline
import Testing
import GifxTimeline

private func timeline(width: Int, height: Int, frames: Int = 1) -> Timeline {
    let descriptors = (0..<frames).map { _ in
        FrameDescriptor(
            rawDelay: 10, rect: PixelRect(x: 0, y: 0, width: width, height: height), disposal: Disposal(rawField: 0),
            transparentIndex: nil, interlaced: false)
    }
    return Timeline(TimelineInput(canvas: CanvasSize(width: width, height: height), loopCount: 0, frames: descriptors))
}

@Suite("MP4 failures")
struct MP4FailureTests {
    @Test("a conversion stopped after two of four canvases leaves neither the targets nor a temporary file")
    func stoppedConversionLeavesNothing() throws {
        let folder = try mp4Folder()
        let input = folder.appendingPathComponent("in.gif").path
        try FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: [1, 2, 3, 4], delays: [10, 10, 10, 10])
            .write(to: URL(fileURLWithPath: input))
        let requests: [OutputRequest] = [
            .video(target: .file(folder.appendingPathComponent("out.mp4").path), options: VideoSettings()),
            .video(target: .file(folder.appendingPathComponent("out.webm").path), options: VideoSettings(container: .webm)),
            .webp(target: .file(folder.appendingPathComponent("out.webp").path), options: WebPOptions()),
        ]
        var asked = 0
        #expect(throws: CancellationError.self) {
            try Conversion(inputPath: input).run(requests, shouldStop: {
                asked += 1
                return asked == 2
            })
        }
        #expect(asked == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["in.gif"])
    }

    @Test("a canvas wider than libx264's 16384 is refused before encoding (exit 65)")
    func canvasTooWide() throws {
        let error = try #require(throws: VideoPlanError.self) {
            try VideoPlan(timeline: timeline(width: 16385, height: 8), options: VideoSettings())
        }
        #expect(error.failureClass == .malformedData)
        #expect(error.description.contains("16384"))
    }

    @Test("a requested size beyond the limit is a usage error (exit 64)")
    func requestTooLarge() throws {
        let error = try #require(throws: VideoPlanError.self) {
            try VideoPlan(timeline: timeline(width: 1000, height: 10), options: VideoSettings(size: .scale(20)))
        }
        #expect(error.failureClass == .usage)
    }

    @Test("HEVC refuses canvases under 32×32 (exit 65): libx265 3.5 corrupts its heap on some of them", arguments: [
        (8, 8), (36, 20), (48, 30), (16, 64),
    ])
    func hevcTooSmall(_ width: Int, _ height: Int) throws {
        let error = try #require(throws: VideoPlanError.self) {
            try VideoPlan(timeline: timeline(width: width, height: height), options: VideoSettings(codec: .hevc))
        }
        #expect(error.failureClass == .malformedData)
        #expect(error.description.contains("minimum of 32x32"))
    }

    @Test("the plan: padded size, tick rate, repeat counts and total frames with loops")
    func plan() throws {
        let video = try VideoPlan(timeline: timeline(width: 333, height: 187, frames: 3), options: VideoSettings(loops: 2))
        #expect(video.outputSize == CanvasSize(width: 334, height: 188))
        #expect(video.frameRate == Rational(10))
        #expect(video.timeline.frames.indices.map { video.plan.placement(of: $0, in: video.timeline).samples } == [1, 1, 1])
        #expect(video.totalOutputFrames == 6)
    }
}
