import Foundation
import GifxKit
import GifxTimeline
import GifxPOSIXFiles
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// One admitted and planned conversion, as data: the upload's spooled file, the typed job its query was read into
/// once (`ConversionOrder`), where the output goes, and the grant it runs under. Plain values only, so the same job
/// runs in this process (`LibraryConverter`) or is handed to a worker process (`ServeWorkers`) as one JSON line,
/// which the worker decodes and runs as it is: no query is read there.
package struct ConversionJob: Codable, Sendable, Equatable {
    /// The upload, spooled to a file of the service's.
    package var input: String
    /// The output asked for: kind, settings, edit, streamed or not.
    package var order: ConversionOrder
    /// The output's path in the cache (a sheet's PNG page), and a sheet's description.
    package var output: String
    package var description: String
    /// A streamed output's spool file (`stream=1`), written as it is encoded; `nil`: the output is written whole.
    package var spool: String?
    /// The grant: the conversion's own memory budget and threads.
    package var memoryBudget: Int
    package var threads: Int
    /// Where the conversion keeps its scratch files (the cache's spool folder).
    package var scratchFolder: String

    /// The output's request, the run's settings and, for a streamed output, the descriptor it writes to (the
    /// caller closes it): built from the job's order as it came, where the conversion runs (a descriptor is this
    /// process's).
    package func plan() throws -> (request: OutputRequest, settings: RunSettings, spool: Int32?) {
        var spoolDescriptor: Int32?
        if let spool {
            let fd = open(spool, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw ServiceError.internalError("cannot open the streamed output's spool file: \(String(cString: strerror(errno)))")
            }
            spoolDescriptor = fd
        }
        do {
            let request = try order.request(path: output, jsonPath: description, streamingTo: spoolDescriptor)
            var settings = RunSettings(memoryBudget: memoryBudget, threads: threads, overwrite: true)
            settings.edit = order.edit
            settings.scratchFolder = scratchFolder
            return (request, settings, spoolDescriptor)
        } catch {
            if let spoolDescriptor { close(spoolDescriptor) }
            throw error
        }
    }
}

/// What the service needs to know of a finished conversion: how many pages a sprite sheet took (the service
/// refuses one that needs more than one); `nil` for every other kind.
package struct ConversionOutcome: Codable, Sendable, Equatable {
    package var sheetPages: Int?

    package init(sheetPages: Int? = nil) { self.sheetPages = sheetPages }

    /// What `report` (of a one-output conversion) says the service needs.
    package init(_ report: ConversionReport) {
        sheetPages = (report.outputs.first as? SpriteResult)?.pagePaths.count
    }
}

/// What runs a conversion once it has been admitted and planned: the library's `GifConverter` in the service
/// (`LibraryConverter`) or in a worker process (`ServeWorkers`); in tests, one whose duration the test controls
/// (one that blocks until it is cancelled, say), so that timeouts and shutdown are tested without depending on
/// how long a real conversion takes.
package protocol Converting: Sendable {
    /// Writes the job's output, all or none; on cancellation it stops and removes its temporaries before it throws.
    func convert(_ job: ConversionJob) async throws -> ConversionOutcome
}

/// The library's conversion, in this process.
package struct LibraryConverter: Converting {
    package init() {}

    package func convert(_ job: ConversionJob) async throws -> ConversionOutcome {
        let (request, settings, spool) = try job.plan()
        defer { if let spool { close(spool) } }
        let report = try await GifConverter(settings: settings).convert(.path(job.input), to: [request])
        return ConversionOutcome(report)
    }
}
