// GifxKit's `package` face: the names the command line (Sources/gifx), the service (GifxServer) and this package's
// tests reach the conversion by, beyond the public ones in GifxKit.swift. `package`, so no program that depends on
// the product sees them (they are not curated in GifxKit.docc); `GifxKit` is the CLI's and the service's one way
// into the pipeline, the kinds and the readers (docs/modules.md), and `make facade-check` fails on an import of a
// module below it there. The schedule's types (`Timeline`, `TimelineEdit`, `SourceFormat`, ...) are the public
// product GifxTimeline's, imported as they are: a `package` alias of a public type could not stand in GifxKit's
// public API.
import GifxEncoders
import GifxFrames
import GifxPipeline

// MARK: What a request names

/// An output kind of the registry: names, media type, settings, rules, whether it streams.
package typealias OutputKind = GifxEncoders.OutputKind
/// One output's own settings (`width=480`, `crf=28`), read by the one parser of `-o` prefixes and queries.
package typealias OutputSettings = GifxEncoders.OutputSettings
/// The name of one of those settings, with its help and schema (`gifx formats --json`).
package typealias OutputSettingName = GifxEncoders.OutputSettingName
/// A request a kind's rules refuse, worded by whoever asked.
package typealias OutputRuleError = GifxEncoders.OutputRuleError
/// What a kind builds its request from: the target, the output's own settings, the asker's defaults.
package typealias OutputBuild = GifxEncoders.OutputBuild
/// The settings an output has unless its own say otherwise: the command's options, or the service's defaults.
package typealias OutputDefaults = GifxEncoders.OutputDefaults
/// An animated WebP's defaults (quality, size cap).
package typealias WebPDefaults = GifxEncoders.WebPDefaults
/// A poster's defaults (frame, JPEG quality).
package typealias PosterDefaults = GifxEncoders.PosterDefaults
/// A kind's files, named from one base path (batch's outputs).
package typealias OutputFiles = GifxEncoders.OutputFiles
/// A setting's text read once for the command line and the query: a frame rate, a byte count.
package typealias SettingText = GifxEncoders.SettingText
/// An input format of the registry: its probe (`InputFormat.sniff`), its names.
package typealias InputFormat = GifxFrames.InputFormat
/// An edit that does not fit the input (a cut after its end, a crop outside its canvas).
package typealias EditError = GifxPipeline.EditError
/// Lists in words: "a, b or c".
package typealias EnglishList = GifxFrames.EnglishList

// MARK: What a plan and a conversion give

/// What converting an input will need, before it runs: its schedule, its smallest budget at a thread count.
package typealias ConversionDemand = GifxPipeline.ConversionDemand
/// A video plan that cannot be met, with the remedy as a fact (`Remedy`), worded by the asker.
package typealias VideoPlanError = GifxEncoders.VideoPlanError
/// A size cap (`target-size`) that no encode met.
package typealias TargetSizeUnreachable = GifxEncoders.TargetSizeUnreachable
/// A sheet that cannot be laid out (a frame larger than a page, too many pages).
package typealias SpriteLayoutError = GifxEncoders.SpriteLayoutError
/// Budgets in words (`MemoryPlanner.mebibytes`).
package typealias MemoryPlanner = GifxPipeline.MemoryPlanner
/// The memory plan a conversion ran under (`--stats`' `memory`).
package typealias MemoryPlan = GifxPipeline.MemoryPlan
/// The process's memory budget: given, from the cgroup, or from free memory.
package typealias ProcessMemoryBudget = GifxPipeline.ProcessMemoryBudget
/// The frames command's result: the canvases written.
package typealias CanvasesResult = GifxEncoders.CanvasesResult
/// The H.264 and HEVC levels a codec knows, with their limits.
package typealias LevelLimits = GifxEncoders.LevelLimits
/// The H.264 level a size and rate need (the embed's `<source type>`).
package typealias H264Level = GifxEncoders.H264Level

// MARK: What `--stats` and the schedule's JSON say

/// One output's figures in `--stats`.
package typealias OutputStats = GifxEncoders.OutputStats
/// A kind's own figures in `--stats`.
package typealias OutputKindStats = GifxEncoders.OutputKindStats
/// How the asker words the facts a kind's figures carry (a rate's reason).
package typealias StatsWording = GifxEncoders.StatsWording
/// Why a video has its rate: the plan's reason or a level's cap, as facts.
package typealias VideoRateChoice = GifxEncoders.VideoRateChoice
/// The edit's member of the schedule's JSON.
package typealias TimelineEditJSON = GifxEncoders.TimelineEditJSON
/// Text written as it is made, to a file or standard output.
package typealias TextOutput = GifxEncoders.TextOutput

// MARK: Reading outputs back

/// How `verify` reads a kind back, and its report's lines.
package typealias OutputReader = GifxEncoders.OutputReader
/// What a verification report shows, line by line.
package typealias VerificationLines = GifxEncoders.VerificationLines

// MARK: The process

/// Standard output as a target: `-`, and whether it is a terminal.
package typealias StandardOutput = GifxPipeline.StandardOutput
/// The process's temporary files, removed on a signal or at exit.
package typealias TemporaryFiles = GifxPipeline.TemporaryFiles
/// A file written whole or not at all (hidden temporary, rename).
package typealias AtomicOutput = GifxPipeline.AtomicOutput
/// Developer switches read from the environment (docs/environment.md).
package typealias Diagnostics = GifxPipeline.Diagnostics
/// How repeated pictures are timed (`GIFX_REPEATS`).
package typealias RepeatTimestamps = GifxPipeline.RepeatTimestamps
/// The libav libraries opened, and their versions (`--version`).
package typealias LibavVersions = GifxEncoders.LibavVersions

/// The input's schedule and size, read from its structure alone (no pixel is decoded).
package func readAnimationMetadata(path: String, limits: DecodeLimits = .default) throws -> GifxFrames.AnimationMetadata {
    try GifxFrames.readAnimationMetadata(path: path, limits: limits)
}