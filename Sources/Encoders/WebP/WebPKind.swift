import GifxPipeline
extension OutputKind {
    /// An animated WebP: lossless unless a quality is given, exact delays, loop count, alpha.
    package static let webp = OutputKind(
        name: "webp", displayName: "WebP",
        summary: "animated WebP: lossless unless a quality is given, exact delays, loop count and alpha",
        prefixNames: ["webp"], extensions: [".webp"], mediaType: "image/webp",
        settings: [.width, .height, .scale, .quality, .targetSize], stats: WebPStats.self,
        reader: OutputReader(name: "webp") { verifier, path, _ in try verifier.verifyWebP(path) }
    ) { build throws(OutputRuleError) in
        let own = build.own, defaults = build.defaults
        return .webp(target: build.target, options: WebPOptions(
            quality: own.quality ?? defaults.webp.quality, size: own.size ?? defaults.size,
            targetSize: own.targetSize ?? defaults.webp.targetSize))
    }
}

/// A WebP's settings before its own (`OutputDefaults.webp`; its size is `OutputDefaults.size`).
package struct WebPDefaults: Sendable {
    /// Its quality (`nil`: lossless) and size cap.
    package var quality: Float?
    package var targetSize: Int?

    package init(quality: Float? = nil, targetSize: Int? = nil) { self.quality = quality; self.targetSize = targetSize }
}

extension OutputRequest {
    /// An animated WebP (`WebPSink`).
    public static func webp(target: OutputTarget, options: WebPOptions) -> OutputRequest {
        OutputRequest(kind: OutputKind.webp.name, target: target) { try WebPSink(target: target, options: options, context: $0) }
    }
}

extension WebPResult: ReportedOutput {
    public var paths: [String] { [target] }

    package var stats: OutputStats {
        var stats = OutputStats(kind: OutputKind.webp.statsName, paths: paths)
        stats.frames = frames
        stats.width = width
        stats.height = height
        stats.figures = WebPStats(
            webpSettings: WebPSettings(lossless: lossless, quality: quality, loopCount: loopCount), targetSize: targetSize)
        return stats
    }
}

/// A WebP's own figures in `--stats`: its encoder settings, and with a size cap the encodes spent and the one kept.
package struct WebPStats: OutputKindStats {
    package var webpSettings: WebPSettings?
    package var targetSize: TargetSizeReport?

    /// At the top level: the size cap's figures, not the settings.
    package var topLevel: WebPStats { WebPStats(targetSize: targetSize) }
}

/// A WebP output's encoder settings in `--stats`.
package struct WebPSettings: Codable, Sendable {
    package var lossless: Bool
    package var quality: Float?
    package var loopCount: Int
}
