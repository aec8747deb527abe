internal import CPng
import Foundation
import GifxFrames
import GifxPipeline

/// How hard zlib works on the sheet (time against bytes).
public enum PNGLevel: String, CaseIterable, Sendable {
    /// zlib level 1, no row filter: the quickest; files 1.3-2.1× the default's on the bench GIFs.
    case fast
    /// zlib level 7 (ImageMagick's own default, so the sheet is never larger than montage's at equal
    /// pixels); indexed rows unfiltered, RGB/RGBA rows with libpng's adaptive filter choice.
    case `default`
    /// zlib level 9: 0.5-5 % smaller than `default`, 1.5-4× the zlib time.
    case max
}

/// The PNG colour type of a sheet, chosen from its pixels (`ColourCensus`, or the GIF's palettes).
package enum SheetPixelFormat {
    /// One byte per pixel: ≤ 256 distinct RGBA values (alpha in tRNS).
    case indexed(SheetPalette)
    /// Three bytes per pixel: every frame pixel is opaque. `key` (an opaque colour no frame uses) is
    /// written as tRNS and stands for the sheet's transparent gaps (padding, unused cells); `nil` when
    /// the sheet has none.
    case rgb(key: UInt32?)
    /// Four bytes per pixel.
    case rgba

    /// Bytes per pixel in the writers' buffers: RGB sheets are buffered as RGBA and narrowed row by row.
    var bufferBytesPerPixel: Int {
        if case .indexed = self { return 1 }
        return 4
    }

    /// "indexed", "rgb" or "rgba" (for the caller's statistics).
    package var name: String {
        switch self {
        case .indexed: return "indexed"
        case .rgb: return "rgb"
        case .rgba: return "rgba"
        }
    }

    /// The smallest faithful type: indexed when the census's colours (plus transparent, if the sheet has
    /// gaps) are at most 256; RGB when every frame pixel is opaque (with a tRNS key for the gaps); RGBA.
    package static func choose(census: ColourCensus, hasGaps: Bool) -> SheetPixelFormat {
        if let palette = SheetPalette(census: census, needsTransparent: hasGaps) { return .indexed(palette) }
        if census.allOpaque {
            if !hasGaps { return .rgb(key: nil) }
            if let key = census.unusedRGB() { return .rgb(key: key) }
        }
        return .rgba
    }

    /// Row filter and zlib settings for this colour type at `level`. Indexed rows are never filtered
    /// (prediction across palette indices only scatters them); RGB/RGBA rows use libpng's adaptive
    /// per-row choice except at `fast`. Measured on the benchmark GIFs: see docs/sprites.md.
    package func settings(_ level: PNGLevel) -> PNGSettings {
        let adaptive = Int32(PNG_FILTER_NONE | PNG_FILTER_SUB | PNG_FILTER_UP | PNG_FILTER_AVG | PNG_FILTER_PAETH)
        let none = Int32(PNG_FILTER_NONE)
        let filters: Int32
        if case .indexed = self { filters = none } else { filters = adaptive }
        switch level {
        case .fast: return .fast
        case .default: return PNGSettings(level: 7, filters: filters, strategy: 0)
        case .max: return PNGSettings(level: 9, filters: filters, strategy: 0)
        }
    }
}

/// One PNG page being written row by row in a `SheetPixelFormat` (rows arrive as the writers buffer
/// them: index bytes, or RGBA that an RGB page narrows to three bytes, transparent pixels becoming the key).
final class PNGPageEncoder {
    private let writer: OpaquePointer
    private let path: String
    private let width: Int
    private let format: SheetPixelFormat
    private let narrowRow: UnsafeMutablePointer<UInt8>?
    private let blank: UnsafeMutablePointer<UInt8>
    private var finished = false

    init(
        fileDescriptor: Int32, path: String, width: Int, height: Int, format: SheetPixelFormat, settings: PNGSettings
    ) throws {
        guard let writer = gifx_png_writer_create(fileDescriptor, UInt32(width), UInt32(height), settings.level) else {
            throw OutputError(path: path, reason: "out of memory", failure: .internalError)
        }
        self.writer = writer
        self.path = path
        self.width = width
        self.format = format
        if case .rgb = format {
            narrowRow = .allocate(capacity: max(1, width * 3))
        } else {
            narrowRow = nil
        }
        blank = .allocate(capacity: max(1, width * 4))
        blank.initialize(repeating: 0, count: max(1, width * 4))
        try check(gifx_png_writer_set_filters(writer, settings.filters, settings.strategy))
        if settings.blockDeflate {
            try check(gifx_png_writer_set_threads(writer, Int32(settings.deflateThreads)))
        }
        switch format {
        case .indexed(let palette):
            let rgba = palette.rgbaBytes
            try check(gifx_png_writer_set_palette(writer, rgba, Int32(rgba.count / 4)))
        case .rgb(let key):
            let k = key ?? 0
            try check(gifx_png_writer_set_rgb(
                writer, key == nil ? 0 : 1, UInt8(k & 0xFF), UInt8((k >> 8) & 0xFF), UInt8((k >> 16) & 0xFF)))
        case .rgba: break
        }
        try check(gifx_png_writer_begin(writer))
    }

    deinit {
        gifx_png_writer_destroy(writer)
        narrowRow?.deallocate()
        blank.deallocate()
    }

    /// Writes `count` rows of the buffer format, `stride` bytes apart.
    func writeRows(_ rows: UnsafeRawPointer, count: Int, stride: Int) throws {
        guard let narrowRow, case .rgb(let key) = format else {
            try check(gifx_png_writer_write_rows(
                writer, rows.assumingMemoryBound(to: UInt8.self), UInt32(count), stride))
            return
        }
        let k = key ?? 0
        let keyBytes = (UInt8(k & 0xFF), UInt8((k >> 8) & 0xFF), UInt8((k >> 16) & 0xFF))
        for y in 0..<count {
            let source = (rows + y * stride).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let p = source + 4 * x, q = narrowRow + 3 * x
                if p[3] == 0 {
                    q[0] = keyBytes.0; q[1] = keyBytes.1; q[2] = keyBytes.2
                } else {
                    q[0] = p[0]; q[1] = p[1]; q[2] = p[2]
                }
            }
            try check(gifx_png_writer_write_rows(writer, narrowRow, 1, 0))
        }
    }

    /// Writes `count` fully transparent rows.
    func writeBlankRows(_ count: Int) throws {
        for _ in 0..<count { try writeRows(blank, count: 1, stride: 0) }
    }

    func finish() throws {
        guard !finished else { return }
        finished = true
        try check(gifx_png_writer_finish(writer))
    }

    private func check(_ status: Int32) throws {
        guard status != 0 else { return }
        if status == -2 { throw OutputError.writing(path, errno: gifx_png_writer_errno(writer)) }
        throw OutputError(
            path: path, reason: "PNG encoder: \(String(cString: gifx_png_writer_error(writer)))",
            failure: .internalError)
    }
}
