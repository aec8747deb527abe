import ArgumentParser
import GifxEncoders
import GifxTimeline

/// `--from`, `--to`, `--speed`, `--crop`, `--reverse`, `--boomerang`: one edit of the schedule that every
/// output of the run follows (docs/edits.md). Shared by `to-mp4`, `to-sprite`, `convert`, `timeline` and
/// `frames`.
struct EditOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Start the output at this time of the GIF's own schedule, in seconds (at most 2 decimals: the GIF's "
            + "centiseconds); a frame straddling it keeps the part of its delay after it.", valueName: "seconds"))
    var from: String?
    @Option(help: ArgumentHelp(
        "End the output at this time of the GIF's schedule (exclusive; beyond the end: the end); a frame "
            + "straddling it keeps the part of its delay before it.", valueName: "seconds"))
    var to: String?
    @Option(help: ArgumentHelp(
        "Play R times as fast: 2, 1.5 or 3/2 (0.5 or 1/2 is half speed). Applied after the 0/1 cs delays became "
            + "10 cs and after the cut; a frame left with 0 cs is dropped.", valueName: "R"))
    var speed: String?
    @Option(help: ArgumentHelp(
        "Show only this rectangle of the canvas: WxH+X+Y in canvas pixels (inside the canvas).", valueName: "WxH+X+Y"))
    var crop: String?
    @Flag(help: "Play the frames backwards, each keeping its delay.") var reverse = false
    @Flag(help: ArgumentHelp(
        "Play forwards then backwards without repeating the end frames (0 1 … n-1 n-2 … 1), a seamless loop; "
            + "with --reverse: backwards then forwards."))
    var boomerang = false

    func validate() throws { _ = try edit() }

    /// The edit asked for, `nil` when no edit option is given; `ValidationError` for bad syntax.
    func edit() throws -> TimelineEdit? {
        guard from != nil || to != nil || speed != nil || crop != nil || reverse || boomerang else { return nil }
        var edit = TimelineEdit(reverse: reverse, boomerang: boomerang)
        if let from { edit.from = try Self.centiseconds(from, flag: "--from") }
        if let to { edit.to = try Self.centiseconds(to, flag: "--to") }
        if let speed {
            guard let rate = Self.rational(speed) else {
                throw ValidationError("--speed \(speed): give a positive number or fraction, e.g. 2, 1.5 or 3/2")
            }
            edit.speed = rate
        }
        if let crop {
            guard let rect = Self.rect(crop) else {
                throw ValidationError("--crop \(crop): give WxH+X+Y in canvas pixels, e.g. 320x240+16+8")
            }
            edit.crop = rect
        }
        if let problem = edit.problem { throw ValidationError(problem.commandLineWording) }
        return edit
    }

    /// The run's settings with the edit (validated already by `validate`).
    func applied(to settings: RunSettings) -> RunSettings {
        var settings = settings
        settings.edit = (try? edit()) ?? nil
        return settings
    }

    /// `12`, `1.5`, `0.25` seconds as centiseconds; finer than 1 cs is refused, not rounded.
    static func centiseconds(_ text: String, flag: String) throws -> Int {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits = { (s: Substring) in !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber } }
        guard digits(parts[0]), parts.count == 1 || digits(parts[1]), parts[0].count <= 9 else {
            throw ValidationError("\(flag) \(text): give seconds, e.g. 1.5 (0 or more)")
        }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 2 else {
            throw ValidationError(
                "\(flag) \(text): GIF times are whole centiseconds; give at most 2 decimals (e.g. \(parts[0]).\(fraction.prefix(2)))")
        }
        return Int(parts[0])! * 100 + Int(fraction.padding(toLength: 2, withPad: "0", startingAt: 0))!
    }

    /// `2`, `1.5`, `3/2` as an exact positive rational (decimals up to 6 places).
    static func rational(_ text: String) -> Rational? {
        let maxTerm = TimelineEdit.maxSpeedTerm
        let slash = text.split(separator: "/", omittingEmptySubsequences: false)
        if slash.count == 2 {
            guard let num = Int(slash[0]), let den = Int(slash[1]), num > 0, den > 0, num <= maxTerm, den <= maxTerm
            else { return nil }
            return Rational(num, den)
        }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits = { (s: Substring) in !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber } }
        guard slash.count == 1, digits(parts[0]), parts.count == 1 || digits(parts[1]) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 6, parts[0].count <= 6 else { return nil }
        var scale = 1
        for _ in 0..<fraction.count { scale *= 10 }
        let rate = Rational(Int(parts[0])! * scale + (Int(fraction) ?? 0), scale)
        guard rate.num > 0, rate.num <= maxTerm, rate.den <= maxTerm else { return nil }
        return rate
    }

    /// `WxH+X+Y`.
    static func rect(_ text: String) -> PixelRect? {
        let size = text.split(separator: "+", omittingEmptySubsequences: false)
        guard size.count == 3 else { return nil }
        let wh = size[0].split(separator: "x", omittingEmptySubsequences: false)
        guard wh.count == 2 else { return nil }
        let numbers = [wh[0], wh[1], size[1], size[2]].map { part -> Int? in
            guard !part.isEmpty, part.count <= 9, part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(part)
        }
        guard let w = numbers[0], let h = numbers[1], let x = numbers[2], let y = numbers[3] else { return nil }
        return PixelRect(x: x, y: y, width: w, height: h)
    }
}

extension TimelineEditError {
    /// The problem in this command line's terms.
    var commandLineWording: String {
        func seconds(_ cs: Int) -> String { "\(cs / 100).\(cs % 100 < 10 ? "0" : "")\(cs % 100)" }
        func rect(_ r: PixelRect) -> String { "\(r.width)x\(r.height)+\(r.x)+\(r.y)" }
        switch self {
        case .negativeTime: return "--from and --to must be 0 or more"
        case .emptyCut(let from, let to): return "--to \(seconds(to)) must be after --from \(seconds(from))"
        case .cutAfterEnd(let from, let duration):
            return "--from \(seconds(from)) is at or after the end of the GIF (\(seconds(duration)) s)"
        case .speed(let speed):
            return "--speed \(speed): must be positive, numerator and denominator at most \(TimelineEdit.maxSpeedTerm)"
        case .tooFast(let speed, let duration):
            return "--speed \(speed) leaves less than 1 cs of the \(seconds(duration)) s schedule"
        case .emptyCrop(let r): return "--crop \(rect(r)): the width and height must be at least 1"
        case .cropOutside(let r, let canvas):
            return "--crop \(rect(r)) reaches outside the \(canvas.width)x\(canvas.height) canvas"
        }
    }
}
