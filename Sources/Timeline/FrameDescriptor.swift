/// How a frame's area is treated before the next frame is drawn (GIF disposal method).
public enum Disposal: String, Codable, Sendable, CaseIterable {
    case none, keep, background, previous

    /// Maps the GCE's raw 3-bit field; values 4-7 act as `previous`, as browsers do.
    public init(rawField: Int) {
        switch rawField {
        case 0: self = .none
        case 1: self = .keep
        case 2: self = .background
        default: self = .previous
        }
    }
}

/// A rectangle in canvas pixels, top-left origin.
public struct PixelRect: Codable, Hashable, Sendable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

/// Canvas size in pixels.
public struct CanvasSize: Codable, Hashable, Sendable {
    public var width: Int, height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
}

/// What the parser read about one image: the input to the schedule. No pixels.
public struct FrameDescriptor: Hashable, Sendable {
    /// Raw GCE delay in centiseconds, `nil` when the image has no Graphic Control Extension.
    public var rawDelay: Int?
    public var rect: PixelRect
    public var disposal: Disposal
    public var transparentIndex: Int?
    public var interlaced: Bool

    public init(
        rawDelay: Int?, rect: PixelRect, disposal: Disposal = .none, transparentIndex: Int? = nil,
        interlaced: Bool = false
    ) {
        self.rawDelay = rawDelay; self.rect = rect; self.disposal = disposal
        self.transparentIndex = transparentIndex; self.interlaced = interlaced
    }
}

/// Everything `Timeline` needs from a GIF file (or a WebP or APNG: `format`).
public struct TimelineInput: Hashable, Sendable {
    /// The container; it decides the unit of each `FrameDescriptor.rawDelay`: GIF cs, WebP ms, APNG the
    /// `delay_num` of `delay_num / delay_den` seconds (the denominators in `delayDenominators`).
    public var format: SourceFormat = .gif
    /// APNG only: each frame's `delay_den` (0 means 100, as the APNG spec says); empty for other formats.
    public var delayDenominators: [UInt16] = []
    /// A container with its own time base (an ISO BMFF track's media timescale): each frame's `rawDelay` counts
    /// `1 / sourceTimescale` s, and the schedule keeps that time base, exact. `nil` for GIF, WebP and APNG,
    /// whose units the format decides.
    public var sourceTimescale: Int?
    public var canvas: CanvasSize
    /// Raw count of the first NETSCAPE2.0/ANIMEXTS1.0 extension, `nil` when there is none.
    public var loopCount: Int?
    /// Every decodable image in file order (12 bytes each, shared with `AnimationMetadata` without a copy).
    public var frames: FrameDescriptorList
    /// Indices (into `frames`) of frames that directly follow a dropped, undecodable image:
    /// they have nothing to carry a delay over from.
    public var followsDroppedFrame: Set<Int>
    /// Parser warnings, passed through to the output.
    public var warnings: [String]

    public init(
        canvas: CanvasSize, loopCount: Int?, frames: FrameDescriptorList, followsDroppedFrame: Set<Int> = [],
        warnings: [String] = []
    ) {
        self.canvas = canvas; self.loopCount = loopCount; self.frames = frames
        self.followsDroppedFrame = followsDroppedFrame; self.warnings = warnings
    }

    /// The same from an array of descriptors (tests, hand-built inputs).
    public init(
        canvas: CanvasSize, loopCount: Int?, frames: [FrameDescriptor], followsDroppedFrame: Set<Int> = [],
        warnings: [String] = []
    ) {
        self.init(
            canvas: canvas, loopCount: loopCount, frames: FrameDescriptorList(frames),
            followsDroppedFrame: followsDroppedFrame, warnings: warnings)
    }
}
