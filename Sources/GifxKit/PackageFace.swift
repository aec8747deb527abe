// GifxKit's `package` face: the names the service (GifxServer) and this package's tests reach the conversion by,
// beyond the public ones in GifxKit.swift. `package`, so no program that depends on the product sees them (they are
// not curated in GifxKit.docc); `GifxKit` is the service's one way into the pipeline, the kinds and the readers
// (docs/modules.md). The schedule's types (`Timeline`, `TimelineEdit`, `SourceFormat`, ...) are the public product
// GifxTimeline's, imported as they are: a `package` alias of a public type could not stand in GifxKit's public API.
import GifxEncoders
import GifxFrames
import GifxPipeline

// MARK: What a request names

/// An output kind of the registry: names, media type, settings, rules, whether it streams.
package typealias OutputKind = GifxEncoders.OutputKind
/// One output's own settings (`width=480`, `crf=28`), read by the one parser of `-o` prefixes and queries.
package typealias OutputSettings = GifxEncoders.OutputSettings
/// A request a kind's rules refuse, worded by whoever asked.
package typealias OutputRuleError = GifxEncoders.OutputRuleError
/// An input format of the registry: its probe (`InputFormat.sniff`), its names.
package typealias InputFormat = GifxFrames.InputFormat
/// An edit that does not fit the input (a cut after its end, a crop outside its canvas).
package typealias EditError = GifxPipeline.EditError

// MARK: What a plan and a conversion give

/// What converting an input will need, before it runs: its schedule, its smallest budget at a thread count.
package typealias ConversionDemand = GifxPipeline.ConversionDemand
/// A video plan that cannot be met, with the remedy in the asker's names.
package typealias VideoPlanError = GifxEncoders.VideoPlanError
/// Budgets in words (`MemoryPlanner.mebibytes`).
package typealias MemoryPlanner = GifxPipeline.MemoryPlanner
/// The process's memory budget: given, from the cgroup, or from free memory.
package typealias ProcessMemoryBudget = GifxPipeline.ProcessMemoryBudget
