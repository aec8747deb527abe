import GifxEncoders
import GifxFrames

extension GifConverter {
    /// The smallest memory budget under which `outputs` of `input` run (their leanest settings), planned by
    /// the same `MemoryPlanner` the conversion uses, from the GIF's structure alone: no pixel is decoded and
    /// no output file is created. `settings.threads` counts (each encoder's estimate grows with its threads).
    ///
    /// A service admits a request with this figure before converting it (`gifx serve`); the conversion then
    /// runs with a budget of at least this much. Throws the conversion's own errors for an input or a request
    /// that is refused before decoding (not a GIF, a damaged header, a size the encoder refuses).
    public func smallestMemoryBudget(_ input: GifInput, to outputs: [OutputRequest]) throws -> Int {
        if let problem = settings.problem { throw problem }
        var probe = settings
        // One byte is below any plan (the process's fixed cost alone is megabytes): the planner refuses it,
        // before any file is opened, naming the smallest budget that fits.
        probe.memoryBudget = 1
        do {
            _ = try InputSpool.withPath(input, scratchFolder: probe.resolvedScratchFolder) { path in try GifConverter(settings: probe).convert(path: path, to: outputs) }
        } catch let tooSmall as MemoryBudgetTooSmall {
            return tooSmall.smallestBudget
        }
        preconditionFailure("a conversion planned under a budget of 1 byte")
    }
}
