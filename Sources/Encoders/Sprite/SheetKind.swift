import GifxChecks
import GifxPipeline
extension OutputKind {
    /// A sprite sheet: PNG page(s) and the JSON (or Godot `.tres`) that describes them. The command line writes it
    /// with `--sheet`, not `-o`; the service serves its (first) page.
    package static let sheet = OutputKind(
        name: "sheet", displayName: "sprite sheet",
        summary: "a sprite sheet: PNG page(s) and the JSON that describes them (TexturePacker, Phaser, Aseprite, Godot, yy)",
        prefixNames: [], extensions: [".json", ".tres"], commandLineLabel: "--sheet", mediaType: "image/png",
        storedExtension: "png", settings: [.width, .height, .scale],
        refusals: [.quality: OutputRefusal(because: "a sprite sheet is lossless")], reader: .sheetDescription,
        files: OutputFiles(main: ".png", description: ".json", pages: true, batchInfix: ".sheet"), binaryFormat: "PNG"
    ) { build throws(OutputRuleError) in
        let defaults = build.defaults
        return .spriteSheet(defaults.sheet(build.target, build.description ?? build.target, build.own.size ?? defaults.size))
    }
}

extension OutputReader {
    /// A sheet's description, read with the pages it names; a page given alongside it is checked as that page.
    package static let sheetDescription = OutputReader(
        name: "sheet", partName: "sheet page", report: VerificationLines(duration: false),
        parts: OutputParts(
            named: { path in
                var pages: [String] = []
                for cut in (try? SheetDescription.read(path: path).cuts) ?? [] where !pages.contains(cut.page) {
                    pages.append(cut.page)
                }
                return pages
            },
            verify: { verifier, path, page, reportedAs in
                try verifier.verifySheet(path, onlyPage: page, reportedAs: reportedAs)
            })
    ) { verifier, path, _ in try verifier.verifySheet(path) }
}

extension OutputRequest {
    /// A sprite sheet: PNG page(s) and JSON (`SpriteSheetSink`). Only the sheet's own fields of the options
    /// are read; the run-wide ones (policy, limits, budget, overwrite) are the conversion's.
    public static func spriteSheet(_ options: SpriteOptions) -> OutputRequest {
        OutputRequest(kind: OutputKind.sheet.name, target: options.png) { try SpriteSheetSink(options: options, context: $0) }
    }
}

extension SpriteResult: ReportedOutput {
    public var paths: [String] { pagePaths + (documentPaths.isEmpty ? [jsonPath] : documentPaths) }

    package var stats: OutputStats {
        var stats = OutputStats(kind: "sheet", paths: paths)
        stats.frames = cells
        stats.width = pageSizes.first?.width
        stats.height = pageSizes.first?.height
        stats.cells = cells
        stats.cellsSaved = cellsSaved
        stats.pages = pagePaths.count
        stats.pageSizes = pageSizes.map { "\($0.width)x\($0.height)" }
        stats.cellSize = "\(cellSize.width)x\(cellSize.height)"
        stats.columns = columns
        stats.indexed = indexed
        stats.pixelFormat = pixelFormat
        stats.rowBufferBytes = rowBufferBytes
        return stats
    }
}
