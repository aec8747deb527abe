import CPng
import Foundation

/// Reads a PNG as 8-bit RGBA with libpng's simplified `png_image` API (tests only: whole image at once).
/// Shared by FramesTests and EncodersTests as the independent oracle for written PNGs.
public func readPNGAsRGBA(_ path: String) throws -> (width: Int, height: Int, pixels: [UInt8]) {
    var image = png_image()
    image.version = UInt32(PNG_IMAGE_VERSION)
    guard png_image_begin_read_from_file(&image, path) != 0 else {
        throw FixtureReadError(message: "\(path): \(pngMessage(&image))")
    }
    defer { png_image_free(&image) }
    image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)  // PNG_FORMAT_RGBA (a macro Swift cannot import)
    let (width, height) = (Int(image.width), Int(image.height))
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    let ok = pixels.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
    guard ok != 0 else { throw FixtureReadError(message: "\(path): \(pngMessage(&image))") }
    return (width, height, pixels)
}

public struct FixtureReadError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

private func pngMessage(_ image: inout png_image) -> String {
    withUnsafeBytes(of: &image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}
