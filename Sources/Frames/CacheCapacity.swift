import Foundation

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
        let category = !overflow && total <= defaultLimit ? Swift.min(frames, defaultFrames) : 1
        // Tiny canvases may fill `tinyCanvasFloor` whatever the category: with one slot, producer and
        // consumer hand over (and sleep) once per frame, which cost more than decoding a 64×64 frame.
        guard canvasBytes <= tinyCanvasBytes else { return category }
        return Swift.max(category, Swift.min(frames, maxCanvases, tinyCanvasFloor / canvasBytes))
    }

    /// Canvases up to this size (64×64 RGBA) get a ring of up to `tinyCanvasFloor` bytes.
    public static let tinyCanvasBytes = 16 * 1024
    /// Bytes a ring of tiny canvases may hold beyond its category (1 MiB: 64 canvases of 64×64).
    public static let tinyCanvasFloor = mebibyte

    /// Frames decoded ahead per decoding thread, when memory allows.
    public static let windowPerThread = 2

    /// The cores this process may use (the default thread count): affinity mask and cgroup quota (`AvailableCores`).
    public static var availableCores: Int { AvailableCores.current.count }

    /// Canvases smaller than this (in pixels) decode on one thread unless more are asked for: a small
    /// frame decodes in microseconds, less than handing it between threads costs (measured on 64×64 frames,
    /// docs/benchmarks.md).
    public static let minimumParallelPixels = 256 * 256

    /// Compressed bytes per composited pixel below which the default is one thread. Decode-ahead moves only
    /// the LZW work to other threads; compositing and the canvas copy stay on the producer, and they grow
    /// with pixels while LZW work grows with compressed bytes. Measured (docs/benchmarks.md): 1280x720x250 at
    /// 0.42 B/px gains from a second thread, 3840x2160x60 at 0.044 and 480x270x200 at 0.077 do not.
    public static let minimumParallelDataPerPixel = 0.15

    /// Threads a stream uses when the caller does not say: every core for large canvases whose data is
    /// dense enough for decode-ahead to pay (`dataBytes`, the image data's size, `nil` when unknown), else one.
    public static func defaultThreads(canvasBytes: Int, frameCount: Int = 1, dataBytes: Int? = nil) -> Int {
        guard canvasBytes / 4 >= minimumParallelPixels else { return 1 }
        if let dataBytes {
            let pixels = Double(canvasBytes / 4) * Double(Swift.max(1, frameCount))
            if Double(dataBytes) / pixels < minimumParallelDataPerPixel { return 1 }
        }
        return availableCores
    }

    /// How a stream's memory is split between the canvas ring and the decode-ahead window.
    public struct Plan: Hashable, Sendable {
        /// Canvases the ring may hold.
        public var canvases: Int
        /// Threads decoding, the compositing thread included (1: the sequential decoder).
        public var threads: Int
        /// Frames whose index buffers (canvas width × height bytes each) may be in flight (0 when sequential).
        public var decodeWindow: Int
    }

    /// The ring and decode-ahead window for `threads` decoding threads. The window's index buffers come out
    /// of the same budget as the ring (the category's total, or `memoryBudget`), the ring keeping at least one
    /// canvas. Low-memory mode (no budget given, over `defaultLimit`) keeps one canvas and a fixed window of
    /// one frame per thread. One thread, or one frame, is today's sequential decoder with no window.
    public static func plan(canvasBytes: Int, frameCount: Int, memoryBudget: Int? = nil, threads: Int) -> Plan {
        let canvases = capacity(canvasBytes: canvasBytes, frameCount: frameCount, memoryBudget: memoryBudget)
        let frames = Swift.max(1, frameCount)
        let threads = Swift.max(1, Swift.min(threads, frames))
        guard threads > 1 else { return Plan(canvases: canvases, threads: 1, decodeWindow: 0) }
        let canvasBytes = Swift.max(1, canvasBytes)
        let indexBytes = Swift.max(1, canvasBytes / 4)
        let (total, overflow) = canvasBytes.multipliedReportingOverflow(by: frames)
        let budget: Int
        if let memoryBudget {
            budget = memoryBudget
        } else if !overflow && total <= allFramesLimit {
            budget = allFramesLimit
        } else if !overflow && total <= defaultLimit {
            budget = defaultFrames * canvasBytes
        } else {
            return Plan(canvases: 1, threads: threads, decodeWindow: threads)
        }
        let wanted = Swift.min(frames, windowPerThread * threads)
        let spare = Swift.max(0, budget - canvasBytes) / indexBytes  // index buffers beside one canvas
        let window = Swift.max(threads, Swift.min(wanted, spare))
        let ring = Swift.max(0, budget - window * indexBytes) / canvasBytes
        return Plan(canvases: Swift.max(1, Swift.min(canvases, ring)), threads: threads, decodeWindow: window)
    }
}
