import GifxChecks
import GifxPipeline
extension OutputKind {
    /// A sprite sheet: PNG page(s) and the JSON (or Godot `.tres`) that describes them. The command line writes it
    /// with an option of its own, not `-o` (no `prefixNames`); the service serves its (first) page.
    package static let sheet = OutputKind(
        name: "sheet", displayName: "sprite sheet",
        summary: "a sprite sheet: PNG page(s) and the JSON that describes them (TexturePacker, Phaser, Aseprite, Godot, yy)",
        prefixNames: [], extensions: [".json", ".tres"], mediaType: "image/png",
        storedExtension: "png", settings: [.width, .height, .scale],
        refusals: [.quality: OutputRefusal(because: "a sprite sheet is lossless")], stats: SheetStats.self,
        reader: .sheetDescription,
        files: OutputFiles(main: ".png", description: ".json", pages: true, batchInfix: ".sheet"), binaryFormat: "PNG"
    ) { build throws(OutputRuleError) in
        let defaults = build.defaults
        return .spriteSheet(
            defaults.sheet.options(build.target, build.description ?? build.target, build.own.size ?? defaults.size))
    }
}

/// A sprite sheet's settings before its own (`OutputDefaults.sheet`; its size is `OutputDefaults.size`).
package struct SheetDefaults: Sendable {
    /// Its options for its PNG and description, at a size.
    package var options: @Sendable (_ png: OutputTarget, _ description: OutputTarget, _ size: SizeRequest) -> SpriteOptions

    /// A sheet at the size asked, every other option the library's default.
    package init() {
        options = {
            var options = SpriteOptions(png: $0, json: $1)
            options.size = $2
            return options
        }
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
        var stats = OutputStats(kind: OutputKind.sheet.statsName, paths: paths)
        stats.frames = cells
        stats.width = pageSizes.first?.width
        stats.height = pageSizes.first?.height
        stats.figures = SheetStats(
            cells: cells, cellsSaved: cellsSaved, pages: pagePaths.count,
            pageSizes: pageSizes.map { "\($0.width)x\($0.height)" }, cellSize: "\(cellSize.width)x\(cellSize.height)",
            columns: columns, indexed: indexed, pixelFormat: pixelFormat, rowBufferBytes: rowBufferBytes)
        return stats
    }
}

/// A sprite sheet's own figures in `--stats`: its cells (`frames` too), frames that reuse an earlier cell, its pages
/// and their sizes, the cell size, the grid's columns, whether the pages are indexed-colour and their PNG colour type
/// (indexed, rgb or rgba), and the bytes of the rows buffered before a row of cells is deflated.
package struct SheetStats: OutputKindStats {
    package var cells: Int?
    package var cellsSaved: Int?
    package var pages: Int?
    package var pageSizes: [String]?
    package var cellSize: String?
    package var columns: Int?
    package var indexed: Bool?
    package var pixelFormat: String?
    package var rowBufferBytes: Int?
}
