internal import CGif
import GifxTimeline

/// Reads a GIF's structure (canvas, loop count, per-image descriptors and GCEs) without decompressing any
/// image data, through a 64 KiB buffer. Fast on huge files: only block headers are touched.
/// Throws `GifDecodeError`: `.cannotOpen`, `.malformed`/`.truncated`/`.tooLarge`, `.io`.
/// A file that ends early keeps the images whose descriptors were read, with a warning (an error when
/// `limits.strict`); a file with no image at all is malformed.
func readGIFFileMetadata(path: String, limits: DecodeLimits) throws -> AnimationMetadata {
    let reader = try GifFileReader(path: path)
    try checkScreen(reader, limits: limits)

    var images = GifImageList()
    var warnings = WarningLog()  // one line per damaged extension, capped: a file can have millions
    var truncation: String?
    var loopCount: Int?
    var sawLoopExtension = false
    var pendingControl: GraphicControl?
    var isTruncated = false
    var refused: GifDecodeError?  // damage no setting keeps: ends the read with an error

    walk: while true {
        let recordOffset = reader.offset
        do {
            switch try reader.nextRecord() {
            case .image:
                let record = try reader.readImageDescriptor()
                try limits.check(
                    width: record.rect.width, height: record.rect.height, what: "frame \(images.count)",
                    at: recordOffset)
                let control = pendingControl
                pendingControl = nil
                images.append(
                    GifImageInfo(
                        descriptor: FrameDescriptor(
                            rawDelay: control?.delay,
                            rect: PixelRect(
                                x: record.rect.x, y: record.rect.y, width: record.rect.width,
                                height: record.rect.height),
                            disposal: control?.disposal ?? .none,
                            transparentIndex: control?.transparentIndex,
                            interlaced: record.interlaced),
                        localPaletteSize: record.localColors?.count,
                        byteOffset: recordOffset))
                if let (size, at) = record.refusedCodeSize {
                    refused = GifDecodeError(
                        .malformed, at: at,
                        "frame \(images.count - 1): LZW minimum code size \(size) is above 8, which GIF does not define "
                            + "and giflib cannot decode; gifx refuses the file")
                    break walk
                }
                if let damage = record.damage { throw damage }
                if !record.hasNoData { try reader.skipImageData() }
            case .extension:
                let (code, first) = try reader.readExtension()
                if code == Int(GRAPHICS_EXT_FUNC_CODE) {
                    if let first, first.count >= 4 {
                        pendingControl = GraphicControl(first)
                    } else {
                        warnings.append("graphic control extension at byte \(recordOffset) is too short; ignored")
                    }
                    if first != nil { try reader.skipExtensionBlocks() }
                } else if code == Int(APPLICATION_EXT_FUNC_CODE), let first, isLoopExtensionName(first) {
                    let count = try readLoopSubBlocks(reader)
                    if !sawLoopExtension, let count {
                        loopCount = count
                        sawLoopExtension = true
                    }
                } else if first != nil {
                    try reader.skipExtensionBlocks()
                }
            case .terminator:
                break walk
            }
        } catch let error as GifDecodeError {
            // Damage after at least one image: keep what was read, like browsers, unless strict.
            guard !images.isEmpty, !limits.strict, error.kind == .truncated || error.kind == .malformed else {
                throw error
            }
            isTruncated = true
            let kept = images.count == 1 ? "1 image" : "\(images.count) images"
            truncation = "\(error.description); keeping the \(kept) read before it"
            break walk
        }
    }
    if let refused { throw refused }
    guard !images.isEmpty else {
        throw GifDecodeError(.malformed, at: reader.offset, "the file contains no image")
    }
    return AnimationMetadata(
        canvas: CanvasSize(width: reader.screenWidth, height: reader.screenHeight),
        backgroundIndex: reader.backgroundIndex, globalPaletteSize: reader.globalColors?.count,
        loopCount: loopCount, images: images, warnings: warnings.lines + (truncation.map { [$0] } ?? []),
        isTruncated: isTruncated)
}

/// Refuses empty or oversized canvases before anything is allocated for them.
func checkScreen(_ reader: GifFileReader, limits: DecodeLimits) throws {
    let (width, height) = (reader.screenWidth, reader.screenHeight)
    if width <= 0 || height <= 0 {
        throw GifDecodeError(.malformed, at: 6, "canvas is \(width)×\(height): a GIF needs at least one pixel")
    }
    try limits.check(width: width, height: height, what: "canvas", at: 6)
}

/// The fields of a Graphic Control Extension that matter for playback.
struct GraphicControl {
    var delay: Int
    var disposal: Disposal
    var transparentIndex: Int?

    /// Parses the 4-byte GCE data block (packed fields, delay low/high, transparent index).
    init(_ block: [UInt8]) {
        let packed = Int(block[0])
        delay = Int(block[1]) | Int(block[2]) << 8
        disposal = Disposal(rawField: (packed >> 2) & 7)
        transparentIndex = packed & 1 != 0 ? Int(block[3]) : nil
    }
}

private func isLoopExtensionName(_ block: [UInt8]) -> Bool {
    block.count == 11 && (block.elementsEqual("NETSCAPE2.0".utf8) || block.elementsEqual("ANIMEXTS1.0".utf8))
}

/// Reads a loop extension's sub-blocks; the loop count is sub-block id 1, a little-endian 16-bit value.
private func readLoopSubBlocks(_ reader: GifFileReader) throws -> Int? {
    var count: Int?
    while let block = try reader.nextExtensionBlock() {
        if count == nil, block.count >= 3, block[0] == 1 {
            count = Int(block[1]) | Int(block[2]) << 8
        }
    }
    return count
}
