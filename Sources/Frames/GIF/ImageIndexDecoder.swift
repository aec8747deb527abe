import GifxTimeline

/// One image's LZW data decoded to colour indices, not yet composited: what a decode-ahead worker hands
/// the compositor. It records exactly what the sequential decoder would have drawn, so compositing it
/// later gives the same canvas: whether the descriptor was read, which rows decoded before any damage.
struct DecodedImage {
    /// The image's index in the file.
    var index: Int
    /// The descriptor as read, `nil` when it could not be read at all (the sequential decoder then
    /// composites the frame with no palette).
    var record: ImageDescriptorRecord?
    /// Rows decoded, counted in decode order (interlace passes included), before the data ended or broke.
    var rowsDecoded = 0
    /// The image's rows that land on the canvas, only the columns on the canvas, `area.width` bytes apart;
    /// row `r` of the image is at `(r - rowOffset) * area.width`.
    var pixels: UnsafeMutablePointer<UInt8>
    /// The on-canvas part of the image's rect.
    var area = PixelRect(x: 0, y: 0, width: 0, height: 0)
    /// Image row stored first (the first row on the canvas).
    var rowOffset = 0
    /// Why decoding stopped early.
    var error: (any Error)?

    /// The image rows in decode order: the four interlace passes, or top to bottom.
    static func rowOrder(interlaced: Bool) -> [(start: Int, step: Int)] {
        interlaced ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
    }
}

/// Decodes images' LZW data to index buffers (gifx's own decoder or giflib's, as `DecodeLimits.decoder`
/// says) with its own file reader, seeking to each image's byte offset from the metadata pass; one per
/// decode-ahead thread (readers and decoders are not shared).
final class ImageIndexDecoder {
    private let reader: GifFileReader
    private let metadata: AnimationMetadata
    /// One row as giflib writes it (the image's full width, which may overhang the canvas).
    private let line: UnsafeMutablePointer<UInt8>
    /// gifx's own LZW decoder and its data buffer; `nil` for giflib.
    private let lzw: (decoder: LZWDecoder, data: ImageDataBlocks)?

    /// Decodes with `reader`, which must have been opened on the file `metadata` was read from.
    init(reader: GifFileReader, metadata: AnimationMetadata, decoder: GifDecoderKind) {
        self.reader = reader
        self.metadata = metadata
        lzw = decoder == .gifx ? (LZWDecoder(), ImageDataBlocks()) : nil
        // Lazily: a mapped array would hold 8 bytes per frame (40 MB for 5 million frames) per decoder thread.
        let widest = metadata.images.descriptors.lazy.map(\.rect.width).max() ?? 1
        line = .allocate(capacity: Swift.max(1, widest))
    }

    /// Opens `path` with a reader of its own (a worker thread's).
    convenience init(path: String, metadata: AnimationMetadata, decoder: GifDecoderKind) throws {
        let reader = try GifFileReader(path: path)
        guard reader.screenWidth == metadata.canvas.width, reader.screenHeight == metadata.canvas.height else {
            throw GifDecodeError(.malformed, at: 6, "the file changed since its metadata was read")
        }
        self.init(reader: reader, metadata: metadata, decoder: decoder)
    }

    deinit { line.deallocate() }

    /// Decodes image `index` into `pixels` (at least canvas width × height bytes). Never throws: what
    /// went wrong is in the result's `error`, for the compositor to judge in frame order.
    func decode(_ index: Int, into pixels: UnsafeMutablePointer<UInt8>) -> DecodedImage {
        let info = metadata.images[index]
        var image = DecodedImage(index: index, pixels: pixels)
        do {
            try reader.seek(to: info.byteOffset)
            guard case .image = try reader.nextRecord() else {
                throw GifDecodeError(.malformed, at: info.byteOffset, "expected an image descriptor")
            }
            let record = try reader.readImageDescriptor()
            image.record = record
            if let damage = record.damage { throw damage }
            if !record.hasNoData { try decodeRows(info.descriptor, into: &image) }
        } catch {
            image.error = error
        }
        return image
    }

    private func decodeRows(_ descriptor: FrameDescriptor, into image: inout DecodedImage) throws {
        let rect = descriptor.rect
        let canvas = metadata.canvas
        let area = clip(rect, to: canvas)
        guard rect.width > 0, rect.height > 0, area.width > 0, area.height > 0 else { return }
        image.area = area
        image.rowOffset = area.y - rect.y
        let firstColumn = area.x - rect.x
        // An image wholly on the canvas decodes straight into the buffer; an overhanging one through `line`.
        let direct = area.width == rect.width
        if let lzw {
            try reader.readImageData(into: lzw.data)
            let rowOffset = image.rowOffset, pixels = image.pixels
            var rows = 0
            defer { image.rowsDecoded = rows }
            try lzw.decoder.decode(lzw.data, width: rect.width, height: rect.height, interlaced: descriptor.interlaced) {
                imageRow, indices in
                let stored = imageRow - rowOffset
                if stored >= 0 && stored < area.height {
                    (pixels + stored * area.width).update(from: indices + firstColumn, count: area.width)
                }
                rows += 1
            }
            return
        }
        for pass in DecodedImage.rowOrder(interlaced: descriptor.interlaced) {
            var row = pass.start
            while row < rect.height {
                let stored = row - image.rowOffset
                if direct && stored >= 0 && stored < area.height {
                    try reader.readLine(into: image.pixels + stored * area.width, count: rect.width)
                } else {
                    try reader.readLine(into: line, count: rect.width)
                    if stored >= 0 && stored < area.height {
                        (image.pixels + stored * area.width).update(from: line + firstColumn, count: area.width)
                    }
                }
                image.rowsDecoded += 1
                row += pass.step
            }
        }
    }
}

/// The part of `rect` on a canvas of `size` (zero-sized when wholly outside), as `Compositor.clip`.
func clip(_ rect: PixelRect, to size: CanvasSize) -> PixelRect {
    let x0 = Swift.max(0, Swift.min(size.width, rect.x)), y0 = Swift.max(0, Swift.min(size.height, rect.y))
    let x1 = Swift.max(x0, Swift.min(size.width, rect.x + rect.width))
    let y1 = Swift.max(y0, Swift.min(size.height, rect.y + rect.height))
    return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
}
