import GifxFrames

/// A sink whose output a verifying conversion reads back (`RunSettings.verify`): it makes the check of its own
/// output. `VerifyingSink` wraps every such sink and knows it only through this protocol and `OutputCheck`; a sink
/// that does not conform (the timeline JSON, canvas folders) is not verified.
package protocol VerifiableSink: ConversionSink {
    /// The check of this sink's output in a conversion run with `context`, verifying with `settings`. Throws when
    /// what the check needs cannot be set up (a reference scaler), before anything is opened.
    func makeCheck(context: ConversionContext, settings: VerifySettings) throws -> any OutputCheck
}

/// One output's verification in a verifying conversion: what it keeps of the canvases lent to its sink, the memory
/// it holds besides the sink's, and how it reads the finished temporaries back before the commit.
package protocol OutputCheck: AnyObject {
    /// Bytes the check holds besides its sink (the output's decoder, references), added to each level of the sink's
    /// `memoryDemand`.
    var memoryBytes: Int { get }
    /// The bytes the run's memory plan gave the check (its part of the sink's share), before `open`.
    func useMemory(bytes: Int)
    /// Whether it sees the canvases of the first pass (`observe`).
    var observesCanvases: Bool { get }
    /// Whether it needs every canvas of the first pass, even once its sink needs no more (a deduplicated sheet).
    var needsEveryCanvas: Bool { get }
    /// One canvas of the first pass, lent.
    func observe(_ canvas: Canvas)
    /// Reads `temporaries` (the sink's files, finished, not yet committed) back, as a `Verifier` of the run's `context`
    /// verifying with `settings` reads them (a check makes its own: the verifier sits with the kinds, above this
    /// module); `nil` when there is nothing to verify.
    func verify(_ temporaries: [AtomicOutput], in context: ConversionContext, settings: VerifySettings) throws
        -> OutputVerification?
}

extension OutputCheck {
    package func useMemory(bytes: Int) {}
    package var observesCanvases: Bool { false }
    package var needsEveryCanvas: Bool { false }
    package func observe(_ canvas: Canvas) {}
}
