/// One x264 or x265 private parameter: one `key=value` item of the `x264-params` / `x265-params` option.
/// Only the parameters gifx sets have cases; `reported` holds an item read back from a report as it was
/// written (`EncoderTuning`'s `Decodable`), never one gifx sets.
package enum EncoderParameter: Sendable, Hashable {
    /// x264's `level` (the `level_idc` written into the SPS).
    case level(LevelRequest)
    /// x265's `level-idc`.
    case levelIDC(LevelRequest)
    /// x265's `high-tier` (false: the Main tier).
    case highTier(Bool)
    /// The VBV's maximum rate (kbit/s) and buffer size (kbit).
    case vbvMaxRate(Int)
    case vbvBufferSize(Int)
    /// x264's `b-pyramid`.
    case bPyramid(BPyramid)
    /// Reference frames.
    case ref(Int)
    /// Consecutive B-frames at most.
    case bframes(Int)
    /// x264's implicit weighted bi-prediction (`weightb`; off for B-frame repeats: its weights follow picture order
    /// counts, which the repeats rescale).
    case weightedBiprediction(Bool)
    /// x264's direct motion vector prediction in B-frames (`direct`; spatial for B-frame repeats, whose
    /// rescaled picture order counts temporal prediction would scale by).
    case directPrediction(DirectPrediction)
    /// x265's temporal motion vector prediction (off for repeat pictures: a repeat would be the collocated picture).
    case temporalMVP(Bool)
    /// x265's CU-tree (off at widths up to 48, where libx265's writes out of bounds: `HEVCCodec.tuningLadder`).
    case cuTree(Bool)
    /// x265's wavefront parallel processing (`wpp`; off for repeat pictures, which carry no entry points).
    case wavefronts(Bool)
    /// Frames the rate control looks ahead.
    case rcLookahead(Int)
    /// x264's `psy-rd` (psychovisual rate-distortion strength, psy-trellis strength).
    case psyRD(Double, Double)
    /// x264's `chroma-qp-offset`.
    case chromaQPOffset(Int)
    /// x264's `sync-lookahead`: frames of lookahead buffered for its own thread (0: none).
    case syncLookahead(Int)
    /// x264's sliced threads: one frame in flight, its slices coded in parallel.
    case slicedThreads
    /// x265's own log level.
    case logLevel(X265LogLevel)
    /// x265's thread pool size.
    case pools(Int)
    /// x265's frames coded in parallel.
    case frameThreads(Int)
    /// The pass of a two-pass encode (1 writes `stats`, 2 reads it), its statistics file, and the
    /// second pass's average bit rate (kbit/s).
    case pass(Int)
    case stats(path: String)
    case bitrate(Int)
    /// A `key=value` item (or a bare item) read back from a report, kept as written.
    case reported(String)

    /// x264's `direct` modes.
    package enum DirectPrediction: String, Sendable, Hashable {
        case none, spatial, temporal, auto
    }

    /// x264's `b-pyramid` modes.
    package enum BPyramid: String, Sendable, Hashable {
        case none, strict, normal
    }

    /// x265's `log-level` names.
    package enum X265LogLevel: String, Sendable, Hashable {
        case none, error, warning, info, debug, full
    }

    /// The parameter's name, as the encoder reads it (what a later item replaces an earlier one by).
    package var key: String {
        switch self {
        case .level: "level"
        case .levelIDC: "level-idc"
        case .highTier: "high-tier"
        case .vbvMaxRate: "vbv-maxrate"
        case .vbvBufferSize: "vbv-bufsize"
        case .bPyramid: "b-pyramid"
        case .ref: "ref"
        case .bframes: "bframes"
        case .weightedBiprediction: "weightb"
        case .directPrediction: "direct"
        case .temporalMVP: "temporal-mvp"
        case .cuTree: "cutree"
        case .wavefronts: "wpp"
        case .rcLookahead: "rc-lookahead"
        case .psyRD: "psy-rd"
        case .chromaQPOffset: "chroma-qp-offset"
        case .syncLookahead: "sync-lookahead"
        case .slicedThreads: "sliced-threads"
        case .logLevel: "log-level"
        case .pools: "pools"
        case .frameThreads: "frame-threads"
        case .pass: "pass"
        case .stats: "stats"
        case .bitrate: "bitrate"
        case .reported(let item): item.split(separator: "=", maxSplits: 1).first.map(String.init) ?? item
        }
    }

    /// The `key=value` text the encoder is given.
    package var rendered: String {
        switch self {
        case .level(let level), .levelIDC(let level): "\(key)=\(level)"
        case .highTier(let on), .temporalMVP(let on), .cuTree(let on), .wavefronts(let on),
             .weightedBiprediction(let on): "\(key)=\(on ? 1 : 0)"
        case .vbvMaxRate(let n), .vbvBufferSize(let n), .ref(let n), .bframes(let n), .rcLookahead(let n),
             .syncLookahead(let n), .pools(let n), .frameThreads(let n), .pass(let n), .bitrate(let n),
             .chromaQPOffset(let n):
            "\(key)=\(n)"
        case .psyRD(let rd, let trellis): "\(key)=\(rd),\(trellis)"
        case .bPyramid(let mode): "\(key)=\(mode.rawValue)"
        case .directPrediction(let mode): "\(key)=\(mode.rawValue)"
        case .slicedThreads: "\(key)=1"
        case .logLevel(let level): "\(key)=\(level.rawValue)"
        case .stats(let path): "\(key)=\(path)"
        case .reported(let item): item
        }
    }
}

