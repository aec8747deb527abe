internal import CPng

/// A PNG read whole with libpng, as 8-bit RGBA (any colour type expanded): a sprite sheet page or a poster.
final class PNGImage {
    let width: Int
    let height: Int
    let pixels: UnsafeMutablePointer<UInt8>

    init(path: String) throws {
        var w: UInt32 = 0, h: UInt32 = 0
        var buffer: UnsafeMutablePointer<UInt8>?
        var error = [CChar](repeating: 0, count: 256)
        let status = gifx_png_read_rgba(path, &w, &h, &buffer, &error)
        guard status == 0, let buffer else {
            let text = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw VerifyReadError("\(path): \(text)")
        }
        width = Int(w)
        height = Int(h)
        pixels = buffer
    }

    deinit { gifx_png_free(pixels) }
}
