import ArgumentParser
import GifxKit
import GifxTimeline

extension SpriteJSONFormat: ExpressibleByArgument {}
extension SpritePacking: ExpressibleByArgument {}
extension PNGLevel: ExpressibleByArgument {}

/// The sprite sheet options `to-sprite` and `convert --sheet` share: description format, packing, pages,
/// cells, PNG compression.
struct SheetLayoutOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Description format: yy, texturepacker, texturepacker-array, phaser, aseprite or godot.",
            discussion: "yy: gifx.sprite/1 (contentsRect, seconds). texturepacker: JSON hash (PixiJS), one file "
                + "per page linked by related_multi_packs. texturepacker-array: the same with a frames list. "
                + "phaser: multiatlas textures[]. aseprite: json-hash with frameTags (one page). godot: a "
                + "SpriteFrames .tres. Durations: per-frame `duration` in ms (godot: relative to speed)."))
    var format: SpriteJSONFormat = .yy
    @Flag(help: "Crop each frame to its non-transparent bounds (offset and source size go in the description).")
    var trim = false
    @Option(help: "Packing: grid (equal cells, the default; the only one for yy) or maxrects.")
    var pack: SpritePacking = .grid
    @Flag(help: "Power-of-two page sizes.") var pot = false
    @Option(help: "PNG compression: fast, default or max.") var pngLevel: PNGLevel = .default
    @Option(help: "Cells per row (default: the most square sheet).") var columns: Int?
    @Option(help: "Largest sheet side in pixels; more frames go on further pages.") var maxSize = SpriteLayout.defaultMaxSize
    @Option(help: "Transparent pixels between cells.") var padding = 0
    @Option(help: "Repeat each cell's edge pixels outward this many pixels (against bleeding when sampled).")
    var extrude = 0
    @Flag(help: "Byte-identical frames share one cell.") var dedupe = false

    func validate() throws {
        if let columns, columns < 1 { throw ValidationError("--columns must be at least 1") }
        if maxSize < 1 || maxSize > 65535 { throw ValidationError("--max-size must be 1...65535") }
        if padding < 0 || padding > 4096 { throw ValidationError("--padding must be 0...4096") }
        if extrude < 0 || extrude > 4096 { throw ValidationError("--extrude must be 0...4096") }
        if format == .yy && (trim || pack == .maxrects) {
            throw ValidationError("--format yy needs equal cells: use --pack grid without --trim, or another --format")
        }
        if columns != nil && (trim || pack == .maxrects) {
            throw ValidationError("--columns applies to the untrimmed grid only")
        }
    }

    /// The description file's default extension: `tres` for godot, else `json`.
    var descriptionExtension: String { format == .godot ? "tres" : "json" }

    /// The sheet's options for `png` and `json`, with the run-wide settings of `common`.
    func spriteOptions(png: OutputTarget, json: OutputTarget, size: SizeRequest) -> SpriteOptions {
        var options = SpriteOptions(png: png, json: json)
        options.format = format
        options.columns = columns
        options.maxSize = maxSize
        options.size = size
        options.padding = padding
        options.extrude = extrude
        options.dedupe = dedupe
        options.trim = trim
        options.packing = pack
        options.powerOfTwo = pot
        options.pngLevel = pngLevel
        return options
    }
}
