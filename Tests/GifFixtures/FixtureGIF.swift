import CGif
import Foundation

/// An RGB palette entry for fixture GIFs.
public struct RGB: Hashable, Sendable {
    public var r: UInt8, g: UInt8, b: UInt8
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { self.r = r; self.g = g; self.b = b }
}

/// One image of a fixture GIF: every field maps to a field in the file, so each test states its own bytes.
public struct FixtureFrame: Sendable {
    public var left: Int, top: Int, width: Int, height: Int
    /// Colour indices, row-major, `width * height` of them (top row first, whatever `interlaced` says).
    public var indices: [UInt8]
    public var localPalette: [RGB]?
    /// Raw GCE delay in centiseconds; `nil` writes no Graphic Control Extension at all.
    public var delay: Int?
    /// Raw GCE disposal value (0...7).
    public var disposal: Int
    public var transparentIndex: Int?
    public var interlaced: Bool

    public init(
        left: Int = 0, top: Int = 0, width: Int, height: Int, indices: [UInt8],
        localPalette: [RGB]? = nil, delay: Int? = 10, disposal: Int = 0,
        transparentIndex: Int? = nil, interlaced: Bool = false
    ) {
        self.left = left; self.top = top; self.width = width; self.height = height
        self.indices = indices; self.localPalette = localPalette; self.delay = delay
        self.disposal = disposal; self.transparentIndex = transparentIndex; self.interlaced = interlaced
    }

    /// A frame of one colour index over its whole rect.
    public static func solid(
        _ index: UInt8, left: Int = 0, top: Int = 0, width: Int, height: Int, delay: Int? = 10,
        disposal: Int = 0, transparentIndex: Int? = nil
    ) -> FixtureFrame {
        FixtureFrame(
            left: left, top: top, width: width, height: height,
            indices: [UInt8](repeating: index, count: width * height),
            delay: delay, disposal: disposal, transparentIndex: transparentIndex)
    }
}

/// Errors from giflib's encoder while building a fixture.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
}

/// A GIF described field by field and written with giflib's encoder (EGif*).
public struct FixtureGIF: Sendable {
    public var width: Int
    public var height: Int
    public var globalPalette: [RGB]?
    public var backgroundIndex: Int
    /// Raw NETSCAPE2.0 loop counts, one application extension each, in file order (empty: none).
    public var loopCounts: [Int]
    /// Write the loop extensions as ANIMEXTS1.0 instead of NETSCAPE2.0.
    public var loopExtensionName: String
    public var frames: [FixtureFrame]

    public init(
        width: Int, height: Int, globalPalette: [RGB]? = FixtureGIF.primaries, backgroundIndex: Int = 0,
        loopCounts: [Int] = [0], loopExtensionName: String = "NETSCAPE2.0", frames: [FixtureFrame]
    ) {
        self.width = width; self.height = height; self.globalPalette = globalPalette
        self.backgroundIndex = backgroundIndex; self.loopCounts = loopCounts
        self.loopExtensionName = loopExtensionName; self.frames = frames
    }

    /// Eight well-separated colours: black, red, green, blue, yellow, magenta, cyan, white.
    public static let primaries: [RGB] = [
        RGB(0, 0, 0), RGB(255, 0, 0), RGB(0, 255, 0), RGB(0, 0, 255),
        RGB(255, 255, 0), RGB(255, 0, 255), RGB(0, 255, 255), RGB(255, 255, 255),
    ]

    /// Full-canvas frames of solid colours (indices into `primaries`) with the given raw delays.
    public static func solidFrames(
        width: Int, height: Int, colorIndices: [UInt8], delays: [Int?], loopCounts: [Int] = [0]
    ) -> FixtureGIF {
        precondition(colorIndices.count == delays.count)
        let frames = zip(colorIndices, delays).map { FixtureFrame.solid($0, width: width, height: height, delay: $1) }
        return FixtureGIF(width: width, height: height, loopCounts: loopCounts, frames: frames)
    }

