internal import CGif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One image descriptor as giflib read it.
struct ImageDescriptorRecord {
    var rect: PixelRectValue
    var interlaced: Bool
    /// The local colour table, when the image has one.
    var localColors: ColorTable?
    /// Nothing to skip or decode: a zero-sized image with no data, or an image cut short (see `damage`).
    var hasNoData = false
    /// Why the image's palette or data could not be read although its descriptor fields were.
    var damage: GifDecodeError?
    /// The LZW minimum code size and its byte offset when giflib refused it (above 8: giflib has no
    /// decoder for it, so neither has gifx; see docs/conformance.md).
    var refusedCodeSize: (size: Int, offset: Int)?
}

/// A rect as plain integers (kept apart from Timeline's `PixelRect` so this file stays giflib-only).
struct PixelRectValue: Hashable, Sendable {
    var x: Int, y: Int, width: Int, height: Int
}

/// The kinds of record `DGifGetRecordType` reports between the screen descriptor and the trailer.
enum GifRecord {
    case image, `extension`, terminator
}

/// Owns one giflib decoder (`GifFileType*`) reading a file through a `FileByteSource`, record by record.
/// Never slurps: images are either skipped as compressed sub-blocks or decoded row by row.
/// Every failure becomes a `GifDecodeError` with giflib's text and the byte offset reached.
final class GifFileReader {
    private let gif: UnsafeMutablePointer<GifFileType>
    private let source: FileByteSource

    /// Canvas width and height from the logical screen descriptor.
    let screenWidth: Int
    let screenHeight: Int
    let backgroundIndex: Int
    let globalColors: ColorTable?

    /// Offset of the next unread byte in the file.
    var offset: Int { source.offset }

    init(path: String) throws {
        let source = try FileByteSource(path: path)
        var status: Int32 = 0
        let opened = DGifOpen(Unmanaged.passUnretained(source).toOpaque(), gifxReadCallback, &status)
        guard let gif = opened else {
            throw Self.makeError(code: status, source: source, context: "reading the header")
        }
        self.gif = gif
        self.source = source
        screenWidth = Int(gif.pointee.SWidth)
        screenHeight = Int(gif.pointee.SHeight)
        backgroundIndex = Int(gif.pointee.SBackGroundColor)
        globalColors = gif.pointee.SColorMap.map(ColorTable.init)
    }

    deinit {
        var status: Int32 = 0
        DGifCloseFile(gif, &status)
    }

    /// The next record's kind.
    func nextRecord() throws -> GifRecord {
        var type = UNDEFINED_RECORD_TYPE
        gif.pointee.Error = 0
        try check(DGifGetRecordType(gif, &type), "reading a record type")
        switch type {
        case IMAGE_DESC_RECORD_TYPE: return .image
        case EXTENSION_RECORD_TYPE: return .extension
        case TERMINATE_RECORD_TYPE: return .terminator
        default: throw GifDecodeError(.malformed, at: offset - 1, "unknown record type")
        }
    }

    /// Reads an image descriptor (after `nextRecord()` returned `.image`, which left `offset` one byte past
    /// the separator).
    func readImageDescriptor() throws -> ImageDescriptorRecord {
        let separatorOffset = offset - 1
        // giflib leaves `Error` alone when the code size byte cannot be read: cleared first, so the error
        // says what happened here, not what an earlier image (decoded by giflib or not) left behind.
        gif.pointee.Error = 0
        let status = DGifGetImageDesc(gif)
        // giflib 5.2.1 appends a SavedImage (with a copy of the local palette) per image even when
        // nothing is slurped. Free it now; GifFreeSavedImages leaves ImageCount alone, and without
        // the reset the next DGifGetImageDesc writes past the freshly allocated one-element array.
        GifFreeSavedImages(gif)
        gif.pointee.ImageCount = 0
        let image = gif.pointee.Image
        var record = ImageDescriptorRecord(
            rect: PixelRectValue(
                x: Int(image.Left), y: Int(image.Top), width: Int(image.Width), height: Int(image.Height)),
            interlaced: image.Interlace,
            localColors: status == GIF_OK ? image.ColorMap.map(ColorTable.init) : nil)
        if status == GIF_ERROR && (image.Width == 0 || image.Height == 0) && !source.reachedEnd {
            // A zero-sized image followed directly by the next record: giflib read that record's first
            // byte as the LZW code size and refused it. Browsers show such an image as nothing; step back.
            let paletteBytes = image.ColorMap.map { 3 * Int($0.pointee.ColorCount) } ?? 0
            try seek(to: separatorOffset + 10 + paletteBytes)
            record.hasNoData = true
            return record
        }
        if status == GIF_ERROR && offset >= separatorOffset + 10 {
            // The descriptor's fields were read but its palette or data is cut short or invalid: the
            // image still counts (its descriptor was read); the caller decides whether that is fatal.
            record.hasNoData = true
            record.damage = Self.makeError(code: gif.pointee.Error, source: source, context: "reading an image")
            if gif.pointee.Error == D_GIF_ERR_READ_FAILED, !source.reachedEnd, source.readErrno == 0 {
                // giflib read the code size byte, found it over 8 and stopped right after it.
                let at = offset - 1
                var size: UInt8 = 0
                if source.seek(to: at), source.copyBytes(into: &size, count: 1) == 1, size > 8 {
                    record.refusedCodeSize = (Int(size), at)
                }
            }
            return record
        }
        try check(status, "reading an image descriptor")
        return record
    }

