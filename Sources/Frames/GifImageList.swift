import GifxTimeline

/// Every image's `GifImageInfo`, 17 bytes each: the 12-byte descriptors (shared with the `Timeline`
/// built from them), the local palette size as a power of two in one byte, and the byte offset in four
/// (see `OffsetColumn`). A GIF of 5 million 1x1 frames keeps about 85 MB of metadata this way instead of
/// ~500 MB (issue 17). Values a GIF cannot produce (a palette size that is not a power of two up to 256)
/// are kept exactly in a side table.
package struct GifImageList: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral {
    /// The schedule's view of every image, in file order.
    package private(set) var descriptors = FrameDescriptorList()
    /// 0: no local palette; k in 1...8: 2^k entries; `outlier`: the size is in `outlierPaletteSizes`.
    private var paletteSizeCodes = ChunkedColumn<UInt8>()
    private var outlierPaletteSizes: [Int: Int] = [:]
    private var byteOffsets = OffsetColumn()

    private static let outlier = UInt8.max

    package init() {}

    package init<S: Sequence>(_ images: S) where S.Element == GifImageInfo {
        for image in images { append(image) }
    }

    package init(arrayLiteral images: GifImageInfo...) { self.init(images) }

    package var startIndex: Int { 0 }
    package var endIndex: Int { paletteSizeCodes.count }

    package subscript(position: Int) -> GifImageInfo {
        let code = paletteSizeCodes[position]
        let paletteSize: Int? =
            switch code {
            case 0: nil
            case Self.outlier: outlierPaletteSizes[position]
            default: 1 << Int(code)
            }
        return GifImageInfo(
            descriptor: descriptors[position], localPaletteSize: paletteSize, byteOffset: byteOffsets[position])
    }

    package mutating func append(_ image: GifImageInfo) {
        let position = paletteSizeCodes.count
        descriptors.append(image.descriptor)
        byteOffsets.append(image.byteOffset)
        guard let size = image.localPaletteSize else { return paletteSizeCodes.append(0) }
        if size >= 2, size <= 256, size & (size - 1) == 0 {
            paletteSizeCodes.append(UInt8(size.trailingZeroBitCount))
        } else {
            outlierPaletteSizes[position] = size
            paletteSizeCodes.append(Self.outlier)
        }
    }
}