    /// The encoded file.
    public func encode() throws -> Data {
        let sink = ByteSink()
        var error: Int32 = 0
        let unmanaged = Unmanaged.passRetained(sink)
        defer { unmanaged.release() }
        guard let gif = EGifOpen(unmanaged.toOpaque(), { file, bytes, count in
            guard let file, let bytes, count > 0 else { return 0 }
            let sink = Unmanaged<ByteSink>.fromOpaque(file.pointee.UserData).takeUnretainedValue()
            sink.data.append(bytes, count: Int(count))
            return count
        }, &error) else { throw FixtureError(description: "EGifOpen: \(String(cString: GifErrorString(error)))") }
        var closed = false
        defer { if !closed { EGifCloseFile(gif, nil) } }
        func check(_ status: Int32, _ what: String) throws {
            if status == GIF_ERROR {
                throw FixtureError(description: "\(what): \(String(cString: GifErrorString(gif.pointee.Error)))")
            }
        }
        EGifSetGifVersion(gif, true)
        let global = try globalPalette.map(Self.makeMap)
        defer { if let global { GifFreeMapObject(global) } }
        try check(EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, Int32(backgroundIndex), global), "screen")
        for count in loopCounts {
            try check(EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE), "loop leader")
            var name = Array(loopExtensionName.utf8)
            try check(EGifPutExtensionBlock(gif, Int32(name.count), &name), "loop name")
            var sub: [UInt8] = [1, UInt8(count & 0xff), UInt8((count >> 8) & 0xff)]
            try check(EGifPutExtensionBlock(gif, 3, &sub), "loop count")
            try check(EGifPutExtensionTrailer(gif), "loop trailer")
        }
        for frame in frames {
            precondition(frame.indices.count == frame.width * frame.height, "indices must fill the rect")
            if let delay = frame.delay {
                var gcb = GraphicsControlBlock(
                    DisposalMode: Int32(frame.disposal), UserInputFlag: false, DelayTime: Int32(delay),
                    TransparentColor: Int32(frame.transparentIndex ?? Int(gifx_no_transparent_color())))
                var ext = [UInt8](repeating: 0, count: 4)
                let length = EGifGCBToExtension(&gcb, &ext)
                try check(EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), &ext), "GCE")
            }
            let local = try frame.localPalette.map(Self.makeMap)
            defer { if let local { GifFreeMapObject(local) } }
            try check(
                EGifPutImageDesc(
                    gif, Int32(frame.left), Int32(frame.top), Int32(frame.width), Int32(frame.height),
                    frame.interlaced, local), "image")
            var row = [UInt8](repeating: 0, count: frame.width)
            for y in Self.rowOrder(height: frame.height, interlaced: frame.interlaced) {
                row.withUnsafeMutableBufferPointer { dst in
                    frame.indices.withUnsafeBufferPointer { src in
                        for x in 0..<frame.width { dst[x] = src[y * frame.width + x] }
                    }
                }
                try check(EGifPutLine(gif, &row, Int32(frame.width)), "line")
            }
        }
        closed = true
        if EGifCloseFile(gif, &error) == GIF_ERROR {
            throw FixtureError(description: "close: \(String(cString: GifErrorString(error)))")
        }
        return sink.data
    }

    /// Writes the encoded file to `url`.
    public func write(to url: URL) throws {
        try encode().write(to: url)
    }

    /// Rows in the order they are stored: top to bottom, or the four interlace passes.
    public static func rowOrder(height: Int, interlaced: Bool) -> [Int] {
        guard interlaced else { return Array(0..<height) }
        return [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in Array(stride(from: start, to: height, by: step)) }
    }

    private static func makeMap(_ palette: [RGB]) throws -> UnsafeMutablePointer<ColorMapObject> {
        var size = 2
        while size < palette.count { size *= 2 }
        guard size <= 256 else { throw FixtureError(description: "palette over 256 colours") }
        var colors = palette.map { GifColorType(Red: $0.r, Green: $0.g, Blue: $0.b) }
        colors += Array(repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size - palette.count)
        guard let map = GifMakeMapObject(Int32(size), &colors) else { throw FixtureError(description: "GifMakeMapObject") }
        return map
    }
}

private final class ByteSink {
    var data = Data()
}

extension FixtureGIF {
    /// A GIF whose one frame (GCE + image) is repeated `count` times, built by copying its bytes:
    /// encoding a million frames one by one would take longer than the test.
    public static func repeatingFrame(width: Int, height: Int, frame: FixtureFrame, count: Int) throws -> Data {
        let single = try FixtureGIF(width: width, height: height, loopCounts: [], frames: [frame]).encode()
        guard let start = single.firstRange(of: Data([0x21, 0xF9, 0x04]))?.lowerBound else {
            throw FixtureError(description: "the frame has no Graphic Control Extension to start from")
        }
        let header = single[..<start]
        let body = single[start..<(single.endIndex - 1)]  // up to the trailer
        var data = Data(capacity: header.count + body.count * count + 1)
        data.append(header)
        for _ in 0..<count { data.append(body) }
        data.append(0x3B)
        return data
    }
}
