extension InputFormat {
    /// An APNG (or a still PNG): PNG's signature, its chunks walked in place, frames inflated by libpng.
    package static let apng = InputFormat(
        source: .apng, helpName: "PNG/APNG", mediaType: "image/apng", fileExtensions: [".png", ".apng"], probe: { $0.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) },
        readMetadata: { try APNGMetadataReader.read(path: $0, limits: $1) },
        frameSource: { try APNGFrameDecoder(path: $0, metadata: $1, limits: $2) }, decodesAhead: false)
}
