internal import CAvif
import GifxTimeline

/// libavif's decoder over a mapped AVIF, owned here: every pointer libavif hands out lives as long as this object
/// and no longer. Parsed on creation (the container, no pixel); `next()` decodes the next frame with dav1d (or
/// whichever AV1 decoder libavif was built with, when dav1d is not) and converts it to RGBA8, straight alpha,
/// with `avifImageYUVToRGB` at libavif's defaults and depth 8, as `avifdec -d 8` writes its PNGs.
final class AVIFDecoder {
    let file: MappedFile
    private let decoder: UnsafeMutablePointer<avifDecoder>
    let canvas: CanvasSize
    let imageCount: Int
    /// Whether the file is an image sequence (a track), not a still item.
    let isSequence: Bool
    let hasAlpha: Bool
    /// Bits per sample of the coded pictures (8, 10 or 12).
    let depth: Int
    /// Planes of the coded pictures' chroma format: 3 (4:4:4), 2 (4:2:2), 1.5 (4:2:0), 1 (4:0:0), in halves.
    let halfPlanes: Int
    let hasICC: Bool

    /// The frames the AV1 decoder holds at once: 8 reference frames, the frame being decoded and the one libavif
    /// hands out (libavif 0.11 runs dav1d with `max_frame_delay = 1`: one frame in flight whatever its threads).
    static let picturesHeld = 10
    /// libavif's `AVIF_DEFAULT_IMAGE_COUNT_LIMIT` (12 hours at 60 fps; a macro Swift does not import).
    static let defaultImageCountLimit = 12 * 3600 * 60
    /// Threads libavif gives dav1d (`maxThreads`): tile and post-filter threads of the one frame in flight.
    static let threads = 2

    init(path: String, limits: DecodeLimits) throws {
        file = try MappedFile(path: path, format: .avif)
        guard let decoder = avifDecoderCreate() else {
            throw GifDecodeError(.io, at: nil, "libavif cannot create a decoder (out of memory)", format: .avif)
        }
        self.decoder = decoder
        // dav1d when libavif has it (Debian's has dav1d and libgav1), else libavif's first decoder.
        decoder.pointee.codecChoice =
            avifCodecName(AVIF_CODEC_CHOICE_DAV1D, avifCodecFlags(AVIF_CODEC_FLAG_CAN_DECODE.rawValue)) != nil
            ? AVIF_CODEC_CHOICE_DAV1D : AVIF_CODEC_CHOICE_AUTO
        decoder.pointee.maxThreads = Int32(Self.threads)
        decoder.pointee.ignoreExif = 1
        decoder.pointee.ignoreXMP = 1
        // gifx's limits as libavif's: the side, the pixels (a canvas's bytes / 4), and the frame count (at most
        // libavif's default, 12 hours at 60 fps, and at most one frame per byte of the file: a sample is never
        // empty, so a sample table citing more frames than the file has bytes is a frame-count bomb).
        decoder.pointee.imageDimensionLimit = UInt32(clamping: limits.maxDimension)
        decoder.pointee.imageSizeLimit = UInt32(clamping: Swift.min(Int(AVIF_DEFAULT_IMAGE_SIZE_LIMIT), limits.maxCanvasBytes / 4))
        decoder.pointee.imageCountLimit = UInt32(clamping: Swift.min(Self.defaultImageCountLimit, Swift.max(1, file.bytes.count)))
        if file.bytes.isEmpty {
            avifDecoderDestroy(decoder)
            throw GifDecodeError(.truncated, at: 0, "the file is empty", format: .avif)
        }
        let base = file.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var result = avifDecoderSetIOMemory(decoder, base, file.bytes.count)
        if result == AVIF_RESULT_OK { result = avifDecoderParse(decoder) }
        guard result == AVIF_RESULT_OK, let image = decoder.pointee.image else {
            let error = Self.error(result, decoder, what: "libavif cannot parse the file")
            avifDecoderDestroy(decoder)
            throw error
        }
        canvas = CanvasSize(width: Int(image.pointee.width), height: Int(image.pointee.height))
        imageCount = Int(decoder.pointee.imageCount)
        isSequence = decoder.pointee.progressiveState == AVIF_PROGRESSIVE_STATE_UNAVAILABLE
            && AVIFBoxes.loop(in: file.bytes).loop != .still
        hasAlpha = decoder.pointee.alphaPresent != 0
        depth = Int(image.pointee.depth)
        switch image.pointee.yuvFormat {
        case AVIF_PIXEL_FORMAT_YUV444: halfPlanes = 6
        case AVIF_PIXEL_FORMAT_YUV422: halfPlanes = 4
        case AVIF_PIXEL_FORMAT_YUV400: halfPlanes = 2
        default: halfPlanes = 3
        }
        hasICC = image.pointee.icc.size > 0
    }

