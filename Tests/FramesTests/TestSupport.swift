import Foundation
import GifxFrames
import GifFixtures

/// Writes `gif` to a fresh temporary file and returns its path (in `TestScratch.folder`, removed at exit).
func temporaryGIF(_ gif: FixtureGIF, name: String = #function) throws -> String {
    try temporaryFile(gif.encode(), name: name)
}

/// Writes `data` to a fresh temporary file and returns its path.
func temporaryFile(_ data: Data, name: String = #function) throws -> String {
    let url = TestScratch.path("frames", name: name, suffix: ".gif")
    try data.write(to: url)
    return url.path
}

/// Decodes every canvas of the GIF at `path` synchronously (no producer thread).
func decodeAllCanvases(_ path: String, limits: DecodeLimits = .default) throws -> (canvases: [[UInt8]], warnings: [String]) {
    let metadata = try readAnimationMetadata(path: path, limits: limits)
    let decoder = try GifFrameDecoder(path: path, metadata: metadata, limits: limits)
    var canvases: [[UInt8]] = []
    var buffer = [UInt8](repeating: 0, count: metadata.canvasBytes)
    while try decoder.advance() {
        buffer.withUnsafeMutableBytes { decoder.copyCanvas(to: $0.baseAddress!) }
        canvases.append(buffer)
    }
    return (canvases, metadata.warnings + decoder.warnings)
}

/// Pulls every canvas out of a `FrameStream`.
func collectCanvases(_ stream: FrameStream) throws -> [[UInt8]] {
    var canvases: [[UInt8]] = []
    while let canvas = try stream.nextCanvas({ Array($0.pixels) }) { canvases.append(canvas) }
    return canvases
}

/// RGBA pixels, for stating expected canvases by hand.
enum Pixel {
    static let clear: [UInt8] = [0, 0, 0, 0]
    static let black: [UInt8] = [0, 0, 0, 255]
    static let red: [UInt8] = [255, 0, 0, 255]
    static let green: [UInt8] = [0, 255, 0, 255]
    static let blue: [UInt8] = [0, 0, 255, 255]
    static let yellow: [UInt8] = [255, 255, 0, 255]
    static let magenta: [UInt8] = [255, 0, 255, 255]
    static let cyan: [UInt8] = [0, 255, 255, 255]
    static let white: [UInt8] = [255, 255, 255, 255]
}

/// A canvas written as rows of pixels.
func canvas(_ pixels: [UInt8]...) -> [UInt8] { pixels.flatMap { $0 } }