    /// Skips the current image's compressed data without running LZW.
    func skipImageData() throws {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        try check(DGifGetCode(gif, &codeSize, &block), "skipping image data")
        while block != nil {
            try check(DGifGetCodeNext(gif, &block), "skipping image data")
        }
    }

    /// Reads the current image's LZW data for gifx's own decoder (after `readImageDescriptor` succeeded,
    /// which left the input just past the minimum code size byte): the code size, then every data
    /// sub-block up to the terminator, joined into `blocks`. A file that ends or fails inside the chain is
    /// not an error here: `blocks` records it, and the decoder reports it only if it needs those bytes
    /// (or, having every pixel, when giflib would have skipped to the terminator).
    func readImageData(into blocks: ImageDataBlocks) throws {
        let sizeOffset = offset - 1
        var size: UInt8 = 0
        guard source.seek(to: sizeOffset), source.copyBytes(into: &size, count: 1) == 1 else {
            throw Self.makeError(code: D_GIF_ERR_READ_FAILED, source: source, context: "decoding image data")
        }
        blocks.reset(codeSize: Int(size))
        while true {
            var length: UInt8 = 0
            guard source.copyBytes(into: &length, count: 1) == 1 else {
                blocks.end(failure: Self.makeError(code: D_GIF_ERR_READ_FAILED, source: source, context: "decoding image data"))
                break
            }
            if length == 0 {
                blocks.end(terminatorEndingAt: offset)
                break
            }
            let destination = blocks.reserve(Int(length))
            guard source.copyBytes(into: destination, count: Int(length)) == Int(length) else {
                // giflib reads a sub-block whole or not at all: a block cut short gives no data.
                blocks.end(failure: Self.makeError(code: D_GIF_ERR_READ_FAILED, source: source, context: "decoding image data"))
                break
            }
            blocks.appendBlock(length: Int(length), endingAt: offset)
        }
        blocks.finish()
    }

    /// Decodes the next `count` pixels of the current image into `line`.
    func readLine(into line: UnsafeMutablePointer<UInt8>, count: Int) throws {
        gif.pointee.Error = 0
        try check(DGifGetLine(gif, line, Int32(count)), "decoding image data")
    }

    /// Reads an extension's function code and first data block (after `nextRecord()` returned `.extension`).
    /// Blocks come back without their length byte.
    func readExtension() throws -> (code: Int, firstBlock: [UInt8]?) {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        try check(DGifGetExtension(gif, &code, &block), "reading an extension")
        return (Int(code), block.map(Self.blockBytes))
    }

    /// The extension's next data block, `nil` after the last one.
    func nextExtensionBlock() throws -> [UInt8]? {
        var block: UnsafeMutablePointer<GifByteType>?
        try check(DGifGetExtensionNext(gif, &block), "reading an extension")
        return block.map(Self.blockBytes)
    }

    /// Skips the extension's remaining data blocks.
    func skipExtensionBlocks() throws {
        var block: UnsafeMutablePointer<GifByteType>?
        repeat {
            try check(DGifGetExtensionNext(gif, &block), "reading an extension")
        } while block != nil
    }

    /// Repositions the input at `offset` (a record boundary found earlier).
    func seek(to offset: Int) throws {
        guard source.seek(to: offset) else {
            throw GifDecodeError(.io, at: offset, "cannot seek: \(String(cString: strerror(source.readErrno)))")
        }
    }

    private static func blockBytes(_ block: UnsafeMutablePointer<GifByteType>) -> [UInt8] {
        let length = Int(block[0])
        return Array(UnsafeBufferPointer(start: block + 1, count: length))
    }

    private func check(_ status: Int32, _ context: String) throws {
        if status == GIF_ERROR { throw Self.makeError(code: gif.pointee.Error, source: source, context: context) }
    }

    private static func makeError(code: Int32, source: FileByteSource, context: String) -> GifDecodeError {
        // A call that failed without saying why (giflib: a short read of the code size byte) failed to read.
        let code = code == 0 ? D_GIF_ERR_READ_FAILED : code
        let text = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        if code == D_GIF_ERR_READ_FAILED {
            if source.readErrno != 0 {
                return GifDecodeError(.io, at: source.offset, String(cString: strerror(source.readErrno)))
            }
            if source.reachedEnd {
                return GifDecodeError(.truncated, at: source.offset, "data ends while \(context)")
            }
            // giflib reuses "read failed" for an LZW code size over 8 bits.
            return GifDecodeError(.malformed, at: source.offset, "invalid LZW code size or data (while \(context))")
        }
        return GifDecodeError(.malformed, at: source.offset, "\(text) (while \(context))")
    }
}

/// giflib's input callback: pulls bytes from the `FileByteSource` in `UserData`.
private func gifxReadCallback(
    _ gif: UnsafeMutablePointer<GifFileType>?, _ bytes: UnsafeMutablePointer<GifByteType>?, _ count: Int32
) -> Int32 {
    guard let gif, let bytes, count > 0, let user = gif.pointee.UserData else { return 0 }
    let source = Unmanaged<FileByteSource>.fromOpaque(user).takeUnretainedValue()
    return Int32(source.copyBytes(into: bytes, count: Int(count)))
}
