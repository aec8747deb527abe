import GifxTimeline

/// Decodes a GIF image by image and composites each onto the screen: with gifx's own LZW decoder (the
/// default; each row composited as soon as it is complete) or giflib's `DGifGetLine` (`limits.decoder`),
/// never `DGifSlurp`. Holds one image's indices (one row with giflib), the screen, and (for
/// restore-previous) one saved screen.
/// Yields exactly `metadata.images.count` canvases: canvas i is the screen while image i is displayed.
/// Damaged image data keeps the rows decoded so far and adds a warning (an error when `limits.strict`).
package final class GifFrameDecoder {
    package let metadata: AnimationMetadata
    private let limits: DecodeLimits
    private let reader: GifFileReader
    private let compositor: Compositor
    private let globalColors: ColorTable?
    private let line: UnsafeMutablePointer<UInt8>
    /// gifx's own LZW decoder and its data buffer; `nil` when `limits.decoder` is giflib.
    private let lzw: (decoder: LZWDecoder, data: ImageDataBlocks)?
    /// Index of the next image to decode.
    package private(set) var nextIndex = 0
    /// Damage found while decoding pixels, one line each (at most `WarningLog.limit`, then a summary line).
    package var warnings: [String] { warningLog.lines }
    /// Changes exactly when `warnings` does (cheap to poll per frame).
    var warningTotal: Int { warningLog.total }
    private var warningLog = WarningLog()

    /// Opens `path` for pixel decoding; `metadata` must come from `readAnimationMetadata` on the same file.
    package init(path: String, metadata: AnimationMetadata, limits: DecodeLimits = .default) throws {
        let reader = try GifFileReader(path: path)
        try checkScreen(reader, limits: limits)
        guard reader.screenWidth == metadata.canvas.width, reader.screenHeight == metadata.canvas.height else {
            throw GifDecodeError(.malformed, at: 6, "the file changed since its metadata was read")
        }
        self.metadata = metadata
        self.limits = limits
        self.reader = reader
        self.globalColors = reader.globalColors
        self.compositor = Compositor(width: metadata.canvas.width, height: metadata.canvas.height)
        let widest = metadata.images.descriptors.lazy.map(\.rect.width).max() ?? 1
        line = .allocate(capacity: Swift.max(1, widest))
        lzw = limits.decoder == .gifx ? (LZWDecoder(), ImageDataBlocks()) : nil
    }

    deinit { line.deallocate() }

    /// Decodes and composites the next image; returns `false` when every image has been delivered.
    /// Afterwards `copyCanvas(to:)` gives the screen while that image is displayed.
    package func advance() throws -> Bool {
        guard nextIndex < metadata.images.count else { return false }
        let index = nextIndex
        nextIndex += 1
        let info = metadata.images[index]
        let descriptor = info.descriptor
        var began = false
        do {
            try reader.seek(to: info.byteOffset)
            guard case .image = try reader.nextRecord() else {
                throw GifDecodeError(.malformed, at: info.byteOffset, "expected an image descriptor")
            }
            let record = try reader.readImageDescriptor()
            beginFrame(descriptor, palette: record.localColors ?? globalColors, transparentIndex: descriptor.transparentIndex)
            began = true
            if let damage = record.damage { throw damage }
            if !record.hasNoData { try decodeRows(descriptor) }
        } catch let error as GifDecodeError {
            try keepRowsDecoded(before: error, frame: index, began: began)
        }
        try checkIndices(frame: index)
        return true
    }

    /// Starts the frame; `palette` `nil` with `transparentIndex` `nil` when its descriptor could not be read.
    private func beginFrame(_ descriptor: FrameDescriptor, palette: ColorTable?, transparentIndex: Int?) {
        compositor.beginFrame(
            area: compositor.clip(descriptor.rect), disposal: descriptor.disposal, palette: palette,
            transparentIndex: transparentIndex)
    }

    /// Damaged or cut-short data: keep the rows drawn so far with a warning (rethrows when strict, or when
    /// it is not the data's fault).
    private func keepRowsDecoded(before error: GifDecodeError, frame index: Int, began: Bool) throws {
        let warning = try Self.damageWarning(error, frame: index, strict: limits.strict)
        // Still run the previous disposal so the canvas sequence stays right.
        if !began { beginFrame(metadata.images[index].descriptor, palette: nil, transparentIndex: nil) }
        warningLog.append(warning)
    }

    private func checkIndices(frame index: Int) throws {
        guard compositor.sawOutOfRangeIndex else { return }
        warningLog.append(
            try Self.outOfRangeWarning(frame: index, metadata: metadata, hasGlobalColors: globalColors != nil, strict: limits.strict))
    }

    /// The warning for a frame whose data ended or broke after some rows (the rows stay), or the error when
    /// `strict`, or when it is not the data's fault. Shared with the banded decoder, which judges a frame
    /// once all its bands are drawn.
    static func damageWarning(_ error: any Error, frame index: Int, strict: Bool) throws -> String {
        guard let error = error as? GifDecodeError else { throw error }
        guard !strict, error.kind == .malformed || error.kind == .truncated else { throw error }
        return "frame \(index): \(error.description); kept the rows decoded before it"
    }

    /// Pixels whose index the palette lacks: a warning (transparent pixels), an error when strict, and
    /// always an error when the frame has no colour table at all (none global, none local): the spec leaves
    /// those colours to the decoder, and ffmpeg refuses such frames; so does gifx (docs/conformance.md).
    static func outOfRangeWarning(frame index: Int, metadata: AnimationMetadata, hasGlobalColors: Bool, strict: Bool) throws -> String {
        let info = metadata.images[index]
        if !hasGlobalColors && info.localPaletteSize == nil {
            throw GifDecodeError(
                .malformed, at: info.byteOffset,
                "frame \(index) has no colour table (neither global nor local) for its opaque pixels")
        }
        let message = "frame \(index) uses colour indices beyond its palette; those pixels are left transparent"
        if strict { throw GifDecodeError(.malformed, at: info.byteOffset, message) }
        return message
    }

    /// Copies the current canvas (`metadata.canvasBytes` bytes of RGBA8) to `destination`.
    package func copyCanvas(to destination: UnsafeMutableRawPointer) {
        compositor.copyScreen(to: destination)
    }

    private func decodeRows(_ descriptor: FrameDescriptor) throws {
        let rect = descriptor.rect
        guard rect.width > 0, rect.height > 0, compositor.clip(rect).width > 0, compositor.clip(rect).height > 0
        else { return }  // nothing of it lands on the canvas: its data need not be decoded at all
        if let lzw {
            // Fused: each row is composited as soon as the LZW decoder completes it, while it is in cache.
            try reader.readImageData(into: lzw.data)
            let compositor = self.compositor
            try lzw.decoder.decode(lzw.data, width: rect.width, height: rect.height, interlaced: descriptor.interlaced) {
                imageRow, indices in
                compositor.drawRow(indices, count: rect.width, left: rect.x, y: rect.y + imageRow)
            }
            return
        }
        for pass in DecodedImage.rowOrder(interlaced: descriptor.interlaced) {
            var row = pass.start
            while row < rect.height {
                try reader.readLine(into: line, count: rect.width)
                compositor.drawRow(line, count: rect.width, left: rect.x, y: rect.y + row)
                row += pass.step
            }
        }
    }
}
