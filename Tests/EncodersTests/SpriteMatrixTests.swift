import GifxEncoders
import Foundation
import GifFixtures
import Testing

/// A small character moving on a transparent 16x12 canvas, written with EGif: full-canvas frames whose
/// index 0 is transparent, each disposed to background (2), so every composite is exactly that frame's
/// opaque pixels. Frames 3 and 5 repeat frames 0 and 1 byte for byte; frame 6 is fully transparent.
enum MovingCharacter {
    static let width = 16, height = 12
    /// (kind, x, y) per frame; kind nil = nothing drawn.
    static let placements: [(kind: Int, x: Int, y: Int)?] = [
        (0, 1, 1), (1, 5, 2), (2, 9, 6), (0, 1, 1), (3, 12, 7), (1, 5, 2), nil,
    ]
    static let delays = [4, 8, 12, 4, 20, 8, 6]

    /// The 3x4 character of `kind` as palette indices (0 transparent, including one hole inside).
    static func character(_ kind: Int) -> [[UInt8]] {
        let a = UInt8(1 + kind), b = UInt8(5 + kind % 3), c: UInt8 = 7
        return [[a, b, a], [b, a, b], [a, a, a], [c, 0, c]]
    }

    static func indices(_ frame: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height)
        if let p = placements[frame] {
            for (dy, row) in character(p.kind).enumerated() {
                for (dx, index) in row.enumerated() { pixels[(p.y + dy) * width + p.x + dx] = index }
            }
        }
        return pixels
    }

    static var gif: FixtureGIF {
        FixtureGIF(width: width, height: height, frames: (0..<placements.count).map { k in
            FixtureFrame(width: width, height: height, indices: indices(k), delay: delays[k], disposal: 2, transparentIndex: 0)
        })
    }

    /// The expected composite of `frame`: RGBA, transparent as (0,0,0,0); computed from the fixture's own
    /// indices and palette, not by gifx.
    static func composite(_ frame: Int) -> [UInt8] {
        indices(frame).flatMap { $0 == 0 ? clearPixel : rgba(Int($0)) }
    }
}

