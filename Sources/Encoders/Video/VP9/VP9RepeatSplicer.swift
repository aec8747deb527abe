/// VP9 repeat pictures (docs/repeats.md): a repeat is a coded frame whose blocks all predict from the
/// reference slot holding the picture to show again, with a zero motion vector and no residual
/// (`VP9SkipFrame`: error resilient, refreshing no slot, tens of bytes; microseconds to write). libvpx's own
/// frames must then be error resilient too (`VP9Codec.forRepeatPictures`; `VP9SkipFrame` says why).
/// Before, a repeat was a one-byte `show_existing_frame`, which FFmpeg, libvpx and Chromium play right but
/// Firefox did not (153, the version measured: docs/repeats.md, "Firefox with `show_existing_frame`").
///
/// The slot comes from the last *shown* frame's header: a packet of libvpx's is one frame or a superframe
/// (Annex B: hidden alt-ref frames first, then the shown one, last, with an index at the end); the shown
/// frame's `refresh_frame_flags` (all slots for a key frame) names where it lands, and a shown frame that is
/// itself `show_existing_frame` shows the slot it names. A shown frame that lands in no slot cannot be
/// repeated (`repeatPicture` throws; libvpx's good-quality one-pass encoder, gifx's settings, never writes one:
/// every shown frame refreshes LAST at least; `VP9RepeatSplicerTests` checks libvpx's streams). The size of
/// the picture in each slot is followed from every frame's header (key and intra-only frames say it, inter
/// frames say it or take a reference's), since the skip frame's blocks cover it.
final class VP9RepeatSplicer {
    /// The slot holding the last shown picture, `nil` before the first packet or when it landed in none.
    private(set) var slot: Int?
    /// The stream's profile (0 for gifx's 8-bit 4:2:0), repeated in every repeat header.
    private(set) var profile = 0
    /// The size of the picture in each slot, `nil` before a frame lands there.
    private(set) var slotSizes: [VP9FrameHeader.Size?] = Array(repeating: nil, count: 8)
    private(set) var repeatsWritten = 0
    private(set) var repeatBytes = 0
    /// The last skip frame written, by slot, size and profile: the same bytes every time.
    private var cached: (key: [Int], frame: [UInt8])?

    init() {}

    func rewrite(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [UInt8]? {
        let frames = try Self.frames(in: bytes)
        guard !frames.isEmpty else { throw BitstreamError("an empty VP9 packet") }
        var shown: VP9FrameHeader?
        for range in frames {
            let header = try VP9FrameHeader(Array(bytes[range]))
            shown = header
            if header.existingSlot != nil { continue }
            var size = header.size
            if size == nil, let reference = header.sizeFromSlot { size = slotSizes[reference] }
            guard let size else { throw BitstreamError("a VP9 frame whose size names an empty slot") }
            for k in 0..<8 where header.refreshFrameFlags & (1 << k) != 0 { slotSizes[k] = size }
        }
        guard let header = shown, header.showFrame else { throw BitstreamError("the last frame of a VP9 packet is not shown") }
        profile = header.profile
        if let existing = header.existingSlot {
            slot = existing
        } else {
            slot = header.refreshFrameFlags == 0 ? nil : header.refreshFrameFlags.trailingZeroBitCount
        }
        return nil
    }

    func repeatPicture() throws -> [UInt8] {
        guard let slot else { throw BitstreamError("the VP9 frame to repeat is in no reference slot") }
        guard let size = slotSizes[slot] else { throw BitstreamError("the VP9 slot to repeat holds no picture") }
        let key = [slot, size.width, size.height, profile]
        let picture: [UInt8]
        if let cached, cached.key == key {
            picture = cached.frame
        } else {
            picture = VP9SkipFrame.make(width: size.width, height: size.height, slot: slot, profile: profile)
            cached = (key, picture)
        }
        repeatsWritten += 1
        repeatBytes += picture.count
        return picture
    }

    /// The header of a frame showing slot `slot` (`show_existing_frame`; the old repeat, kept for the tests
    /// that show libvpx's own): frame_marker (2 bits, 0b10), profile_low_bit, profile_high_bit, [reserved_zero
    /// for profile 3], show_existing_frame = 1, frame_to_show_map_idx (3 bits), zero bits to the byte's end:
    /// one byte (two for profile 3).
    static func showExisting(slot: Int, profile: Int) -> [UInt8] {
        var w = RBSPWriter()
        w.bits(2, 2)
        w.bit(profile & 1)
        w.bit(profile >> 1)
        if profile == 3 { w.bit(0) }
        w.bit(1)
        w.bits(slot, 3)
        return w.bytes  // the last byte's unused bits are zero
    }

    /// The byte ranges of the frames in a packet: a superframe's (Annex B: the last byte is a marker
    /// `0b110mmnnn`, n+1 frames whose sizes are m+1-byte little-endian numbers, the index bracketed by the
    /// marker byte on both sides), or the packet itself.
    static func frames(in bytes: UnsafeBufferPointer<UInt8>) throws -> [Range<Int>] {
        guard let marker = bytes.last else { return [] }
        guard marker & 0xE0 == 0xC0 else { return [0..<bytes.count] }
        let count = Int(marker & 7) + 1, magnitude = Int((marker >> 3) & 3) + 1
        let indexSize = 2 + magnitude * count
        guard bytes.count >= indexSize, bytes[bytes.count - indexSize] == marker else { return [0..<bytes.count] }
        var ranges: [Range<Int>] = [], offset = 0, p = bytes.count - indexSize + 1
        for _ in 0..<count {
            var size = 0
            for k in 0..<magnitude { size |= Int(bytes[p + k]) << (8 * k) }
            p += magnitude
            guard size > 0, offset + size <= bytes.count - indexSize else {
                throw BitstreamError("a VP9 superframe index that does not fit its packet")
            }
            ranges.append(offset..<(offset + size))
            offset += size
        }
        return ranges
    }
}

/// The start of a VP9 uncompressed header (§6.2), as far as `refresh_frame_flags` and the frame size.
struct VP9FrameHeader: Equatable {
    struct Size: Equatable {
        var width: Int, height: Int
    }

