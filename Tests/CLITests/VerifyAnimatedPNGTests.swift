import Foundation
import GifFixtures
import Testing

/// `gifx verify` on a `.png` that is an animation (`-o apng:x.png`, or another tool's APNG) reads it as an APNG,
/// every frame at its time, not as a poster of one frame: an APNG whose first frame matches the GIF's but whose
/// later frames do not must fail, as it passed when only its first frame was compared.
@Suite struct VerifyAnimatedPNGTests {
    static let delays = [10, 20, 30, 40]

    @Test func anAnimatedPNGIsVerifiedFrameByFrame() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gif = try writeGIF(
            FixtureGIF.solidFrames(width: 24, height: 16, colorIndices: [1, 2, 3, 4], delays: Self.delays), to: folder)
        // The same first frame, other frames after it.
        let other = try writeGIF(
            FixtureGIF.solidFrames(width: 24, height: 16, colorIndices: [1, 5, 6, 7], delays: Self.delays), to: folder,
            name: "other.gif")
        let path = { folder.appendingPathComponent($0).path }
        for (input, name) in [(gif, "same.png"), (other, "other.png")] {
            let run = try runGifx(["convert", input, "-o", "apng:" + path(name), "--quiet"], timeout: 60)
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(try runGifx(["convert", gif, "-o", path("poster.png"), "--quiet"], timeout: 60).status == 0)

        let same = try runGifx(["verify", gif, path("same.png")], timeout: 60)
        #expect(same.status == 0, "\(same.stdoutText)\(same.stderr)")
        #expect(same.stdoutText.contains("apng png 24x16"), "\(same.stdoutText)")
        #expect(same.stdoutText.contains("frames: 4 shown for 4 scheduled"), "\(same.stdoutText)")

        let differing = try runGifx(["verify", gif, path("other.png")], timeout: 60)
        #expect(differing.status == 1, "\(differing.stdoutText)\(differing.stderr)")

        // A still PNG stays a poster.
        let poster = try runGifx(["verify", gif, path("poster.png")], timeout: 60)
        #expect(poster.status == 0 && poster.stdoutText.contains("poster png 24x16"), "\(poster.stdoutText)")
    }
}
