import GifxFrames
import GifxTimeline

/// What a conversion needs before it runs, from steps 1 and 2 of `Conversion.run` alone (one read of the
/// input's structure, the schedule every output follows): nothing is decoded, no output is opened or created,
/// and no conversion runs. Its smallest budget at a thread count is the figure `MemoryBudgetTooSmall` names when
/// a run under less is refused, from the same demands (`ConversionMemory`).
///
/// Each output's plan is made again for each thread count asked (an encoder's and the frame ring's demands grow
/// with threads); a sprite sheet's plan reads the input's palettes, so the input's path must stay readable while
/// this value is used.
package struct ConversionDemand: @unchecked Sendable {
    // @unchecked: immutable after init; its context holds no edited-canvas spool (`editedCanvases` is nil here),
    // the only reference it could carry.
    private let context: ConversionContext
    private let requests: [OutputRequest]

    init(context: ConversionContext, requests: [OutputRequest]) {
        self.context = context
        self.requests = requests
    }

    /// The schedule the outputs follow (the edited one with `RunSettings.edit`).
    package var timeline: Timeline { context.timeline }

    /// The smallest memory budget under which the outputs run with `threads` threads (`nil`: the settings'
    /// own), every consumer at its leanest settings, rounded up to a whole MiB. Throws what making an output's
    /// plan throws (a size the encoder refuses, a target that exists).
    package func smallestBudget(threads: Int? = nil) throws -> Int {
        var settings = context.settings
        if let threads { settings.threads = threads }
        let context = ConversionContext(
            inputPath: context.inputPath, metadata: context.metadata, timeline: context.timeline, settings: settings,
            edit: context.edit)
        let sinks = try requests.map { try VerifyingSink.wrap(try $0.makeSink(context), context: context) }
        return ConversionMemory.smallestBudget(sinks, metadata: context.metadata, settings: settings)
    }
}
