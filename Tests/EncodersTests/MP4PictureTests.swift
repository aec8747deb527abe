import CAV
import GifxEncoders
import Foundation
import GifxFrames
import GifFixtures
import GifxPipeline
import Testing
import GifxTimeline

/// A two-frame GIF whose first frame is fully transparent (index 0 marked transparent) and second red.
private func transparentThenRed(width: Int = 16, height: Int = 16) -> FixtureGIF {
    FixtureGIF(width: width, height: height, frames: [
        .solid(0, width: width, height: height, delay: 10, transparentIndex: 0),
        .solid(1, width: width, height: height, delay: 10),
    ])
}

@Suite("MP4 pictures and tags (decoded with ffmpeg)", .enabled(if: MP4Oracle.available, "ffmpeg/ffprobe not installed"))
struct MP4PictureTests {
    @Test("transparent pixels show white by default")
    func transparencyOverWhite() throws {
        let run = try convertFixture(transparentThenRed())
        #expect(run.frames.count == 2)
        #expect(close(run.frames[0].centre, RGB(255, 255, 255)), "\(run.frames[0].centre)")
        #expect(close(run.frames[1].centre, RGB(255, 0, 0)), "\(run.frames[1].centre)")
    }

    @Test("transparent pixels show --background #102030")
    func transparencyOverColour() throws {
        let background = try #require(RGBColor(parsing: "#102030"))
        let run = try convertFixture(transparentThenRed(), options: VideoSettings(background: background))
        #expect(close(run.frames[0].centre, RGB(0x10, 0x20, 0x30)), "\(run.frames[0].centre)")
        #expect(close(run.frames[1].centre, RGB(255, 0, 0)))
    }

    @Test("1×1 is padded to 2×2 with the background")
    func oneByOne() throws {
        let gif = FixtureGIF.solidFrames(width: 1, height: 1, colorIndices: [1, 3], delays: [10, 10])
        let run = try convertFixture(gif, options: VideoSettings(crf: 0))
        #expect(run.stream.width == 2 && run.stream.height == 2)
        #expect(run.frames.count == 2)
        for (frame, colour) in zip(run.frames, [RGB(255, 0, 0), RGB(0, 0, 255)]) {
            #expect(abs(frame.luma(0, 0) - expectedLuma(colour)) <= 2, "\(frame.luma(0, 0))")
            for (x, y) in [(1, 0), (0, 1), (1, 1)] {
                #expect(abs(frame.luma(x, y) - expectedLuma(RGB(255, 255, 255))) <= 2, "\(frame.luma(x, y))")
            }
        }
    }

    @Test("333×187 is padded (not scaled) to 334×188 with the background")
    func oddSize() throws {
        let gif = FixtureGIF.solidFrames(width: 333, height: 187, colorIndices: [2, 3], delays: [4, 4])
        let black = RGBColor.black
        let run = try convertFixture(gif, options: VideoSettings(crf: 0, background: black))
        #expect(run.stream.width == 334 && run.stream.height == 188)
        for (frame, colour) in zip(run.frames, [RGB(0, 255, 0), RGB(0, 0, 255)]) {
            #expect(close(frame.centre, colour), "\(frame.centre)")
            // The last canvas column and row keep the frame's colour; the padding is the background.
            #expect(abs(frame.luma(332, 100) - expectedLuma(colour)) <= 2)
            #expect(abs(frame.luma(100, 186) - expectedLuma(colour)) <= 2)
            #expect(abs(frame.luma(333, 100) - expectedLuma(RGB(0, 0, 0))) <= 2)
            #expect(abs(frame.luma(100, 187) - expectedLuma(RGB(0, 0, 0))) <= 2)
        }
    }

    @Test("--width and --scale resize with the aspect kept, rounded to even")
    func resized() throws {
        let gif = FixtureGIF.solidFrames(width: 40, height: 20, colorIndices: [4, 5], delays: [10, 10])
        let smaller = try convertFixture(gif, options: VideoSettings(size: .width(16)))
        #expect(smaller.stream.width == 16 && smaller.stream.height == 8)
        #expect(close(smaller.frames[0].centre, RGB(255, 255, 0)))
        let larger = try convertFixture(gif, options: VideoSettings(size: .scale(1.5)))
        #expect(larger.stream.width == 60 && larger.stream.height == 30)
        #expect(close(larger.frames[1].centre, RGB(255, 0, 255)))
    }

    @Test("colour tags read back as BT.709, limited range, yuv420p, H.264 in avc1")
    func colourTags() throws {
        let gif = FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: [6, 7], delays: [10, 10])
        let stream = try convertFixture(gif).stream
        #expect(stream.codec_name == "h264")
        #expect(stream.codec_tag_string == "avc1")
        #expect(stream.pix_fmt == "yuv420p")
        #expect(stream.color_range == "tv")
        #expect(stream.color_space == "bt709")
        #expect(stream.color_transfer == "bt709")
        #expect(stream.color_primaries == "bt709")
    }

    @Test(
        "--codec hevc is HEVC tagged hvc1, with the same timing and tags",
        .enabled(
            if: gifx_av_load(GIFX_AV_ENCODER, nil, 0) == 0 && gifx_avcodec_find_encoder_by_name("libx265") != nil,
            "this libavcodec has no libx265"))
    func hevc() throws {
        let gif = FixtureGIF.solidFrames(width: 32, height: 32, colorIndices: [1, 3], delays: [4, 8])
        let run = try convertFixture(gif, options: VideoSettings(codec: .hevc))
        #expect(run.stream.codec_name == "hevc")
        #expect(run.stream.codec_tag_string == "hvc1")
        #expect(run.stream.color_space == "bt709" && run.stream.color_range == "tv")
        #expect(run.stream.nb_read_frames == "3")
        #expect(run.stream.durationCentiseconds == 12)
        #expect(close(run.frames[0].centre, RGB(255, 0, 0)))
        #expect(close(run.frames[2].centre, RGB(0, 0, 255)))
    }
}