    deinit { avifDecoderDestroy(decoder) }

    /// A libavif failure as gifx's error: truncated data as `.truncated`, the rest `.malformed`, with libavif's
    /// own words (its result and its diagnostic).
    static func error(_ result: avifResult, _ decoder: UnsafeMutablePointer<avifDecoder>, what: String) -> GifDecodeError {
        let name = String(cString: avifResultToString(result))
        let detail = withUnsafeBytes(of: decoder.pointee.diag.error) { raw -> String in
            let chars = raw.bindMemory(to: CChar.self)
            let end = chars.firstIndex(of: 0) ?? chars.count
            return String(decoding: raw.prefix(end), as: UTF8.self)
        }
        let reason = "\(what): \(name)" + (detail.isEmpty ? "" : " (\(detail))")
        // libavif says a cut file's boxes run past its end as a parse failure whose diagnostic names it.
        let truncated = result == AVIF_RESULT_TRUNCATED_DATA || detail.contains("truncated")
        return GifDecodeError(truncated ? .truncated : .malformed, at: nil, reason, format: .avif)
    }

    /// Frame `index`'s duration in the media's timescale, and that timescale.
    func timing(_ index: Int) throws -> (duration: UInt64, timescale: UInt64) {
        var timing = avifImageTiming()
        let result = avifDecoderNthImageTiming(decoder, UInt32(index), &timing)
        guard result == AVIF_RESULT_OK else { throw Self.error(result, decoder, what: "frame \(index)'s timing") }
        return (timing.durationInTimescales, timing.timescale)
    }

    /// Where frame `index`'s data ends (the largest offset libavif must read to decode it, from its key frame).
    func dataEnd(_ index: Int) -> Int? {
        var extent = avifExtent()
        guard avifDecoderNthImageMaxExtent(decoder, UInt32(index), &extent) == AVIF_RESULT_OK else { return nil }
        let (end, overflow) = Int(clamping: extent.offset).addingReportingOverflow(extent.size)
        return overflow ? Int.max : end
    }

    /// The colour of the decoded pictures that gifx refuses, in words; `nil` when it reads them.
    func refusedColour() -> String? {
        guard let image = decoder.pointee.image else { return nil }
        switch Int(image.pointee.transferCharacteristics) {
        case Int(AVIF_TRANSFER_CHARACTERISTICS_SMPTE2084):
            return "HDR (PQ, SMPTE 2084) is not read: gifx writes SDR and does no tone mapping"
        case Int(AVIF_TRANSFER_CHARACTERISTICS_HLG):
            return "HDR (HLG) is not read: gifx writes SDR and does no tone mapping"
        default:
            break
        }
        if Int(image.pointee.colorPrimaries) == Int(AVIF_COLOR_PRIMARIES_BT2020) {
            return "BT.2020 primaries are not read: gifx writes sRGB (BT.709) and does no gamut mapping"
        }
        return nil
    }

