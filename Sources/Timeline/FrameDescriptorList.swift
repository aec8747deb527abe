/// Every image's `FrameDescriptor`, 12 bytes each: what a GIF can hold fits fixed-width fields (16-bit
/// rect and delay, 8-bit transparent index, flags), so a file of millions of frames costs megabytes, not
/// the ~100 bytes per frame of an array of structs with `Int` fields and optionals (issue 17).
/// Descriptors that no GIF could produce (a field beyond 16 bits, a negative one) are kept exactly in a
/// side table, so the list stores any value it is given.
public struct FrameDescriptorList: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral {
    private var packed = ChunkedColumn<PackedDescriptor>()
    private var outliers: [Int: FrameDescriptor] = [:]

    public init() {}

    public init<S: Sequence>(_ descriptors: S) where S.Element == FrameDescriptor {
        for descriptor in descriptors { append(descriptor) }
    }

    public init(arrayLiteral descriptors: FrameDescriptor...) { self.init(descriptors) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { packed.count }

    public subscript(position: Int) -> FrameDescriptor {
        let record = packed[position]
        return record.isOutlier ? outliers[position]! : record.descriptor
    }

    public mutating func append(_ descriptor: FrameDescriptor) {
        if let record = PackedDescriptor(descriptor) {
            packed.append(record)
        } else {
            outliers[packed.count] = descriptor
            packed.append(.outlier)
        }
    }
}

/// One descriptor in 12 bytes: rect and raw delay as UInt16, transparent index as UInt8, then flags
/// (bit 0 has a GCE delay, bit 1 has a transparent index, bit 2 interlaced, bits 3-4 disposal, bit 7
/// kept in the side table).
struct PackedDescriptor: Hashable, Sendable {
    var x: UInt16, y: UInt16, width: UInt16, height: UInt16
    var rawDelay: UInt16
    var transparentIndex: UInt8
    var flags: UInt8

    private static let hasDelay: UInt8 = 1, hasTransparency: UInt8 = 2, interlaced: UInt8 = 4
    private static let outlierFlag: UInt8 = 0x80
    private static let disposals: [Disposal] = [.none, .keep, .background, .previous]

    static let outlier = PackedDescriptor(x: 0, y: 0, width: 0, height: 0, rawDelay: 0, transparentIndex: 0, flags: outlierFlag)

    private init(
        x: UInt16, y: UInt16, width: UInt16, height: UInt16, rawDelay: UInt16, transparentIndex: UInt8, flags: UInt8
    ) {
        self.x = x; self.y = y; self.width = width; self.height = height
        self.rawDelay = rawDelay; self.transparentIndex = transparentIndex; self.flags = flags
    }

    /// `nil` when a field does not fit its width.
    init?(_ d: FrameDescriptor) {
        let r = d.rect
        guard let x = UInt16(exactly: r.x), let y = UInt16(exactly: r.y), let width = UInt16(exactly: r.width),
            let height = UInt16(exactly: r.height)
        else { return nil }
        var flags: UInt8
        switch d.disposal {
        case .none: flags = 0 << 3
        case .keep: flags = 1 << 3
        case .background: flags = 2 << 3
        case .previous: flags = 3 << 3
        }
        var rawDelay: UInt16 = 0
        if let delay = d.rawDelay {
            guard let fitted = UInt16(exactly: delay) else { return nil }
            rawDelay = fitted
            flags |= Self.hasDelay
        }
        var transparentIndex: UInt8 = 0
        if let index = d.transparentIndex {
            guard let fitted = UInt8(exactly: index) else { return nil }
            transparentIndex = fitted
            flags |= Self.hasTransparency
        }
        if d.interlaced { flags |= Self.interlaced }
        self.init(
            x: x, y: y, width: width, height: height, rawDelay: rawDelay, transparentIndex: transparentIndex,
            flags: flags)
    }

    var isOutlier: Bool { flags & Self.outlierFlag != 0 }

    var descriptor: FrameDescriptor {
        FrameDescriptor(
            rawDelay: flags & Self.hasDelay != 0 ? Int(rawDelay) : nil,
            rect: PixelRect(x: Int(x), y: Int(y), width: Int(width), height: Int(height)),
            disposal: Self.disposals[Int(flags >> 3) & 3],
            transparentIndex: flags & Self.hasTransparency != 0 ? Int(transparentIndex) : nil,
            interlaced: flags & Self.interlaced != 0)
    }
}
