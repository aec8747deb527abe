import GifxPipeline
extension OutputKind {
    /// An animated PNG: lossless, exact delays as fractions, the loop count; what Discord and LINE stickers are.
    package static let apng = OutputKind(
        name: "apng", displayName: "APNG",
        summary: "animated PNG: lossless, palette-packed where the frames allow, exact delays as fractions, loop count and alpha",
        prefixNames: ["apng"], extensions: [".apng"], mediaType: "image/apng", settings: [],
        refusals: [
            .width: OutputRefusal(because: "an APNG is written at the GIF's size"),
            .quality: OutputRefusal(because: "an APNG is lossless"),
        ],
        reader: OutputReader(name: "apng") { verifier, path, _ in try verifier.verifyAPNG(path) }
    ) { build throws(OutputRuleError) in .apng(target: build.target) }
}

extension OutputRequest {
    /// An animated PNG (`APNGSink`): lossless, exact delays, the loop count.
    public static func apng(target: OutputTarget) -> OutputRequest { apng(target: target, options: APNGOptions()) }

    /// An animated PNG with its encoder's options.
    package static func apng(target: OutputTarget, options: APNGOptions) -> OutputRequest {
        OutputRequest(kind: OutputKind.apng.name, target: target) { try APNGSink(target: target, options: options, context: $0) }
    }
}

extension APNGResult: ReportedOutput {
    package var paths: [String] { [target] }

    package var stats: OutputStats {
        var stats = OutputStats(kind: OutputKind.apng.statsName, paths: paths)
        stats.frames = frames
        stats.width = width
        stats.height = height
        return stats
    }
}
