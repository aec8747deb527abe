import GifxTimeline

/// What the metadata pass learned about one image, plus what the pixel decoder needs to find it again.
package struct GifImageInfo: Hashable, Sendable {
    /// The schedule's view of the image (delay, rect, disposal, transparency, interlace).
    package var descriptor: FrameDescriptor
    /// Entries in the image's local colour table, `nil` when it uses the global one.
    package var localPaletteSize: Int?
    /// File offset of the image separator (0x2C) that starts this image's descriptor.
    package var byteOffset: Int

    package init(descriptor: FrameDescriptor, localPaletteSize: Int?, byteOffset: Int) {
        self.descriptor = descriptor; self.localPaletteSize = localPaletteSize; self.byteOffset = byteOffset
    }
}

/// Everything about an animation except its pixels (a GIF, read without decompressing any image data; the same for
/// an animated WebP or APNG, `format`; `readAnimationMetadata` sniffs the container): their frames' rects,
/// disposals and stored delays (WebP ms, APNG `delay_num` over `delayDenominators`) in `images`, the
/// byte offset of each frame's header in `byteOffset`, no palette.
package struct AnimationMetadata: Hashable, Sendable {
    /// The container (decides the frame decoder and the unit of the stored delays).
    package var format: SourceFormat = .gif
    /// APNG only: each frame's `delay_den`; empty otherwise.
    package var delayDenominators: [UInt16] = []
    /// A container with its own time base (AVIF): the units of every stored delay, `nil` otherwise.
    package var sourceTimescale: Int?
    /// What the format's decoder library holds while it decodes, beyond gifx's own canvases (AVIF: the AV1
    /// decoder's reference and output pictures): added to the decoder's share of the memory plan. 0 when the
    /// reader decodes into gifx's buffers alone (GIF, WebP, APNG).
    package var decoderWorkingBytes = 0
    package var canvas: CanvasSize
    /// The logical screen's background colour index (not used for compositing: cleared areas are transparent).
    package var backgroundIndex: Int
    /// Entries in the global colour table, `nil` when there is none.
    package var globalPaletteSize: Int?
    /// Raw count of the first NETSCAPE2.0/ANIMEXTS1.0 loop extension, `nil` when there is none.
    package var loopCount: Int?
    /// One entry per image descriptor, in file order: every image is a frame (17 bytes each).
    package var images: GifImageList
    /// Recoverable damage found while reading (e.g. the file ends early).
    package var warnings: [String]
    /// Whether the data stopped before the trailer (the images read so far are kept).
    package var isTruncated: Bool

    package var hasGlobalPalette: Bool { globalPaletteSize != nil }

    /// Per image, what `Timeline` needs (the same storage as `images`, not a copy).
    package var frames: FrameDescriptorList { images.descriptors }

    /// Decoded bytes of one canvas (width * height * 4).
    package var canvasBytes: Int { canvas.width * canvas.height * 4 }

    /// The schedule's input.
    package var timelineInput: TimelineInput {
        var input = TimelineInput(canvas: canvas, loopCount: loopCount, frames: frames, warnings: warnings)
        input.format = format
        input.delayDenominators = delayDenominators
        input.sourceTimescale = sourceTimescale
        return input
    }

    package init(
        canvas: CanvasSize, backgroundIndex: Int, globalPaletteSize: Int?, loopCount: Int?,
        images: GifImageList, warnings: [String], isTruncated: Bool
    ) {
        self.canvas = canvas; self.backgroundIndex = backgroundIndex; self.globalPaletteSize = globalPaletteSize
        self.loopCount = loopCount; self.images = images; self.warnings = warnings; self.isTruncated = isTruncated
    }

    /// The same from an array of images (tests, hand-built metadata).
    package init(
        canvas: CanvasSize, backgroundIndex: Int, globalPaletteSize: Int?, loopCount: Int?,
        images: [GifImageInfo], warnings: [String], isTruncated: Bool
    ) {
        self.init(
            canvas: canvas, backgroundIndex: backgroundIndex, globalPaletteSize: globalPaletteSize,
            loopCount: loopCount, images: GifImageList(images), warnings: warnings, isTruncated: isTruncated)
    }
}

extension AnimationMetadata {
    /// The decoding threads a stream uses when none are asked for (`CacheCapacity.defaultThreads`: from
    /// the canvas and the frame count).
    package var defaultDecodeThreads: Int {
        CacheCapacity.defaultThreads(canvasBytes: canvasBytes, frameCount: images.count)
    }
}
