import GifxPipeline
// The posters: one composited frame as a PNG or a JPEG, one descriptor each, written by `PosterSink`.

extension OutputKind {
    /// One frame as an RGBA PNG, transparency kept.
    package static let pngPoster = OutputKind(
        name: "png", statsName: "poster", displayName: "PNG", summary: "a poster: one frame as a PNG, transparency kept",
        prefixNames: ["png"], extensions: [".png"], mediaType: "image/png", settings: [],
        refusals: [.width: atTheGIFsSize, .quality: OutputRefusal(because: "a PNG poster is lossless")], isServed: false,
        reader: .poster(png: true)
    ) { build throws(OutputRuleError) in .poster(target: build.target, frame: build.defaults.poster.frame) }

    /// One frame as a JPEG over the background.
    package static let jpegPoster = OutputKind(
        name: "jpg", statsName: "jpeg-poster", displayName: "JPEG",
        summary: "a poster: one frame as a JPEG over the background colour",
        prefixNames: ["jpg", "jpeg"], extensions: [".jpg", ".jpeg"], mediaType: "image/jpeg", settings: [.quality],
        refusals: [.width: atTheGIFsSize],
        reader: .poster(png: false)
    ) { build throws(OutputRuleError) in
        let defaults = build.defaults.poster
        if let quality = build.own.quality, quality < 1 { throw .invalid("quality must be 1...100 for a JPEG") }
        return .jpegPoster(target: build.target, frame: defaults.frame, options: JPEGOptions(
            quality: build.own.quality.map { Int($0.rounded()) } ?? defaults.jpeg.quality, background: defaults.jpeg.background))
    }

    private static let atTheGIFsSize = OutputRefusal(because: "a poster is written at the GIF's size")
}

/// A poster's settings (`OutputDefaults.poster`): which frame it shows, and a JPEG's quality and background.
package struct PosterDefaults: Sendable {
    package var frame: PosterFrame
    package var jpeg: JPEGOptions

    package init(frame: PosterFrame = .index(0), jpeg: JPEGOptions = JPEGOptions()) { self.frame = frame; self.jpeg = jpeg }
}

extension OutputReader {
    /// A poster, one frame shown at no time: a PNG read with libpng and checked exactly (a `.png` that is an animation,
    /// an APNG written with `-o apng:x.png` or by another tool, is read as an APNG, every frame at its time), a JPEG
    /// read with libavcodec within the PSNR bound.
    fileprivate static func poster(png: Bool) -> OutputReader {
        OutputReader(
            name: "poster", unreadableName: png ? "pngPoster" : "jpegPoster",
            report: VerificationLines(framesAndTiming: false),
            byContent: { png && Verifier.isAnimatedPNG($0) ? OutputKind.apng.reader : nil }
        ) { try $0.verifyPoster($1, expected: $2, png: png) }
    }
}

extension OutputRequest {
    /// One composited frame as an RGBA PNG (`PosterSink`).
    public static func poster(target: OutputTarget, frame: PosterFrame) -> OutputRequest {
        OutputRequest(kind: OutputKind.pngPoster.name, target: target) { try PosterSink(target: target, frame: frame, context: $0) }
    }

    /// One composited frame as a JPEG over a background colour (`PosterSink`).
    public static func jpegPoster(target: OutputTarget, frame: PosterFrame, options: JPEGOptions) -> OutputRequest {
        OutputRequest(kind: OutputKind.jpegPoster.name, target: target) {
            try PosterSink(target: target, frame: frame, format: .jpeg(options), context: $0)
        }
    }
}

extension PosterResult: ReportedOutput {
    public var paths: [String] { [target] }

    package var stats: OutputStats {
        let kind: OutputKind = if case .jpeg = format { .jpegPoster } else { .pngPoster }
        var stats = OutputStats(kind: kind.statsName, paths: paths)
        stats.frames = 1
        stats.width = width
        stats.height = height
        return stats
    }
}
