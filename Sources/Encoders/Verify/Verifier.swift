import Foundation
import GifxChecks
import GifxFrames
import GifxPipeline
import GifxTimeline

/// Proves that outputs show the GIF: each output is decoded with its own reader (libavformat/libavcodec for
/// video and JPEG, libwebp for WebP, libpng for sheets and PNG posters), its frames are mapped onto the GIF's
/// schedule under the run's policy, and its pixels are compared with the composited GIF frame shown at that
/// time. Streaming: the GIF is decoded through `FrameStream`, one output frame is decoded at a time.
///
/// An output that cannot be read is a failed verification of that output (its report says why), not an
/// error of the run; errors about the GIF itself are thrown as usual.
public final class Verifier {
    public let inputPath: String
    public let run: RunSettings
    public let settings: VerifySettings
    let metadata: AnimationMetadata
    /// The input's schedule under the run's policy, which every output is checked against.
    package let timeline: Timeline

    /// The verifier of a conversion's own outputs (`RunSettings.verify`): the metadata and schedule it already has.
    package init(context: ConversionContext, settings: VerifySettings) {
        inputPath = context.inputPath
        run = context.settings
        self.settings = settings
        metadata = context.metadata
        timeline = context.timeline
    }

    public init(inputPath: String, run: RunSettings = RunSettings(), settings: VerifySettings = VerifySettings()) throws {
        if let problem = run.problem { throw problem }
        self.inputPath = inputPath
        self.run = run
        self.settings = settings
        metadata = try readAnimationMetadata(path: inputPath, limits: run.limits)
        timeline = Timeline(metadata.timelineInput, policy: run.policy)
    }

    /// How an output is read back: the reader of the kind its name gives (`OutputKind.forPath`), or the registry's
    /// reader of a path no kind names (`OutputReader.unnamedPath`), unless the file's content says it is another
    /// kind's (`OutputReader.byContent`: a `.png` that is an animation is read as an APNG).
    package static func reader(of path: String) -> OutputReader {
        let reader = OutputKind.forPath(path)?.reader ?? .unnamedPath
        return reader.byContent(path) ?? reader
    }

    /// Verifies every output; never throws for an output's own defects (see the type's comment). A file that an
    /// output given alongside names as one of its parts (`OutputReader.parts`: a PNG that a sheet description names
    /// as one of its pages) is verified as that part (the frames the output cuts from it), not as a file of its own.
    public func verify(_ paths: [String]) throws -> [OutputVerification] {
        var partOwners: [String: (path: String, parts: OutputParts)] = [:]
        for path in paths {
            guard let parts = Self.reader(of: path).parts else { continue }
            for part in parts.named(path) where partOwners[part] == nil { partOwners[part] = (path, parts) }
        }
        return try paths.map { path in
            if let owner = partOwners[Self.standardized(path)], owner.path != path {
                do {
                    return try owner.parts.verify(self, owner.path, Self.standardized(path), path)
                } catch let error as VerifyReadError {
                    return unreadable(path, error.description)
                }
            }
            return try verify(path)
        }
    }

    /// A path as an output names its parts (absolute, `.` and `..` resolved).
    static func standardized(_ path: String) -> String { URL(fileURLWithPath: path).standardized.path }

    /// Verifies one output. `expected` narrows what a verifying conversion knows (the poster's frame, the
    /// timing tolerance of the plan, the plays written).
    public func verify(_ path: String, expected: Expectation = Expectation()) throws -> OutputVerification {
        do {
            return try Self.reader(of: path).verify(self, path, expected)
        } catch let error as VerifyReadError {
            return unreadable(path, error.description)
        } catch let error as LibavError {
            return unreadable(path, error.description)
        }
    }

    /// What the conversion that wrote an output knows about it.
    public struct Expectation: Sendable {
        /// The poster's GIF frame.
        public var posterFrame: Int?
        /// Plays of the animation the video holds.
        public var plays: Int?
        /// The timing tolerance of the plan the output was written with (ms) and its name.
        public var timingToleranceMs: Double?
        public var timingMode: String?
        public init(posterFrame: Int? = nil, plays: Int? = nil, timingToleranceMs: Double? = nil, timingMode: String? = nil) {
            self.posterFrame = posterFrame; self.plays = plays
            self.timingToleranceMs = timingToleranceMs; self.timingMode = timingMode
        }
    }

    func unreadable(_ path: String, _ why: String) -> OutputVerification {
        var report = OutputVerification(
            path: path, kind: Self.reader(of: path).unreadableName, codec: "?", width: 0, height: 0, exact: false)
        report.failures = ["cannot read the output: \(why)"]
        return report
    }

    func feed() -> CanvasFeed { StreamCanvasFeed(path: inputPath, metadata: metadata, settings: run) }

    func known(_ expected: Expectation) -> (Double, String)? {
        expected.timingToleranceMs.map { ($0, expected.timingMode ?? "plan") }
    }

}
