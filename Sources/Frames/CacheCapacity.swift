import Foundation
import GifxSystem

/// How many composited canvases the producer may hold ahead of the consumer, following the reference
/// player's (FLAnimatedImage) categories by the decoded size of the whole animation.
package enum CacheCapacity {
    static let mebibyte = 1024 * 1024
    /// Up to this total, every frame may be held ("all frames" category).
    package static let allFramesLimit = 10 * mebibyte
    /// Up to this total, `defaultFrames` are held; above it, one ("low-memory mode").
    package static let defaultLimit = 75 * mebibyte
    package static let defaultFrames = 5
    /// Never more canvases than this, whatever their size: each slot is an allocation of its own, so a
    /// million 1×1 frames (4 MB "all frames") would otherwise hold a million slots (~100 MB of overhead).
    package static let maxCanvases = 512

    /// Ring capacity for `frameCount` canvases of `canvasBytes` each. An explicit `memoryBudget` (bytes)
    /// overrides the categories: as many canvases as fit, at least 1. Never more than `frameCount`
    /// or `maxCanvases`.
    package static func capacity(canvasBytes: Int, frameCount: Int, memoryBudget: Int? = nil) -> Int {
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
    package static let tinyCanvasBytes = 16 * 1024
    /// Bytes a ring of tiny canvases may hold beyond its category (1 MiB: 64 canvases of 64×64).
    package static let tinyCanvasFloor = mebibyte

    /// Bytes of canvases the parallel decoder's ring may hold in low-memory mode (8 MiB: 16 canvases of
    /// 480×270, two of 1280×720, one of 1920×1080 and up).
    package static let parallelRingFloor = 8 * mebibyte

    /// Frames decoded ahead per decoding thread, when memory allows.
    package static let windowPerThread = 2

    /// The cores this process may use (the default thread count): affinity mask and cgroup quota
    /// (`ThreadCounts.machine`).
    package static var availableCores: Int { ThreadCounts.machine.cores }

    /// Canvases smaller than this (in pixels: four compositing bands) decode on one thread unless more are
    /// asked for: a small frame decodes in microseconds, less than handing it between threads costs
    /// (measured on 64×64 frames, docs/benchmarks.md).
    package static let minimumParallelPixels = 4 * bandPixels

    /// Composited pixels (frames × canvas pixels) per thread at least, for the default thread count: about a
    /// millisecond of one core's decoding (0.8–1.5 ns a pixel, docs/benchmarks.md), so a short GIF does not
    /// pay for starting threads it cannot keep busy.
    package static let pixelsPerThread = 1 << 20

    /// Threads a stream uses when the caller does not say, chosen from the work: one per `pixelsPerThread`
    /// composited pixels, at most the cores, and one for canvases under `minimumParallelPixels`. Compositing
    /// runs in bands and LZW data frame by frame on every thread, so the work is the pixels, not the data.
    package static func defaultThreads(canvasBytes: Int, frameCount: Int = 1, cores: Int = availableCores) -> Int {
        let pixels = canvasBytes / 4
        guard pixels >= minimumParallelPixels, frameCount > 1 else { return 1 }
        let (work, overflow) = pixels.multipliedReportingOverflow(by: frameCount)
        let wanted = overflow ? Int.max : Swift.max(1, work / pixelsPerThread)
        return Swift.max(1, Swift.min(cores, wanted))
    }

    /// Canvas pixels per compositing band at least (32 KiB of canvas): smaller bands cost more in hand-offs
    /// than they save.
    package static let bandPixels = 8 * 1024
    /// Bands at most, whatever the canvas.
    package static let maxBands = 64

    /// Horizontal bands the parallel decoder composites a canvas in: one per `bandPixels`, at most
    /// `maxBands` and one per row. Independent of the thread count, so the serial fraction measured on a
    /// small machine (`DecodeStats.serialFraction`) holds on a big one.
    package static func bands(width: Int, height: Int) -> Int {
        Swift.max(1, Swift.min(maxBands, height, width * height / bandPixels))
    }

    /// How a stream's memory is split between the canvas ring and the decode-ahead window.
    package struct Plan: Hashable, Sendable {
        /// Canvases the ring may hold.
        package var canvases: Int
        /// Threads decoding, the compositing thread included (1: the sequential decoder).
        package var threads: Int
        /// Frames whose index buffers (canvas width × height bytes each) may be in flight (0 when sequential).
        package var decodeWindow: Int
    }

    /// The ring and decode-ahead window for `threads` decoding threads. The window's index buffers come out
    /// of the same budget as the ring (the category's total, or `memoryBudget`), the ring keeping at least one
    /// canvas. Low-memory mode (no budget given, over `defaultLimit`) keeps one canvas and a window of one
    /// frame per thread, or, for canvases small enough, up to a canvas per thread within `parallelRingFloor`
    /// and the full window: with one slot the bands of
    /// the next frame wait for the consumer to hand back the last one, a wake-up each way per frame, which on
    /// many cores costs more than a small frame's compositing. One thread, or one frame, is the sequential
    /// decoder with no window.
    package static func plan(canvasBytes: Int, frameCount: Int, memoryBudget: Int? = nil, threads: Int) -> Plan {
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
            // The full window when the floor holds two canvases or more (small canvases, whose index buffers
            // are small too), one frame per thread otherwise; an explicit budget of these bytes (the
            // conversion's memory plan) gives the same plan back.
            let ring = Swift.max(1, Swift.min(frames, maxCanvases, threads, parallelRingFloor / canvasBytes))
            let window = ring > 1 ? Swift.min(frames, windowPerThread * threads) : threads
            return Plan(canvases: ring, threads: threads, decodeWindow: window)
        }
        let wanted = Swift.min(frames, windowPerThread * threads)
        let spare = Swift.max(0, budget - canvasBytes) / indexBytes  // index buffers beside one canvas
        let window = Swift.max(threads, Swift.min(wanted, spare))
        let ring = Swift.max(0, budget - window * indexBytes) / canvasBytes
        return Plan(canvases: Swift.max(1, Swift.min(canvases, ring)), threads: threads, decodeWindow: window)
    }
}
