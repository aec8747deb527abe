import GifxTimeline

/// A full-canvas 4×4 frame with the given raw GCE delay (`nil`: no GCE).
func frame(_ rawDelay: Int?) -> FrameDescriptor {
    FrameDescriptor(rawDelay: rawDelay, rect: PixelRect(x: 0, y: 0, width: 4, height: 4))
}

/// A schedule input from raw delays, as the parser would hand it over.
func input(_ rawDelays: [Int?], loopCount: Int? = nil, followsDroppedFrame: Set<Int> = []) -> TimelineInput {
    TimelineInput(
        canvas: CanvasSize(width: 4, height: 4), loopCount: loopCount, frames: rawDelays.map(frame),
        followsDroppedFrame: followsDroppedFrame)
}

/// Start of each frame: running sum of the given (expected) delays, computed here, not by `Timeline`.
func prefixStarts(_ delays: [Int]) -> [Int] {
    var starts: [Int] = []
    var time = 0
    for delay in delays {
        starts.append(time)
        time += delay
    }
    return starts
}
