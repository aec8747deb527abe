import GifxTimeline

extension SourceFormat {
    /// An AVIF: its frames timed in the track's media timescale (`TimelineInput.sourceTimescale`).
    public static let avif = SourceFormat(rawValue: "avif", displayName: "AVIF")
}

extension InputFormat {
    /// An AVIF image sequence (or a still AVIF): an ISO BMFF `ftyp` naming `avis` or `avif`, parsed and decoded by
    /// libavif with dav1d, on the producer thread; the loop read from the colour track's edit list by gifx.
    package static let avif = InputFormat(
        source: .avif, helpName: "AVIF", mediaType: "image/avif", fileExtensions: [".avif"], probe: { AVIFBoxes.probe($0) },
        readMetadata: { try AVIFMetadataReader.read(path: $0, limits: $1) },
        frameSource: { try AVIFFrameDecoder(path: $0, metadata: $1, limits: $2) }, decodesAhead: false)
}
