import Foundation
import GifxKit
import GifxTimeline

/// The schedule of an input's bytes, read in the service process with only its metadata decoded (GET /v1/embed's
/// fetched source, POST /v1/timeline's body), spooled under `spool`: an input the registry does not read is
/// `unsupportedFormat`, a damaged one the error its reader gives.
func uploadTimeline(_ bytes: Data, spool: String) async throws -> Timeline {
    guard InputFormat.sniff(bytes.prefix(InputFormat.probeLength)) != nil else { throw ServiceError.unsupportedFormat() }
    var settings = RunSettings()
    settings.scratchFolder = spool
    let converter = GifConverter(settings: settings)
    do {
        return try await offThePool { try converter.timeline(of: .bytes(bytes)) }
    } catch {
        throw ServiceError.from(error)
    }
}