    /// Decodes the next frame into `rgba` (width × height × 4 bytes): RGBA8, straight alpha (255 where the file
    /// has no alpha). Throws when libavif cannot decode it, or when the frame is not the canvas's size.
    func next(into rgba: UnsafeMutablePointer<UInt8>, index: Int) throws {
        let result = avifDecoderNextImage(decoder)
        guard result == AVIF_RESULT_OK, let image = decoder.pointee.image else {
            throw Self.error(result, decoder, what: "frame \(index): libavif cannot decode it")
        }
        guard Int(image.pointee.width) == canvas.width, Int(image.pointee.height) == canvas.height else {
            throw GifDecodeError(
                .malformed, at: nil,
                "frame \(index) is \(image.pointee.width)×\(image.pointee.height), not the first frame's "
                    + "\(canvas.width)×\(canvas.height)", format: .avif)
        }
        if let refused = refusedColour() {
            throw GifDecodeError(.malformed, at: nil, "frame \(index): \(refused)", format: .avif)
        }
        // As avifdec writes its PNG (apps/shared/avifpng.c): RGBA where the frame has alpha, else RGB. The two take
        // different paths in libavif (libyuv has RGBA routines for some formats, limited-range 10-bit 4:2:0 among
        // them, whose rounding differs by up to 3 levels from libavif's own), so an opaque frame is converted as
        // RGB, into the first three quarters of each row, and spread to RGBA (alpha 255) in place.
        let opaque = image.pointee.alphaPlane == nil
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 8
        rgb.format = opaque ? AVIF_RGB_FORMAT_RGB : AVIF_RGB_FORMAT_RGBA
        rgb.alphaPremultiplied = 0
        rgb.pixels = rgba
        rgb.rowBytes = UInt32(canvas.width * 4)
        let converted = avifImageYUVToRGB(image, &rgb)
        guard converted == AVIF_RESULT_OK else {
            throw Self.error(converted, decoder, what: "frame \(index): libavif cannot convert it to RGB")
        }
        if opaque { Self.spreadRGBToRGBA(rgba, width: canvas.width, height: canvas.height) }
    }

    /// Each row's first `3 × width` bytes (packed RGB) become `4 × width` bytes of RGBA with alpha 255, from the
    /// row's end backwards (a pixel's RGBA never overwrites an RGB pixel not yet moved).
    static func spreadRGBToRGBA(_ pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int) {
        for y in 0..<height {
            let row = pixels + y * width * 4
            var x = width - 1
            while x >= 0 {
                let source = row + 3 * x, destination = row + 4 * x
                let (r, g, b) = (source[0], source[1], source[2])
                destination[0] = r
                destination[1] = g
                destination[2] = b
                destination[3] = 255
                x -= 1
            }
        }
    }

    /// What the AV1 decoder holds while it decodes (`AnimationMetadata.decoderWorkingBytes`): `picturesHeld`
    /// pictures of the colour planes at the coded depth, and as many of the alpha plane when there is one (its own
    /// decoder), plus the RGBA frame the conversion writes.
    var workingBytes: Int {
        let pixels = canvas.width * canvas.height
        let sampleBytes = depth > 8 ? 2 : 1
        let colour = pixels * halfPlanes * sampleBytes / 2
        let alpha = hasAlpha ? pixels * sampleBytes : 0
        return Self.picturesHeld * (colour + alpha)
    }
}

