import GifxFrames

/// One output asked of a conversion: its kind's request (`OutputRequest.video(target:options:)`,
/// `.webp(target:options:)`, `.spriteSheet(_:)`, `.poster(target:frame:)`, …). The sink that writes it is made once
/// the input's metadata is known, so a bad request fails before anything is decoded or written.
public struct OutputRequest: Sendable {
    /// The kind's name (`OutputKind.name`; "canvases" for `gifx frames`' canvases).
    package let kind: String
    /// Where its main file goes (a sheet's PNG), `nil` for canvases.
    package let target: OutputTarget?
    /// The sink that writes this output, its plan made from the conversion's context.
    private let sink: @Sendable (ConversionContext) throws -> any ConversionSink

    package init(
        kind: String, target: OutputTarget?, sink: @escaping @Sendable (ConversionContext) throws -> any ConversionSink
    ) {
        self.kind = kind; self.target = target; self.sink = sink
    }

    func makeSink(_ context: ConversionContext) throws -> any ConversionSink { try sink(context) }
}

/// What one output wrote: its kind's result (`VideoResult`, `SpriteResult`, `WebPResult`, `PosterResult`, …), read
/// with `as?`.
public protocol OutputResult: Sendable {
    /// The files it wrote (a sheet's pages and description; none for canvases only decoded).
    var paths: [String] { get }
}

