internal import CWebP
import Foundation
import GifxFrames

/// Reads an animated (or still) WebP with libwebp's own demuxer and animation decoder: the composited RGBA
/// canvas of each frame, in order, with the time it is shown (libwebp gives each frame's end timestamp), the
/// loop count the file carries, and whether every frame is lossless (VP8L), which makes the check exact.
package final class WebPFrameReader {
    private let data: Data
    private var decoder: OpaquePointer?
    package let width: Int
    package let height: Int
    package let frameCount: Int
    package let loopCount: Int
    package let lossless: Bool
    /// Whether the file is an animation (VP8X with the animation flag); a still WebP has no loop count and no
    /// duration (libwebp's animation decoder reports loop count 1 and a timestamp of 0 for it).
    package let animated: Bool
    private var previousEnd = 0
    /// The current frame (owned by libwebp until the next call).
    package private(set) var pixels: UnsafePointer<UInt8>?

    package init(path: String, threads: Int?) throws {
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw VerifyReadError("cannot read: \(error.localizedDescription)")
        }
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else { throw VerifyReadError("libwebp version mismatch") }
        options.color_mode = MODE_RGBA
        options.use_threads = (threads ?? 2) > 1 ? 1 : 0
        var info = WebPAnimInfo()
        var lossless = true
        var whole = WebPBitstreamFeatures()
        animated = data.withUnsafeBytes { raw in
            WebPGetFeaturesInternal(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count, &whole,
                                    Int32(WEBP_DECODER_ABI_VERSION)) == VP8_STATUS_OK && whole.has_animation != 0
        }
        let decoder: OpaquePointer? = data.withUnsafeBytes { raw in
            var webp = WebPData(bytes: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), size: raw.count)
            // Every frame's bitstream: VP8L is lossless, VP8 (with or without ALPH) lossy.
            if let demux = WebPDemuxInternal(&webp, 0, nil, Int32(WEBP_DEMUX_ABI_VERSION)) {
                var iterator = WebPIterator()
                if WebPDemuxGetFrame(demux, 1, &iterator) != 0 {
                    repeat {
                        var features = WebPBitstreamFeatures()
                        if WebPGetFeaturesInternal(iterator.fragment.bytes, iterator.fragment.size, &features,
                                                   Int32(WEBP_DECODER_ABI_VERSION)) == VP8_STATUS_OK {
                            if features.format != 2 { lossless = false }
                        } else {
                            lossless = false
                        }
                    } while WebPDemuxNextFrame(&iterator) != 0
                    WebPDemuxReleaseIterator(&iterator)
                }
                WebPDemuxDelete(demux)
            }
            return WebPAnimDecoderNewInternal(&webp, &options, Int32(WEBP_DEMUX_ABI_VERSION))
        }
        guard let decoder, WebPAnimDecoderGetInfo(decoder, &info) != 0 else {
            throw VerifyReadError("not a readable WebP")
        }
        self.decoder = decoder
        self.lossless = lossless
        width = Int(info.canvas_width)
        height = Int(info.canvas_height)
        frameCount = Int(info.frame_count)
        loopCount = Int(info.loop_count)
    }

    deinit { if let decoder { WebPAnimDecoderDelete(decoder) } }

    /// The next frame: when it starts and how long it lasts, in ms; its RGBA canvas in `pixels`.
    package func next() throws -> (startMs: Double, durationMs: Double)? {
        guard let decoder, WebPAnimDecoderHasMoreFrames(decoder) != 0 else { return nil }
        var buffer: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0, let buffer else {
            throw VerifyReadError("frame decoding failed")
        }
        pixels = UnsafePointer(buffer)
        let start = previousEnd
        previousEnd = Int(timestamp)
        return (Double(start), Double(Int(timestamp) - start))
    }
}

/// An output that cannot be read back: a verification failure of that output, not an error of the run.
package struct VerifyReadError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
