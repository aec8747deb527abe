extension InputFormat {
    /// An animated (or still) WebP: `RIFF....WEBP`, demuxed and decoded by libwebp, on the producer thread.
    package static let webp = InputFormat(
        source: .webp, helpName: "WebP", mediaType: "image/webp", fileExtensions: [".webp"],
        probe: { $0.count >= 12 && $0.starts(with: Array("RIFF".utf8)) && Array($0[8..<12]) == Array("WEBP".utf8) },
        readMetadata: { try WebPMetadataReader.read(path: $0, limits: $1) },
        frameSource: { try WebPFrameDecoder(path: $0, metadata: $1, limits: $2) }, decodesAhead: false)
}
