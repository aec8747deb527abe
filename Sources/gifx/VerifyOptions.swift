import ArgumentParser
import Foundation
import GifxKit

/// `--verify` on to-mp4, to-sprite and convert: every fresh output is read back and checked against the GIF before
/// it is renamed into place; one that fails never lands, and the run exits 1 with the report on stderr.
struct VerifyOptions: ParsableArguments {
    @Flag(help: "Read every output back before it is put in place; refuse it (exit 1) unless it shows the GIF.")
    var verify = false
    @Option(help: ArgumentHelp(
        "With --verify: largest timing error accepted (default: the output's timing mode's own).", valueName: "ms"))
    var maxTimingError: Double?
    @Option(help: ArgumentHelp("With --verify: lowest PSNR accepted for lossy outputs (default: 30 dB).", valueName: "dB"))
    var minPsnr: Double?

    func validate() throws {
        if !verify && (maxTimingError != nil || minPsnr != nil) {
            throw ValidationError("--max-timing-error and --min-psnr go with --verify")
        }
        if let maxTimingError, maxTimingError < 0 { throw ValidationError("--max-timing-error must be 0 or more") }
    }

    /// `settings` with verification switched on when asked.
    func applied(to settings: RunSettings) -> RunSettings {
        guard verify else { return settings }
        var settings = settings
        settings.verify = VerifySettings(maxTimingErrorMs: maxTimingError, minPSNR: minPsnr)
        return settings
    }
}

/// Runs a conversion; when its verification fails, prints the report of every failing output on stderr first
/// (`reportingErrors` then adds one line per failing output and exits 1).
func printingVerificationReport<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as VerificationFailed {
        let text = error.reports.filter { !$0.passed }.map(VerificationText.text).joined(separator: "\n")
        FileHandle.standardError.write(Data((text + "\n").utf8))
        throw error
    }
}