/// Every format × {grid, maxrects} × {trim, none} × {dedupe, none} × {one page, several pages (with
/// padding 1 and extrude 1)}: every frame cut from the sheet with the description's own fields equals the
/// composite (transparent pixels compared by alpha only), durations match, and extruded borders repeat
/// the edge pixels exactly.
@Suite struct SpriteMatrixTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var format: SpriteJSONFormat
        var packing: SpritePacking
        var trim: Bool
        var dedupe: Bool
        var multipage: Bool
        var testDescription: String {
            "\(format.rawValue) \(packing.rawValue)\(trim ? " trim" : "")\(dedupe ? " dedupe" : "")\(multipage ? " multipage" : "")"
        }
    }

    static let cases: [Case] = SpriteJSONFormat.allCases.flatMap { format in
        SpritePacking.allCases.flatMap { packing in
            [false, true].flatMap { trim in
                [false, true].flatMap { dedupe in
                    [false, true].compactMap { multipage in
                        // yy needs equal cells: grid, untrimmed (the CLI refuses the rest).
                        if format == .yy && (trim || packing == .maxrects) { return nil }
                        return Case(format: format, packing: packing, trim: trim, dedupe: dedupe, multipage: multipage)
                    }
                }
            }
        }
    }

    @Test(arguments: cases) func framesCutFromTheSheetEqualTheComposites(_ c: Case) throws {
        let folder = try spriteFolder("matrix-\(c.testDescription)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.gif")
        try MovingCharacter.gif.write(to: input)
        let jsonName = c.format == .godot ? "Y.tres" : "Y.json"
        var options = SpriteOptions(
            png: .file(folder.appendingPathComponent("Y.png").path), json: .file(folder.appendingPathComponent(jsonName).path))
        options.format = c.format
        options.packing = c.packing
        options.trim = c.trim
        options.dedupe = c.dedupe
        if c.multipage {
            options.padding = 1
            options.extrude = 1
            options.maxSize = c.trim ? 8 : 20  // one slot per page
        }
        if c.format == .aseprite && c.multipage {
            // Aseprite's sheet data describes one image: refused before anything is written.
            #expect(throws: SpriteLayoutError.self) { try writeSpriteSheet(inputPath: input.path, options: options) }
            #expect(!FileManager.default.fileExists(atPath: options.jsonPath))
            return
        }
        let result = try writeSpriteSheet(inputPath: input.path, options: options)
        #expect((result.pagePaths.count > 1) == c.multipage)
        let frames = try readCutFrames(c.format, jsonPath: options.jsonPath)
        try #require(frames.count == MovingCharacter.delays.count)
        var sheets: [String: Sheet] = [:]
        for (k, f) in frames.enumerated() {
            #expect(f.sourceW == MovingCharacter.width && f.sourceH == MovingCharacter.height)
            #expect(abs(f.durationMs - Double(MovingCharacter.delays[k] * 10)) < 1e-6, "frame \(k) duration")
            if sheets[f.image] == nil { sheets[f.image] = try Sheet(f.image) }
            let sheet = try #require(sheets[f.image])
            #expect(f.x >= 0 && f.y >= 0 && f.x + f.w <= sheet.width && f.y + f.h <= sheet.height)
            // Reassemble the untrimmed frame from the cut and its offset.
            var frame = [UInt8](repeating: 0, count: f.sourceW * f.sourceH * 4)
            let cut = sheet.crop(x: f.x, y: f.y, width: f.w, height: f.h)
            for y in 0..<f.h {
                for x in 0..<f.w {
                    let to = ((f.offsetY + y) * f.sourceW + f.offsetX + x) * 4, from = (y * f.w + x) * 4
                    frame[to..<to + 4] = cut[from..<from + 4]
                }
            }
            let expected = MovingCharacter.composite(k)
            let mismatches = (0..<(f.sourceW * f.sourceH)).filter { i in
                let a = Array(frame[4 * i..<4 * i + 4]), b = Array(expected[4 * i..<4 * i + 4])
                return b[3] == 0 ? a[3] != 0 : a != b
            }
            #expect(mismatches.isEmpty, "frame \(k): \(mismatches.count) pixels differ, first at \(mismatches.first ?? -1)")
            if c.trim {
                let p = MovingCharacter.placements[k]
                #expect(f.w == (p == nil ? 1 : 3) && f.h == (p == nil ? 1 : 4), "frame \(k) trimmed size")
                if let p { #expect(f.offsetX == p.x && f.offsetY == p.y) }
            }
            if c.multipage { try checkExtrusion(sheet, f) }
        }
        if c.dedupe {
            #expect(frames[3] == CutFrame(
                image: frames[0].image, x: frames[0].x, y: frames[0].y, w: frames[0].w, h: frames[0].h,
                offsetX: frames[0].offsetX, offsetY: frames[0].offsetY, sourceW: frames[0].sourceW,
                sourceH: frames[0].sourceH, durationMs: frames[3].durationMs))
            #expect(result.cellsSaved == 2)
        } else {
            #expect(frames[3].x != frames[0].x || frames[3].y != frames[0].y || frames[3].image != frames[0].image)
        }
    }

    /// One pixel around the cut repeats the nearest edge pixel exactly (corners: the corner pixel).
    private func checkExtrusion(_ sheet: Sheet, _ f: CutFrame) throws {
        for y in (f.y - 1)...(f.y + f.h) {
            for x in (f.x - 1)...(f.x + f.w) where x < f.x || y < f.y || x >= f.x + f.w || y >= f.y + f.h {
                let inner = sheet.pixel(min(max(x, f.x), f.x + f.w - 1), min(max(y, f.y), f.y + f.h - 1))
                #expect(sheet.pixel(x, y) == inner, "extruded (\(x),\(y)) of \(f)")
            }
        }
    }
}
