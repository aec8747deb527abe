/// The schedule as a picture (SVG): each frame a bar exactly as wide as its resolved delay, coloured and labelled
/// by the rule that gave the delay (the names of `timeline`'s `rule` column), the tick grid and the loop count;
/// with `tracks`, each output's frame starts marked against the schedule and its per-frame pixel error
/// (`gifx verify --report`). Pure: it returns text, and every name in it goes through `MarkupText`.
///
/// Bars are drawn in the timeline's own units: a nested `<svg>` whose `viewBox` spans the play in `1 / timescale` s
/// holds each bar at `x = start`, `width = delay` (integers), and is stretched to `plotWidth` pixels, so widths are
/// exactly proportional to the delays whatever the scale. Lines there keep one pixel (`non-scaling-stroke`).
package struct TimelinePicture: Sendable {
    /// One output read back (`gifx verify`): where each of its frames starts and how far its pixels are from the
    /// GIF frame the schedule shows then.
    package struct Track: Sendable {
        /// One output frame: its start in milliseconds (as the verifier measures it), the GIF frame it was matched
        /// to (`nil`: past the schedule's end), its PSNR in dB (`nil`: identical), and whether it passed the pixel check.
        package struct Frame: Sendable {
            package var startMilliseconds: Double
            package var gifFrame: Int?
            package var psnr: Double?
            package var passed: Bool
            package init(startMilliseconds: Double, gifFrame: Int?, psnr: Double?, passed: Bool) {
                self.startMilliseconds = startMilliseconds; self.gifFrame = gifFrame; self.psnr = psnr
                self.passed = passed
            }
        }

        /// The output's name (a path), shown escaped.
        package var name: String
        /// One line under the name (codec, size, verdict).
        package var caption: String
        /// Plays of the schedule the output holds (the track spans them all).
        package var plays: Int
        /// The lowest PSNR accepted, drawn as a dashed line; `nil`: exact comparison.
        package var bound: Double?
        package var frames: [Frame]

        package init(name: String, caption: String, plays: Int, bound: Double?, frames: [Frame]) {
            self.name = name; self.caption = caption; self.plays = max(1, plays); self.bound = bound
            self.frames = frames
        }
    }

    package let timeline: Timeline
    /// The heading (the input's name), shown escaped.
    package let title: String
    /// Width of the whole picture in pixels.
    package let width: Int
    /// The most grid lines drawn across one play: past it the grid shows every n-th tick (the legend says which).
    package static let maximumGridLines = 200
    /// PSNR at or above this is drawn at the top of an error strip (identical frames too).
    package static let psnrCeiling = 60.0

    package init(timeline: Timeline, title: String, width: Int = 960) {
        self.timeline = timeline
        self.title = title
        self.width = max(320, width)
    }

    private var margin: Int { 12 }
    private var plotWidth: Int { width - 2 * margin }

    /// The ticks between grid lines: 1, or the least multiple that keeps a play under `maximumGridLines` lines.
    package var ticksPerGridLine: Int {
        let ticks = max(1, timeline.duration.units / max(1, timeline.tick.units))
        return (ticks + Self.maximumGridLines - 1) / Self.maximumGridLines
    }

    /// The colour of each rule's bars (raw is the plain one: the others changed the delay).
    package static func colour(of rule: DelayRule) -> String {
        switch rule {
        case .raw: "#4c78a8"
        case .roundedUp: "#f58518"
        case .carried: "#54a24b"
        case .default: "#b279a2"
        case .truncated: "#e45756"
        }
    }

    /// `loops forever (loop count 0)`, `plays 3 times (loop count 2)`, `plays once (no loop extension)`: as
    /// `gifx timeline`'s summary words it.
    package var loopWording: String {
        let plays = timeline.loop.plays.map { $0 == 1 ? "plays once" : "plays \($0) times" } ?? "loops forever"
        let count = timeline.loop.count.map { "loop count \($0)" } ?? "no loop extension"
        return "\(plays) (\(count))"
    }

    /// A time in the schedule's units as `1.17 s` (at least two decimals, as many as it needs to the microsecond).
    package func seconds(_ units: Int) -> String {
        ((try? MediaTime(units, timescale: timeline.timescale).decimalSeconds()) ?? "\(units) × 1/\(timeline.timescale)")
            + " s"
    }

    private var unitName: String {
        switch timeline.timescale {
        case 100: "cs"
        case 1000: "ms"
        default: "× 1/\(timeline.timescale) s"
        }
    }

    /// The whole picture as a standalone SVG document (with its XML declaration).
    package func svgDocument(tracks: [Track] = []) -> String {
        var text = ""
        write(tracks: tracks, declaration: true) { text += $0 }
        return text
    }

    /// The `<svg>` element alone (for an HTML page).
    package func svg(tracks: [Track] = []) -> String {
        var text = ""
        write(tracks: tracks, declaration: false) { text += $0 }
        return text
    }

    /// Heights of the parts, in pixels: the heading, caption, schedule and legend; one output's track; the margin below.
    private static let headHeight = 144, trackHeight = 142, footHeight = 12

    /// Writes the picture to `sink` in pieces of about 64 KiB, so a schedule of millions of frames is never one string
    /// (as `timeline`'s table is written); `declaration`: with the XML declaration, as a file of its own.
    package func write(tracks: [Track] = [], declaration: Bool, to sink: @escaping (String) -> Void) {
        let out = TextPieces(sink)
        let height = Self.headHeight + tracks.count * Self.trackHeight + Self.footHeight
        if declaration { out.add("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n") }
        out.add("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"gifx-timeline\" width=\"\(width)\" height=\"\(height)\" "
            + "viewBox=\"0 0 \(width) \(height)\" role=\"img\">\n<title>\(MarkupText.escaped(title))</title>\n")
        out.add("""
            <style>
            .title{font:bold 15px sans-serif}.caption,.legend,.axis{font:12px sans-serif;fill:#333}
            .rule-label{font:10px sans-serif;fill:#000}.frame{stroke:#fff;stroke-width:1}
            .tick{stroke:#999;stroke-width:1;stroke-opacity:.5}.start{stroke:#d62728;stroke-width:1}
            .start.failed{stroke:#000;stroke-width:2}.psnr{stroke:#1f77b4;stroke-width:2}
            .psnr.failed{stroke:#d62728}.bound{stroke:#d62728;stroke-dasharray:4 3;stroke-width:1}
            .strip{fill:#f4f4f4}
            </style>

            """)
        var y = 24
        out.add(text(x: margin, y: y, MarkupText.escaped(title), cls: "title"))
        y += 20
        let t = timeline
        let fps = t.tick.fps.den == 1 ? "\(t.tick.fps.num)" : "\(t.tick.fps.num)/\(t.tick.fps.den)"
        let grid = ticksPerGridLine == 1 ? "grid: every tick" : "grid: every \(ticksPerGridLine) ticks"
        let caption = "\(t.frames.count) frame\(t.frames.count == 1 ? "" : "s"), \(seconds(t.duration.units)), "
            + "tick \(t.tick.units) \(unitName) (\(fps) fps), \(loopWording), policy \(t.policy.rawValue); \(grid)"
        out.add(text(x: margin, y: y, MarkupText.escaped(caption), cls: "caption"))
        y += 12
        scheduleRow(y: y, plays: 1, height: 48, labelled: true, into: out)
        y += 48 + 34
        y = legend(y: y, into: out)
        assert(y == Self.headHeight)
        for track in tracks {
            y += 20
            trackRows(track, y: &y, into: out)
        }
        y += Self.footHeight
        assert(y == height)
        out.add("</svg>\n")
        out.finish()
    }

    /// The schedule's bars (repeated `plays` times), the grid, and under them the rule of each bar wide enough.
    private func scheduleRow(y: Int, plays: Int, height: Int, labelled: Bool, faint: Bool = false, into out: TextPieces) {
        let play = max(1, timeline.duration.units)
        let span = play * plays
        out.add("<svg class=\"schedule\" x=\"\(margin)\" y=\"\(y)\" width=\"\(plotWidth)\" height=\"\(height)\" "
            + "viewBox=\"0 0 \(span) \(height)\" preserveAspectRatio=\"none\" data-plays=\"\(plays)\">\n")
        for p in 0..<plays {
            for frame in timeline.frames {
                let x = p * play + frame.start
                let raw = frame.rawDelay.map { "\($0)" } ?? "none"
                let tip = "frame \(frame.index): starts \(seconds(frame.start)), delay \(frame.delay) \(unitName) "
                    + "(\(frame.rule.rawValue); raw \(raw))"
                out.add("<rect class=\"frame rule-\(frame.rule.rawValue)\" x=\"\(x)\" y=\"0\" width=\"\(frame.delay)\" "
                    + "height=\"\(height)\" fill=\"\(Self.colour(of: frame.rule))\"\(faint ? " fill-opacity=\".35\"" : "") "
                    + "vector-effect=\"non-scaling-stroke\" data-frame=\"\(frame.index)\" data-rule=\"\(frame.rule.rawValue)\">"
                    + "<title>\(MarkupText.escaped(tip))</title></rect>\n")
            }
        }
        let step = max(1, timeline.tick.units) * ticksPerGridLine
        var tick = step
        while tick < span {
            out.add("<line class=\"tick\" x1=\"\(tick)\" y1=\"0\" x2=\"\(tick)\" y2=\"\(height)\" vector-effect=\"non-scaling-stroke\"/>\n")
            tick += step
        }
        out.add("</svg>\n")
        guard labelled else { return }
        // Rule names under the bars that a rule other than raw changed, where the bar leaves room for the word.
        let pixelsPerUnit = Double(plotWidth) / Double(span)
        for frame in timeline.frames where frame.rule != .raw {
            let barPixels = Double(frame.delay) * pixelsPerUnit
            guard barPixels >= Double(frame.rule.rawValue.count) * 6 else { continue }
            let centre = Double(margin) + (Double(frame.start) + Double(frame.delay) / 2) * pixelsPerUnit
            out.add("<text class=\"rule-label\" x=\"\(Self.decimal(centre, places: 2))\" y=\"\(y + height / 2 + 4)\" "
                + "text-anchor=\"middle\">\(frame.rule.rawValue)</text>\n")
        }
        out.add(text(x: margin, y: y + height + 12, "0 s", cls: "axis"))
        out.add("<text class=\"axis\" x=\"\(margin + plotWidth)\" y=\"\(y + height + 12)\" text-anchor=\"end\">"
            + "\(seconds(span))</text>\n")
    }

    /// One swatch per rule the schedule uses, named as the table's `rule` column names it.
    private func legend(y: Int, into out: TextPieces) -> Int {
        var x = margin
        let used = DelayRule.allCases.filter { rule in timeline.frames.contains { $0.rule == rule } }
        for rule in used {
            out.add("<rect class=\"swatch\" x=\"\(x)\" y=\"\(y - 10)\" width=\"12\" height=\"12\" fill=\"\(Self.colour(of: rule))\"/>")
            out.add(text(x: x + 16, y: y, rule.rawValue, cls: "legend"))
            x += 28 + rule.rawValue.count * 7
        }
        return y + 6
    }

    /// An output's rows: its name and caption, the schedule (faint) with a mark at each output frame's start, and a
    /// strip with each frame's PSNR (higher is closer; identical at the top) and the bound.
    private func trackRows(_ track: Track, y: inout Int, into pieces: TextPieces) {
        var out = "<g class=\"track\" data-output=\"\(MarkupText.escaped(track.name))\">\n"
        out += text(x: margin, y: y, MarkupText.escaped(track.name), cls: "title")
        y += 16
        out += text(x: margin, y: y, MarkupText.escaped(track.caption), cls: "caption")
        y += 8
        let play = max(1, timeline.duration.units)
        let span = play * track.plays
        // Milliseconds to the schedule's units, whatever they are.
        let millisecondsPerUnit = timeline.milliseconds(1)
        func units(_ milliseconds: Double) -> Double { milliseconds / millisecondsPerUnit }
        pieces.add(out)
        out = ""
        scheduleRow(y: y, plays: track.plays, height: 28, labelled: false, faint: true, into: pieces)
        // The starts, over the schedule's bars: one line per output frame.
        out += "<svg class=\"starts\" x=\"\(margin)\" y=\"\(y)\" width=\"\(plotWidth)\" height=\"28\" "
            + "viewBox=\"0 0 \(span) 28\" preserveAspectRatio=\"none\">\n"
        for (index, frame) in track.frames.enumerated() {
            let x = Self.decimal(units(frame.startMilliseconds), places: 4)
            let shown = frame.gifFrame.map { "GIF frame \($0)" } ?? "past the schedule's end"
            out += "<line class=\"start\(frame.passed ? "" : " failed")\" x1=\"\(x)\" y1=\"0\" x2=\"\(x)\" y2=\"28\" "
                + "vector-effect=\"non-scaling-stroke\" data-output-frame=\"\(index)\"><title>output frame \(index) at "
                + "\(Self.decimal(frame.startMilliseconds, places: 3)) ms: \(shown)</title></line>\n"
        }
        out += "</svg>\n"
        y += 28 + 6
        // The error strip: PSNR from 0 (bottom) to the ceiling (top), a step from each start to the next.
        let strip = 48
        let ceiling = Self.psnrCeiling
        func level(_ psnr: Double?) -> String {
            let value = min(ceiling, max(0, psnr ?? ceiling))
            return Self.decimal(Double(strip) * (1 - value / ceiling), places: 2)
        }
        out += "<svg class=\"errors\" x=\"\(margin)\" y=\"\(y)\" width=\"\(plotWidth)\" height=\"\(strip)\" "
            + "viewBox=\"0 0 \(span) \(strip)\" preserveAspectRatio=\"none\">\n"
        out += "<rect class=\"strip\" x=\"0\" y=\"0\" width=\"\(span)\" height=\"\(strip)\"/>\n"
        if let bound = track.bound {
            out += "<line class=\"bound\" x1=\"0\" y1=\"\(level(bound))\" x2=\"\(span)\" y2=\"\(level(bound))\" "
                + "vector-effect=\"non-scaling-stroke\"/>\n"
        }
        for (index, frame) in track.frames.enumerated() {
            let start = units(frame.startMilliseconds)
            let end = index + 1 < track.frames.count ? units(track.frames[index + 1].startMilliseconds) : Double(span)
            let value = frame.psnr.map { Self.decimal($0, places: 2) + " dB" } ?? "identical"
            out += "<line class=\"psnr\(frame.passed ? "" : " failed")\" x1=\"\(Self.decimal(start, places: 4))\" "
                + "y1=\"\(level(frame.psnr))\" x2=\"\(Self.decimal(max(start, end), places: 4))\" y2=\"\(level(frame.psnr))\" "
                + "vector-effect=\"non-scaling-stroke\" data-output-frame=\"\(index)\"><title>output frame \(index): "
                + "\(value)</title></line>\n"
        }
        out += "</svg>\n"
        y += strip + 12
        let boundText = track.bound.map { ", bound \(Self.decimal($0, places: 1)) dB (dashed)" } ?? ", exact"
        out += text(
            x: margin, y: y,
            "PSNR per output frame, 0 to \(Int(ceiling)) dB (identical at the top)\(boundText)", cls: "axis")
        y += 4
        out += "</g>\n"
        pieces.add(out)
    }

    private func text(x: Int, y: Int, _ escapedText: String, cls: String) -> String {
        "<text class=\"\(cls)\" x=\"\(x)\" y=\"\(y)\">\(escapedText)</text>\n"
    }

    /// `value` with at most `places` decimals, no exponent, no trailing zeros (`12.5`, `3`, `0.0417`).
    package static func decimal(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let negative = value < 0 && scaled != 0
        let whole = Int(scaled / scale)
        var fraction = Int(scaled - Double(whole) * scale)
        var digits = ""
        for _ in 0..<places {
            digits = String(fraction % 10) + digits
            fraction /= 10
        }
        while digits.hasSuffix("0") { digits.removeLast() }
        return (negative ? "-" : "") + "\(whole)" + (digits.isEmpty ? "" : "." + digits)
    }
}

/// Text handed to a sink in pieces of about 64 KiB.
final class TextPieces {
    private var buffer = ""
    private let sink: (String) -> Void

    init(_ sink: @escaping (String) -> Void) { self.sink = sink }

    func add(_ text: String) {
        buffer += text
        if buffer.utf8.count >= 1 << 16 {
            sink(buffer)
            buffer = ""
        }
    }

    func finish() {
        if !buffer.isEmpty { sink(buffer) }
        buffer = ""
    }
}
