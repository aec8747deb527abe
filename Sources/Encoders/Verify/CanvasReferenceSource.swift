import GifxChecks

/// References made from a `CanvasFeed` (the GIF decoded again by the stand-alone verifier).
final class CanvasReferenceSource: ReferenceSource {
    private let feed: CanvasFeed
    private let maker: ReferenceMaker
    var width: Int { maker.width }
    var height: Int { maker.height }
    var bytesPerReference: Int { maker.bytes }

    init(feed: CanvasFeed, maker: ReferenceMaker) {
        self.feed = feed
        self.maker = maker
    }

    func next() throws -> Reference? {
        var pixels = [UInt8](repeating: 0, count: maker.allocationBytes)
        let got = try feed.next { canvas in
            pixels.withUnsafeMutableBufferPointer { maker.make(canvas, into: $0.baseAddress!) }
        }
        return got ? .pixels(pixels) : nil
    }
}
