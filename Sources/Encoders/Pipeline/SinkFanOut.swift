import Dispatch
import Foundation
import GifxFrames

/// Hands one canvas to every sink at once, each on its own thread, and returns when all are done: the
/// canvas is only lent for that long, and encoders work side by side, so on two cores a conversion to MP4
/// and WebM takes about the slower encoder's time rather than the sum. Bounded by construction: one canvas
/// in flight, no queue. `Diagnostics.serialSinks` feeds the sinks one after another (the benchmark's baseline).
struct SinkFanOut {
    /// Sinks side by side (each on its own thread), or one after another.
    let concurrent: Bool

    /// The sinks that want the next canvas too, in their order. The first error (in sink order) is thrown
    /// once every sink has returned.
    func consume(_ canvas: Canvas, by sinks: [any ConversionSink]) throws -> [any ConversionSink] {
        guard concurrent, sinks.count > 1 else { return try sinks.filter { try $0.consume(canvas) } }
        let round = SideBySide(sinks.count) { try sinks[$0].consume(canvas) }
        round.run(concurrent: true)
        var wanting: [any ConversionSink] = []
        for (index, sink) in sinks.enumerated() where try round.outcomes[index].get() { wanting.append(sink) }
        return wanting
    }
}

/// Work item `i` of `count`, for each `i`, side by side (`concurrentPerform`: each on one thread, all joined
/// before `run` returns) or in order, every outcome kept: item `i` runs on one thread only and writes only
/// outcome `i`, and `run` returns after every item, so what the work reads outlives its use. Feeds one canvas
/// to several sinks (`SinkFanOut`) and verifies a run's outputs (`VerifyingSink.verifyAll`).
final class SideBySide<Value>: @unchecked Sendable {
    private let work: (Int) throws -> Value
    let outcomes: UnsafeMutableBufferPointer<Result<Value, any Error>>

    init(_ count: Int, _ work: @escaping (Int) throws -> Value) {
        self.work = work
        outcomes = .allocate(capacity: count)
        outcomes.initialize(repeating: .failure(CancellationError()))
    }

    deinit {
        outcomes.deinitialize()
        outcomes.deallocate()
    }

    /// Runs every item: side by side when `concurrent` and there are several, else one after another.
    func run(concurrent: Bool) {
        if concurrent && outcomes.count > 1 {
            DispatchQueue.concurrentPerform(iterations: outcomes.count) { run($0) }
        } else {
            for index in outcomes.indices { run(index) }
        }
    }

    private func run(_ index: Int) {
        outcomes[index] = Result { try work(index) }
    }
}
