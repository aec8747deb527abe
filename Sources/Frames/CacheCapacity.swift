/// How many composited canvases the producer may hold ahead of the consumer, following the reference
/// player's (FLAnimatedImage) categories by the decoded size of the whole animation.
public enum CacheCapacity {
    static let mebibyte = 1024 * 1024
    /// Up to this total, every frame may be held ("all frames" category).
    public static let allFramesLimit = 10 * mebibyte
    /// Up to this total, `defaultFrames` are held; above it, one ("low-memory mode").
    public static let defaultLimit = 75 * mebibyte
    public static let defaultFrames = 5
    /// Never more canvases than this, whatever their size: each slot is an allocation of its own, so a
    /// million 1×1 frames (4 MB "all frames") would otherwise hold a million slots (~100 MB of overhead).
    public static let maxCanvases = 512

    /// Ring capacity for `frameCount` canvases of `canvasBytes` each. An explicit `memoryBudget` (bytes)
    /// overrides the categories: as many canvases as fit, at least 1. Never more than `frameCount`
    /// or `maxCanvases`.
    public static func capacity(canvasBytes: Int, frameCount: Int, memoryBudget: Int? = nil) -> Int {
        let frames = Swift.max(1, frameCount)
        let canvasBytes = Swift.max(1, canvasBytes)
        if let memoryBudget {
            return Swift.min(frames, maxCanvases, Swift.max(1, memoryBudget / canvasBytes))
        }
        // The category follows the whole animation's size; the slot count is capped afterwards.
        let (total, overflow) = canvasBytes.multipliedReportingOverflow(by: frames)
        if !overflow && total <= allFramesLimit { return Swift.min(frames, maxCanvases) }
        if !overflow && total <= defaultLimit { return Swift.min(frames, defaultFrames) }
        return 1
    }
}