/// The AVIF's structure as `AnimationMetadata`: canvas, each frame's duration in the media's own timescale
/// (`sourceTimescale`), the loop from the edit list (`AVIFBoxes.loop`), libavif's and dav1d's memory. Parses the
/// container with libavif; decodes no pixel.
enum AVIFMetadataReader {
    static func read(path: String, limits: DecodeLimits) throws -> AnimationMetadata {
        let decoder = try AVIFDecoder(path: path, limits: limits)
        let canvas = decoder.canvas
        guard canvas.width > 0, canvas.height > 0, decoder.imageCount > 0 else {
            throw GifDecodeError(.malformed, at: nil, "the file contains no frame", format: .avif)
        }
        try checking(.avif) { try limits.check(width: canvas.width, height: canvas.height, what: "canvas", at: nil) }
        if let refused = decoder.refusedColour() {
            throw GifDecodeError(.malformed, at: nil, refused, format: .avif)
        }
        var warnings: [String] = []
        if decoder.hasICC {
            warnings.append(
                "the file carries an ICC profile; its colours are read as libavif converts them, without the profile")
        }
        // Every frame's data must be in the file (a cut file is refused, not shown in part).
        if let end = decoder.dataEnd(decoder.imageCount - 1), end > decoder.file.bytes.count {
            throw GifDecodeError(
                .truncated, at: decoder.file.bytes.count,
                "the data ends before the last frame's (which ends at byte \(end))", format: .avif)
        }
        var images = GifImageList()
        let rect = PixelRect(x: 0, y: 0, width: canvas.width, height: canvas.height)
        var timescale = 0
        var total = 0
        if decoder.isSequence {
            for index in 0..<decoder.imageCount {
                let timing = try decoder.timing(index)
                // Exact in the file's timescale; a schedule of up to 2^59 units (the schedule may scale it by 10).
                guard timing.timescale > 0, timing.timescale <= UInt64(Int32.max),
                    timing.duration <= UInt64(1) << 58
                else {
                    throw GifDecodeError(
                        .malformed, at: nil,
                        "frame \(index) lasts \(timing.duration) units of 1/\(timing.timescale) s, beyond what gifx schedules",
                        format: .avif)
                }
                if index == 0 { timescale = Int(timing.timescale) }
                total += Int(timing.duration)
                guard total <= 1 << 58 else {
                    throw GifDecodeError(.malformed, at: nil, "the frames' durations add up beyond what gifx schedules", format: .avif)
                }
                images.append(
                    GifImageInfo(
                        descriptor: FrameDescriptor(rawDelay: Int(timing.duration), rect: rect, disposal: .none),
                        localPaletteSize: nil, byteOffset: 0))
            }
        } else {
            // A still image (or a progressive one, read as its best layer): one frame, shown as a still PNG is.
            timescale = MediaTime(1, timescale: 1000).timescale
            images.append(
                GifImageInfo(
                    descriptor: FrameDescriptor(rawDelay: 0, rect: rect, disposal: .none), localPaletteSize: nil,
                    byteOffset: 0))
        }
        let (loop, loopWarning) = AVIFBoxes.loop(in: decoder.file.bytes)
        if let loopWarning { warnings.append(loopWarning) }
        let loopCount: Int?
        switch loop {
        case .still: loopCount = decoder.isSequence ? 0 : nil
        case .forever: loopCount = 0
        case .plays(let n): loopCount = n
        }
        var metadata = AnimationMetadata(
            canvas: canvas, backgroundIndex: 0, globalPaletteSize: nil, loopCount: loopCount, images: images,
            warnings: warnings, isTruncated: false)
        metadata.format = .avif
        metadata.sourceTimescale = timescale
        metadata.decoderWorkingBytes = decoder.workingBytes
        return metadata
    }
}

/// Decodes an AVIF frame by frame with libavif, each frame replacing the canvas (an AV1 sequence has no
/// disposal or blending: every frame is the whole picture).
final class AVIFFrameDecoder: FrameSource {
    private let decoder: AVIFDecoder
    private let metadata: AnimationMetadata
    private let screen: UnsafeMutablePointer<UInt8>
    private var nextIndex = 0
    var warnings: [String] { [] }
    var warningTotal: Int { 0 }

    init(path: String, metadata: AnimationMetadata, limits: DecodeLimits) throws {
        decoder = try AVIFDecoder(path: path, limits: limits)
        guard decoder.canvas == metadata.canvas, decoder.imageCount >= metadata.images.count else {
            throw GifDecodeError(.malformed, at: nil, "the file changed since its metadata was read", format: .avif)
        }
        self.metadata = metadata
        screen = .allocate(capacity: metadata.canvasBytes)
        screen.initialize(repeating: 0, count: metadata.canvasBytes)
    }

    deinit { screen.deallocate() }

    func advance() throws -> Bool {
        guard nextIndex < metadata.images.count else { return false }
        try decoder.next(into: screen, index: nextIndex)
        nextIndex += 1
        return true
    }

    func copyCanvas(to destination: UnsafeMutableRawPointer) {
        destination.copyMemory(from: screen, byteCount: metadata.canvasBytes)
    }
}
