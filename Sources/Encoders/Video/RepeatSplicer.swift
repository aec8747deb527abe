/// A codec's repeat-picture writer (docs/repeats.md): sees every packet the encoder returns, in order, and
/// writes the pictures that show the last shown picture again. `VideoSession` writes each encoded packet
/// (rewritten where the codec needs it) and then the repeats that fill its run.
package protocol RepeatSplicer: AnyObject {
    /// Reads one encoder packet (the slot its shown picture lands in, the numbering it continues); returns the
    /// bytes to write instead, or `nil` to write the packet as it is.
    func rewrite(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [UInt8]?
    /// One repeat picture: shows the picture of the last packet again. Throws when it cannot.
    func repeatPicture() throws -> [UInt8]
    /// Repeat pictures written and their bytes.
    var repeatsWritten: Int { get }
    var repeatBytes: Int { get }
}

/// How a session writes its repeat pictures, made by the codec's descriptor (`makeRepeatSplicer`).
package enum RepeatSplicing {
    /// Packets come in presentation order; each one's repeats follow it.
    case inOrder(any RepeatSplicer)
    /// H.264 with B-frames: packets come in decode order, and a held picture's repeats follow every picture
    /// shown before them (`H264ReferenceRepeatSplicer`).
    case reordered(H264ReferenceRepeatSplicer)
}

/// What a codec's splicer factory is handed: the encoder as opened (its extradata holds the parameter sets),
/// and what the plan decided.
package struct RepeatSplicerSetup {
    /// The opened encoder; a splicer may replace its extradata (the parameter sets the muxer copies).
    let encoder: VideoEncoder
    /// Whether the container keeps the parameter sets (MP4's global header) rather than the stream.
    let parameterSetsInContainer: Bool
    /// Whether the encoder runs the repeat path with B-frames (`VideoCodecDescriptor.referenceRepeatTuning`).
    let referenceRepeats: Bool
    /// The most output frames one GIF frame fills (at least 1).
    let longestHold: () -> Int
    /// `Diagnostics.x264StreamPath`: where the encoder's own stream is copied, before splicing.
    let encoderStreamPath: String?
}
