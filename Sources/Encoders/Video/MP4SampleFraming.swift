/// How a codec frames its samples in MP4 where gifx does it rather than libavformat: the sample entry's
/// configuration record, and each sample's NAL units with their length prefixes. libavformat's MP4 muxer turns
/// Annex B into 4-byte lengths (`avcC`'s `lengthSizeMinusOne` 3) whatever the stream; given a configuration
/// record, it writes that record and takes each sample as it comes (FFmpeg 5.1's `mov_write_single_packet`, as
/// for a stream copied from another MP4). The codec's descriptor says where it applies
/// (`VideoCodecDescriptor.mp4SampleFraming`); `VideoMuxer` applies it.
package protocol MP4SampleFraming: Sendable {
    /// The configuration record (`avcC`) for the encoder's extradata (Annex B parameter sets).
    func configurationRecord(extradata: [UInt8]) throws -> [UInt8]
    /// One sample from the encoder's packet (Annex B NAL units), its units length-prefixed; never longer than
    /// the packet.
    func sample(_ annexB: UnsafeBufferPointer<UInt8>) throws -> [UInt8]
}
