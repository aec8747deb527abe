extension InputFormat {
    /// GIF87a/GIF89a: "GIF" alone, as giflib checks it (its version bytes are not checked: `GIF$9a` decodes as
    /// before). Frames are decoded ahead and composited in bands on many threads.
    package static let gif = InputFormat(
        source: .gif, helpName: "GIF", mediaType: "image/gif", fileExtensions: [".gif"], probe: { $0.starts(with: Array("GIF".utf8)) },
        readMetadata: { try readGIFFileMetadata(path: $0, limits: $1) },
        frameSource: { try GifFrameDecoder(path: $0, metadata: $1, limits: $2) }, decodesAhead: true)
}
