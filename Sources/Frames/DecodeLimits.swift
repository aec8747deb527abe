/// Sizes a decoder refuses before allocating anything large (design.md, "Bad input").
public struct DecodeLimits: Hashable, Sendable {
    /// Largest accepted width or height of the canvas or of any frame, in pixels.
    public var maxDimension: Int
    /// Largest accepted decoded canvas (width * height * 4 bytes).
    public var maxCanvasBytes: Int
    /// Turns recoverable damage (truncated data, corrupt image data, trailing garbage) into errors.
    public var strict: Bool
    /// Which LZW decoder reads image data (gifx's own, or giflib as the oracle); both give the same canvases,
    /// warnings and errors. Carried with the limits because every decoding path already receives them.
    public var decoder: GifDecoderKind

    public init(
        maxDimension: Int = 16384, maxCanvasBytes: Int = 1 << 30, strict: Bool = false, decoder: GifDecoderKind = .gifx
    ) {
        self.maxDimension = maxDimension; self.maxCanvasBytes = maxCanvasBytes; self.strict = strict
        self.decoder = decoder
    }

    /// 16384×16384 pixels, 1 GiB per canvas, lenient.
    public static let `default` = DecodeLimits()

    /// Throws `.tooLarge` when a `what` of `width`×`height` is beyond these limits.
    func check(width: Int, height: Int, what: String, at offset: Int?) throws {
        if width > maxDimension || height > maxDimension {
            throw GifDecodeError(
                .tooLarge, at: offset,
                "\(what) \(width)×\(height) exceeds the \(maxDimension)×\(maxDimension) limit")
        }
        if width * height * 4 > maxCanvasBytes {
            throw GifDecodeError(
                .tooLarge, at: offset,
                "\(what) \(width)×\(height) needs \(width * height * 4) bytes decoded, over the \(maxCanvasBytes)-byte limit")
        }
    }
}
