import ChildProcesses
import Foundation
import Testing

/// `make lint` (issue 58, item 2): the script finds a branch on the codec outside the codec's own folder, and
/// passes the repository as it is. A planted compare, switch, `case`, codec id and encoder name each fail it with
/// file:line and a reason; the same lines inside `Sources/Encoders/Video/<codec>/`, or in comments, pass.
@Suite struct CodecLintTests {
    static let script = PackagingScript("codec_lint.py")

    func lint(_ root: URL) throws -> CapturedRun { try Self.script.run(root: root) }

    @Test func plantedCodecBranchesFail() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        // A codec folder: its member is what the lint looks for, and its own branches are allowed.
        let descriptor = """
            extension VideoCodec { public static let fake5 = VideoCodec(Fake5Codec()) }
            let own = tuning.encoder == "libx264" && codec == .fake5
            """
        try plant(descriptor, "Sources/Encoders/Video/Fake5/Fake5Codec.swift", in: root)
        try plant("let shared = 1\n", "Sources/Encoders/Video/Bitstream/Bits.swift", in: root)
        try plant("""
            // a comment may say codec == .fake5, "libx264" and AV_CODEC_ID_H264
            let a = options.codec == .fake5
            switch options.codec {
            case .fake5: break
            }
            let b = id == AV_CODEC_ID_H264
            let c = tuning.encoder != "libsvtav1"
            let d = VideoCodec.fake5 != codec
            let e = container == .mp4
            """, "Sources/Encoders/Video/Shared.swift", in: root)
        let run = try lint(root)
        #expect(run.status == 1)
        let lines = run.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.map { $0.components(separatedBy: ": ")[0] } == [
            "Sources/Encoders/Video/Shared.swift:2", "Sources/Encoders/Video/Shared.swift:3",
            "Sources/Encoders/Video/Shared.swift:4", "Sources/Encoders/Video/Shared.swift:6",
            "Sources/Encoders/Video/Shared.swift:7", "Sources/Encoders/Video/Shared.swift:8",
        ], "\(run.stdoutText)")
        #expect(lines[0].hasSuffix("compares the codec: ask its descriptor (VideoCodecDescriptor) instead"))
        #expect(lines[1].contains("switches on the codec"))
        #expect(lines[2].contains("a case on the codec"))
        #expect(lines[3].contains("a libavcodec codec id"))
        #expect(lines[4].contains("an encoder's name"))

        try FileManager.default.removeItem(at: root.appendingPathComponent("Sources/Encoders/Video/Shared.swift"))
        let clean = try lint(root)
        #expect(clean.status == 0, "\(clean.stdoutText)")
    }

    @Test func theRepositoryPasses() throws {
        let run = try Self.script.run()
        #expect(run.status == 0, "\(run.stdoutText)")
    }
}
