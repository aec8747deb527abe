package import CAV

/// A planar 4:2:0 frame (Y, U, V, and A for yuva420p) as pointers: a decoded video frame, or the copy of the frame
/// the encoder was given, which a verifying conversion compares it with (video PSNR over the planes, as libavfilter's
/// psnr computes it: no conversion on either side, so the check costs a copy and a subtraction per sample).
package struct PlaneView {
    package var pointers: [UnsafePointer<UInt8>]
    package var strides: [Int]
    package var widths: [Int]
    package var heights: [Int]

    /// The planes of `frame` (yuv420p or yuva420p); `nil` for any other format.
    package init?(_ frame: UnsafeMutablePointer<AVFrame>) {
        let format = frame.pointee.format
        guard format == AV_PIX_FMT_YUV420P.rawValue || format == AV_PIX_FMT_YUVA420P.rawValue else { return nil }
        let count = format == AV_PIX_FMT_YUVA420P.rawValue ? 4 : 3
        let (w, h) = (Int(frame.pointee.width), Int(frame.pointee.height))
        pointers = []
        strides = []
        widths = []
        heights = []
        for plane in 0..<count {
            guard let data = gifx_frame_plane(frame, Int32(plane)) else { return nil }
            pointers.append(UnsafePointer(data))
            strides.append(Int(gifx_frame_linesize(frame, Int32(plane))))
            let chroma = plane == 1 || plane == 2
            widths.append(chroma ? (w + 1) / 2 : w)
            heights.append(chroma ? (h + 1) / 2 : h)
        }
    }

    /// The same geometry over a packed copy (`packed`): planes one after another, rows `widths[i]` apart.
    package init(packed: UnsafePointer<UInt8>, like other: PlaneView) {
        var offset = 0
        pointers = []
        for i in other.widths.indices {
            pointers.append(packed + offset)
            offset += other.widths[i] * other.heights[i]
        }
        strides = other.widths
        widths = other.widths
        heights = other.heights
    }

    package var packedBytes: Int { zip(widths, heights).reduce(0) { $0 + $1.0 * $1.1 } }

    /// Copies the planes into one packed buffer (the reference kept until its frame is decoded).
    package func packed() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: packedBytes)
        buffer.withUnsafeMutableBufferPointer { out in
            var offset = 0
            for i in widths.indices {
                for y in 0..<heights[i] {
                    (out.baseAddress! + offset + y * widths[i]).update(from: pointers[i] + y * strides[i], count: widths[i])
                }
                offset += widths[i] * heights[i]
            }
        }
        return buffer
    }

    /// Squared error and differing samples over every plane (the planes must have the same geometry).
    package func compare(with other: PlaneView) -> PixelComparison {
        var total: UInt64 = 0
        var differing = 0
        var samples = 0
        for i in widths.indices where i < other.widths.count {
            let (w, h) = (min(widths[i], other.widths[i]), min(heights[i], other.heights[i]))
            samples += w * h
            for y in 0..<h {
                let a = pointers[i] + y * strides[i], b = other.pointers[i] + y * other.strides[i]
                var row: UInt32 = 0
                var rowDiffering = 0
                for x in 0..<w {
                    let d = Int32(a[x]) - Int32(b[x])
                    row &+= UInt32(d * d)
                    rowDiffering += d != 0 ? 1 : 0
                }
                total &+= UInt64(row)
                differing += rowDiffering
            }
        }
        return PixelComparison(squaredError: Double(total), samples: samples, differingPixels: differing)
    }
}
