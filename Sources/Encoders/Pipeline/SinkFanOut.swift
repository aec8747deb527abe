import Dispatch
import Foundation
import GifxFrames

/// Hands one canvas to every sink at once, each on its own thread, and returns when all are done: the
/// canvas is only lent for that long, and encoders work side by side, so on two cores a conversion to MP4
/// and WebM takes about the slower encoder's time rather than the sum. Bounded by construction: one canvas
/// in flight, no queue. `RunSettings.serialSinks` feeds the sinks one after another (the benchmark's baseline).
struct SinkFanOut {
    /// Sinks side by side (each on its own thread), or one after another.
    let concurrent: Bool

    /// The sinks that want the next canvas too, in their order. The first error (in sink order) is thrown
    /// once every sink has returned.
    func consume(_ canvas: Canvas, by sinks: [any ConversionSink]) throws -> [any ConversionSink] {
        guard concurrent, sinks.count > 1 else { return try sinks.filter { try $0.consume(canvas) } }
        let round = FanOutRound(sinks: sinks, canvas: canvas)
        DispatchQueue.concurrentPerform(iterations: sinks.count) { round.run($0) }
        var wanting: [any ConversionSink] = []
        for (index, sink) in sinks.enumerated() where try round.outcomes[index].get() { wanting.append(sink) }
        return wanting
    }
}

/// One canvas handed to several sinks: sink `i` is called on one thread only and writes only outcome `i`;
/// `concurrentPerform` returns after every call, so the canvas and the outcomes outlive their use.
private final class FanOutRound: @unchecked Sendable {
    let sinks: [any ConversionSink]
    let canvas: Canvas
    let outcomes: UnsafeMutableBufferPointer<Result<Bool, any Error>>

    init(sinks: [any ConversionSink], canvas: Canvas) {
        self.sinks = sinks
        self.canvas = canvas
        outcomes = .allocate(capacity: sinks.count)
        outcomes.initialize(repeating: .success(false))
    }

    deinit {
        outcomes.deinitialize()
        outcomes.deallocate()
    }

    func run(_ index: Int) {
        outcomes[index] = Result { try sinks[index].consume(canvas) }
    }
}