/// The x264/x265 private parameters of an encode, in order: the encoder reads them left to right, so where
/// a key appears twice the later item wins (a `--level`'s `ref=2` followed by a leaner setting's `ref=1`).
/// Built as values and rendered to the `key=value:key=value` text once, for the libavcodec option and the
/// report (`EncoderTuning.options`, `params`).
package struct EncoderParameters: Sendable, Hashable, ExpressibleByArrayLiteral {
    package private(set) var items: [EncoderParameter]

    package init(_ items: [EncoderParameter] = []) { self.items = items }
    package init(arrayLiteral items: EncoderParameter...) { self.items = items }

    package var isEmpty: Bool { items.isEmpty }

    /// Adds `item` after the others (where its key was set before, the encoder takes this one).
    package mutating func append(_ item: EncoderParameter) { items.append(item) }

    /// `lhs`' items followed by `rhs`', every one kept (a later item of the same key wins in the encoder).
    package static func + (lhs: EncoderParameters, rhs: EncoderParameters) -> EncoderParameters {
        EncoderParameters(lhs.items + rhs.items)
    }

    /// These items without any of `replacements`' keys, then `replacements`: each key set once, to its new value.
    package func replacing(with replacements: EncoderParameters) -> EncoderParameters {
        let keys = Set(replacements.items.map(\.key))
        return EncoderParameters(items.filter { !keys.contains($0.key) } + replacements.items)
    }

    /// The rate-control lookahead the encoder runs with: the last `rc-lookahead` item, `nil` when none is set
    /// (the preset's own). Parameters read back from a report have it as the text they were written as.
    package var lookahead: Int? {
        for item in items.reversed() {
            switch item {
            case .rcLookahead(let frames): return frames
            case .reported(let text) where item.key == "rc-lookahead": return Int(text.dropFirst("rc-lookahead=".count))
            default: continue
            }
        }
        return nil
    }

    /// `key=value:key=value`, as the `x264-params` / `x265-params` option takes it; empty when there are none.
    package var rendered: String { items.map(\.rendered).joined(separator: ":") }

    /// Parameters read back from a report's rendered text, each item kept as written (`reported`).
    init(reported text: String) {
        items = text.isEmpty ? [] : text.split(separator: ":", omittingEmptySubsequences: false).map {
            .reported(String($0))
        }
    }
}
