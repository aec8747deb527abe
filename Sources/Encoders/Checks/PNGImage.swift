internal import CPng

/// A PNG read whole with libpng, as 8-bit RGBA (any colour type expanded): a sprite sheet page or a poster.
package final class PNGImage {
    package let width: Int
    package let height: Int
    package let pixels: UnsafeMutablePointer<UInt8>

    package init(path: String) throws {
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

/// A PNG page read a band of rows at a time (libpng, row by row): a sprite sheet's cells are compared as their rows
/// arrive, so only `capacity` rows are held, not the page. Rows above the band are read again from the start
/// (a packed sheet may place a later frame higher up; gifx's grids never do).
package final class PNGBand {
    package let path: String
    package private(set) var width = 0
    package private(set) var height = 0
    private var reader: OpaquePointer?
    private var buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// Rows `top ..< top + count` of the page are in `buffer`.
    private var top = 0
    private var count = 0

    package init(path: String, capacity: Int) throws {
        self.path = path
        self.capacity = max(1, capacity)
        buffer = .allocate(capacity: 1)
        try reopen()
    }

    deinit {
        gifx_png_reader_close(reader)
        buffer.deallocate()
    }

    private func reopen() throws {
        gifx_png_reader_close(reader)
        var w: UInt32 = 0, h: UInt32 = 0
        var error = [CChar](repeating: 0, count: 256)
        guard let opened = gifx_png_reader_open(path, &w, &h, &error) else { throw Self.failure(path, error) }
        reader = opened
        if Int(w) != width {
            buffer.deallocate()
            buffer = .allocate(capacity: Int(w) * 4 * capacity)
        }
        width = Int(w)
        height = Int(h)
        top = 0
        count = 0
    }

    /// Rows `y ..< y + rows` (`rows` ≤ the capacity, inside the page): a pointer to row `y`, `width` pixels a row.
    package func rows(_ y: Int, _ rows: Int) throws -> UnsafePointer<UInt8> {
        precondition(rows <= capacity && y >= 0 && y + rows <= height)
        if y < top { try reopen() }
        if y >= top + count {  // nothing kept is needed: skip to y
            try skip(to: y)
        } else if y > top {  // keep the rows from y on, at the start of the buffer
            let kept = top + count - y
            buffer.update(from: buffer + (y - top) * width * 4, count: kept * width * 4)
            top = y
            count = kept
        }
        if y + rows > top + count {
            let more = y + rows - (top + count)
            try read(into: buffer + count * width * 4, more)
            count += more
        }
        return UnsafePointer(buffer + (y - top) * width * 4)
    }

    private func skip(to y: Int) throws {
        var next = top + count
        while next < y {
            let n = min(capacity, y - next)
            try read(into: buffer, n)
            next += n
        }
        top = y
        count = 0
    }

    private func read(into rows: UnsafeMutablePointer<UInt8>, _ n: Int) throws {
        var error = [CChar](repeating: 0, count: 256)
        if gifx_png_reader_rows(reader, rows, UInt32(n), width * 4, &error) != 0 { throw Self.failure(path, error) }
    }

    private static func failure(_ path: String, _ error: [CChar]) -> VerifyReadError {
        VerifyReadError("\(path): " + String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
