import GifxKit

/// What runs a conversion once it has been admitted and planned: the library's `GifConverter` in the service
/// (`LibraryConverter`); in tests, one whose duration the test controls (one that blocks until it is cancelled,
/// say), so that timeouts and shutdown are tested without depending on how long a real conversion takes.
package protocol Converting: Sendable {
    /// Writes `outputs` from `input` with `settings` (the grant's budget and threads), all or none; on cancellation
    /// it stops and removes its temporaries before it throws.
    func convert(_ input: GifInput, to outputs: [OutputRequest], settings: RunSettings) async throws -> ConversionReport
}

/// The library's conversion, in this process.
package struct LibraryConverter: Converting {
    package init() {}

    package func convert(_ input: GifInput, to outputs: [OutputRequest], settings: RunSettings) async throws -> ConversionReport {
        try await GifConverter(settings: settings).convert(input, to: outputs)
    }
}