    var profile: Int
    /// `frame_to_show_map_idx` of a `show_existing_frame` header, else `nil`.
    var existingSlot: Int?
    var keyFrame = false
    var showFrame = true
    var errorResilient = false
    var intraOnly = false
    /// Slots the frame is stored in (bit k: slot k); 0xFF for a key frame, 0 for a `show_existing_frame`.
    var refreshFrameFlags = 0
    /// The frame size where the header writes it (key and intra-only frames, inter frames without `found_ref`).
    var size: Size?
    /// The slot whose picture's size the frame takes (an inter frame's `found_ref`), else `nil`.
    var sizeFromSlot: Int?

    init(_ bytes: [UInt8]) throws {
        var r = RBSPReader(bytes)
        guard try r.bits(2) == 2 else { throw BitstreamError("not a VP9 frame (frame_marker)") }
        let low = try r.bit(), high = try r.bit()
        profile = high << 1 | low
        if profile == 3 { _ = try r.bit() }
        if try r.flag() {
            existingSlot = try r.bits(3)
            return
        }
        keyFrame = try r.bit() == 0
        showFrame = try r.flag()
        errorResilient = try r.flag()
        func frameSize() throws -> Size { Size(width: try r.bits(16) + 1, height: try r.bits(16) + 1) }
        func colorConfig() throws {
            if profile >= 2 { _ = try r.bit() }  // ten_or_twelve_bit
            let colorSpace = try r.bits(3)
            if colorSpace != 7 {  // not CS_RGB
                _ = try r.bit()  // color_range
                if profile == 1 || profile == 3 { _ = try r.bits(3) }  // subsampling_x, _y, reserved_zero
            } else if profile == 1 || profile == 3 {
                _ = try r.bit()  // reserved_zero
            }
        }
        if keyFrame {
            refreshFrameFlags = 0xFF
            guard try r.bits(24) == 0x498342 else { throw BitstreamError("a VP9 key frame without its sync code") }
            try colorConfig()
            size = try frameSize()
            return
        }
        intraOnly = showFrame ? false : try r.flag()
        if !errorResilient { _ = try r.bits(2) }  // reset_frame_context
        if intraOnly {
            guard try r.bits(24) == 0x498342 else { throw BitstreamError("a VP9 intra-only frame without its sync code") }
            if profile > 0 { try colorConfig() }
            refreshFrameFlags = try r.bits(8)
            size = try frameSize()
            return
        }
        refreshFrameFlags = try r.bits(8)
        var references: [Int] = []
        for _ in 0..<3 {
            references.append(try r.bits(3))  // ref_frame_idx
            _ = try r.bit()  // ref_frame_sign_bias
        }
        for reference in references {
            if try r.flag() {  // found_ref
                sizeFromSlot = reference
                return
            }
        }
        size = try frameSize()
    }
}
