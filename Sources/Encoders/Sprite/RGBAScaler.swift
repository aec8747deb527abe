internal import CAV
import GifxFrames
import GifxTimeline

/// Why a scaler could not be set up.
package struct ScalerError: GifxError {
    package let description: String
    package var failureClass: FailureClass { .internalError }
}

/// Resizes straight-alpha RGBA canvases with libswscale: the area filter when shrinking (each output pixel
/// is the mean of the source pixels it covers, which keeps @1x sheets free of aliasing), Lanczos when
/// growing.
///
/// Colour is filtered premultiplied by alpha, so the transparent (0,0,0,0) pixels around a GIF's subject
/// do not darken its edges. Each channel is scaled as its own 8-bit grey plane: swscale converts packed
/// RGB to YUV internally, which would shift colours; grey to grey is a pure resampling.
package final class RGBAScaler {
    package let source: CanvasSize
    package let destination: CanvasSize
    private let context: OpaquePointer
    /// Four premultiplied planes of the source (R, G, B, A), then four of the destination.
    private let sourcePlanes: UnsafeMutablePointer<UInt8>
    private let destinationPlanes: UnsafeMutablePointer<UInt8>

    package init(from source: CanvasSize, to destination: CanvasSize) throws {
        self.source = source
        self.destination = destination
        try Libav.require(GIFX_AV_SCALER)
        let shrinking = destination.width * destination.height < source.width * source.height
        let flags = (shrinking ? SWS_AREA : SWS_LANCZOS) | SWS_ACCURATE_RND | SWS_BITEXACT
        guard
            let context = gifx_sws_getContext(
                Int32(source.width), Int32(source.height), AV_PIX_FMT_GRAY8,
                Int32(destination.width), Int32(destination.height), AV_PIX_FMT_GRAY8,
                flags, nil, nil, nil)
        else {
            throw ScalerError(
                description: "cannot scale \(source.width)x\(source.height) to \(destination.width)x\(destination.height)")
        }
        self.context = context
        sourcePlanes = .allocate(capacity: 4 * source.width * source.height)
        destinationPlanes = .allocate(capacity: 4 * destination.width * destination.height)
    }

    deinit {
        gifx_sws_freeContext(context)
        sourcePlanes.deallocate()
        destinationPlanes.deallocate()
    }

    /// Scales `pixels` (source size, tightly packed RGBA) into `output`: `destination.height` rows of
    /// `destination.width` RGBA pixels, `stride` bytes apart.
    package func scale(_ pixels: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, stride: Int) {
        let sourceCount = source.width * source.height
        precondition(pixels.count >= sourceCount * 4)
        let input = pixels.bindMemory(to: UInt8.self).baseAddress!
        // Split and premultiply: c' = round(c * a / 255).
        for i in 0..<sourceCount {
            let a = UInt32(input[4 * i + 3])
            sourcePlanes[i] = UInt8((UInt32(input[4 * i]) * a + 127) / 255)
            sourcePlanes[sourceCount + i] = UInt8((UInt32(input[4 * i + 1]) * a + 127) / 255)
            sourcePlanes[2 * sourceCount + i] = UInt8((UInt32(input[4 * i + 2]) * a + 127) / 255)
            sourcePlanes[3 * sourceCount + i] = UInt8(a)
        }
        let destinationCount = destination.width * destination.height
        var sourceStride = [Int32(source.width), 0, 0, 0]
        var destinationStride = [Int32(destination.width), 0, 0, 0]
        for plane in 0..<4 {
            var sourcePointers: [UnsafePointer<UInt8>?] = [UnsafePointer(sourcePlanes + plane * sourceCount), nil, nil, nil]
            var destinationPointers: [UnsafeMutablePointer<UInt8>?] = [destinationPlanes + plane * destinationCount, nil, nil, nil]
            _ = gifx_sws_scale(
                context, &sourcePointers, &sourceStride, 0, Int32(source.height), &destinationPointers,
                &destinationStride)
        }
        // Merge and unpremultiply: c = round(c' * 255 / a), clamped (Lanczos may overshoot a).
        let out = output.assumingMemoryBound(to: UInt8.self)
        for y in 0..<destination.height {
            let row = out + y * stride
            for x in 0..<destination.width {
                let i = y * destination.width + x
                let a = UInt32(destinationPlanes[3 * destinationCount + i])
                let p = row + 4 * x
                if a == 0 {
                    p[0] = 0; p[1] = 0; p[2] = 0; p[3] = 0
                    continue
                }
                for channel in 0..<3 {
                    let c = UInt32(destinationPlanes[channel * destinationCount + i])
                    p[channel] = UInt8(min(255, (c * 255 + a / 2) / a))
                }
                p[3] = UInt8(a)
            }
        }
    }
}
