/// Maps rows in the order an image's data stores them to the image's rows: top to bottom, or the four
/// interlace passes (every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1). The
/// decoder asks once per row, so interlaced images cost one comparison chain per row and nothing per pixel.
struct InterlacedRows {
    private let interlaced: Bool
    /// Decode-order index where passes 2, 3 and 4 start.
    private let second: Int, third: Int, fourth: Int

    init(height: Int, interlaced: Bool) {
        self.interlaced = interlaced
        second = (height + 7) / 8
        third = second + (height + 3) / 8
        fourth = third + (height + 1) / 4
    }

    /// The image row stored `decodeRow`-th.
    @inline(__always) func imageRow(_ decodeRow: Int) -> Int {
        guard interlaced else { return decodeRow }
        if decodeRow < second { return decodeRow &* 8 }
        if decodeRow < third { return (decodeRow &- second) &* 8 &+ 4 }
        if decodeRow < fourth { return (decodeRow &- third) &* 4 &+ 2 }
        return (decodeRow &- fourth) &* 2 &+ 1
    }
}
