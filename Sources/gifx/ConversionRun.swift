import GifxEncoders
import GifxKit
import GifxTimeline

/// What `convert`, `to-mp4` and `to-sprite` share: the run-wide options, and the one way they run a conversion.
protocol ConvertingCommand {
    var policy: TimelinePolicy { get }
    var common: RunOptions { get }
    var verification: VerifyOptions { get }
    var edits: EditOptions { get }
}

extension ConvertingCommand {
    /// The run's settings: the common options under the policy, then verification, then the edits.
    var runSettings: RunSettings { edits.applied(to: verification.applied(to: common.settings(policy: policy))) }

    /// Runs `requests` on `input` (a path, or `-` for standard input): one decode for every output, the progress
    /// shown by `progress` and finished on every exit, a failed verification's report printed before it is thrown.
    func runConversion(input: String, requests: [OutputRequest], progress: ProgressReporter) throws -> ConversionReport {
        defer { progress.finish() }
        return try printingVerificationReport {
            try InputSource.withPath(input) { path in
                try GifConverter(settings: runSettings).convert(path: path, to: requests, progress: progress.update)
            }
        }
    }
}
