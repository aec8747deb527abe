/// A codec's repeat-picture writer (docs/repeats.md): sees every packet the encoder returns, in order, and
/// writes the pictures that show the last shown picture again. `VideoSession` writes each encoded packet
/// (rewritten where the codec needs it) and then the repeats that fill its run.
protocol RepeatSplicer: AnyObject {
    /// Reads one encoder packet (the slot its shown picture lands in, the numbering it continues); returns the
    /// bytes to write instead, or `nil` to write the packet as it is.
    func rewrite(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [UInt8]?
    /// One repeat picture: shows the picture of the last packet again. Throws when it cannot.
    func repeatPicture() throws -> [UInt8]
    /// Repeat pictures written and their bytes.
    var repeatsWritten: Int { get }
    var repeatBytes: Int { get }
}

extension H264RepeatSplicer: RepeatSplicer {}

extension HEVCRepeatSplicer: RepeatSplicer {}

extension VP9RepeatSplicer: RepeatSplicer {}

extension AV1RepeatSplicer: RepeatSplicer {}
