/// One image's LZW data as read from the file: the minimum code size and the data sub-blocks joined into
/// one buffer (padded with zeros so the bit reader may load 8 bytes at any position), plus where each
/// sub-block ends in the file. Reading everything before decoding lets the decoder run on a plain buffer,
/// while errors still name the byte offset a block-at-a-time reader (giflib) would have reached: the end of
/// the sub-block that held the last byte the decoder needed.
final class ImageDataBlocks {
    /// Bytes a reader may load past `count` (always zero).
    static let padding = 8

    /// The LZW minimum code size (0...8; larger sizes are refused before decoding, docs/conformance.md).
    var codeSize = 0
    private(set) var bytes: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Data bytes joined so far.
    private(set) var count = 0
    /// For each sub-block: `count` after it, and the file offset just past it.
    private var dataEnds: [Int] = []
    private var fileEnds: [Int] = []
    /// How the chain of sub-blocks ended: `nil` with a block terminator (a zero-length block, whose end is
    /// `terminatorEnd`), or the error reading the next block met (cut short, or a read failure).
    private(set) var readFailure: GifDecodeError?
    private(set) var terminatorEnd = 0

    init() {
        capacity = 64 * 1024
        bytes = .allocate(capacity: capacity + Self.padding)
        bytes.initialize(repeating: 0, count: capacity + Self.padding)
    }

    deinit { bytes.deallocate() }

    /// Forgets the previous image's data.
    func reset(codeSize: Int) {
        self.codeSize = codeSize
        count = 0
        dataEnds.removeAll(keepingCapacity: true)
        fileEnds.removeAll(keepingCapacity: true)
        readFailure = nil
        terminatorEnd = 0
    }

    /// Room for `extra` more data bytes (growing by doubling, zero padding kept after the data).
    func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if count + extra > capacity {
            var grown = capacity * 2
            while grown < count + extra { grown *= 2 }
            let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: grown + Self.padding)
            fresh.initialize(repeating: 0, count: grown + Self.padding)
            fresh.update(from: bytes, count: count)
            bytes.deallocate()
            bytes = fresh
            capacity = grown
        }
        return bytes + count
    }

    /// Records a sub-block of `length` bytes just written at `reserve`'s pointer, ending at `fileOffset`.
    func appendBlock(length: Int, endingAt fileOffset: Int) {
        count += length
        dataEnds.append(count)
        fileEnds.append(fileOffset)
    }

    func end(terminatorEndingAt fileOffset: Int) { terminatorEnd = fileOffset }

    func end(failure: GifDecodeError) { readFailure = failure }

    /// Clears the padding after the data (a previous, longer image may have left bytes there).
    func finish() { (bytes + count).update(repeating: 0, count: Self.padding) }

    /// The file offset a block-at-a-time reader has reached once it holds data byte `index`: the end of the
    /// sub-block containing it.
    func fileOffset(afterByte index: Int) -> Int {
        var low = 0, high = dataEnds.count - 1
        guard high >= 0 else { return terminatorEnd }
        while low < high {  // first block whose end is past `index`
            let middle = (low + high) / 2
            if dataEnds[middle] > index { high = middle } else { low = middle + 1 }
        }
        return fileEnds[low]
    }

    /// The error of a decoder that needs more data than the sub-blocks hold: the terminator came first
    /// (giflib: "Image is defective"), or the file ended or failed while reading the next block.
    var dataEndError: GifDecodeError {
        readFailure ?? GifDecodeError(.malformed, at: terminatorEnd, LZWMessages.defect)
    }
}

/// giflib's wording of LZW damage, kept so warnings and errors read the same whichever decoder ran.
enum LZWMessages {
    static let context = " (while decoding image data)"
    static let defect = "Image is defective, decoding aborted" + context
    static let endTooSoon = "Image EOF detected before image complete" + context
}
