import GifxTimeline

/// The edit options as their text (docs/edits.md): `--from 1.5 --speed 3/2` on the command line
/// (Sources/gifx/EditOptions.swift) and `from=1.5&speed=3/2` in `gifx serve`'s query and signed options are read
/// by this one parser, with the same error texts; each text names the option as its caller spells it
/// (`EditSpelling`).
package struct EditSettings: Hashable, Sendable {
    package var from: String?
    package var to: String?
    package var speed: String?
    package var crop: String?
    package var reverse = false
    package var boomerang = false

    package init(
        from: String? = nil, to: String? = nil, speed: String? = nil, crop: String? = nil, reverse: Bool = false,
        boomerang: Bool = false
    ) {
        self.from = from; self.to = to; self.speed = speed; self.crop = crop
        self.reverse = reverse; self.boomerang = boomerang
    }

    /// The options' names (`--from`, `from=`).
    package static let keys = ["from", "to", "speed", "crop", "reverse", "boomerang"]

    /// The edit asked for, `nil` when no edit option is given.
    package func edit(_ spelling: EditSpelling) throws(EditSettingsError) -> TimelineEdit? {
        guard from != nil || to != nil || speed != nil || crop != nil || reverse || boomerang else { return nil }
        var edit = TimelineEdit(reverse: reverse, boomerang: boomerang)
        if let from { edit.from = try Self.centiseconds(from, option: "from", spelling) }
        if let to { edit.to = try Self.centiseconds(to, option: "to", spelling) }
        if let speed {
            guard let rate = Self.rational(speed) else {
                throw EditSettingsError("\(spelling.item("speed", speed)): give a positive number or fraction, e.g. 2, 1.5 or 3/2")
            }
            edit.speed = rate
        }
        if let crop {
            guard let rect = Self.rect(crop) else {
                throw EditSettingsError("\(spelling.item("crop", crop)): give WxH+X+Y in canvas pixels, e.g. 320x240+16+8")
            }
            edit.crop = rect
        }
        if let problem = edit.problem { throw EditSettingsError(problem.wording(spelling)) }
        return edit
    }

    /// `12`, `1.5`, `0.25` seconds as centiseconds; finer than 1 cs is refused, not rounded.
    static func centiseconds(_ text: String, option: String, _ spelling: EditSpelling) throws(EditSettingsError) -> Int {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits = { (s: Substring) in !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber } }
        guard digits(parts[0]), parts.count == 1 || digits(parts[1]), parts[0].count <= 9 else {
            throw EditSettingsError("\(spelling.item(option, text)): give seconds, e.g. 1.5 (0 or more)")
        }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 2 else {
            throw EditSettingsError(
                "\(spelling.item(option, text)): GIF times are whole centiseconds; give at most 2 decimals (e.g. \(parts[0]).\(fraction.prefix(2)))")
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

/// How the caller spells an edit option in its texts, given by the caller: the command line's `--from 1.5`
/// (`EditSpelling.commandLine`, Sources/gifx/EditOptions.swift), the query's `from=1.5` (`EditSpelling.query`,
/// Sources/Server/ConvertQuery.swift). The library names options by their bare names (`from`) and knows no flag.
package struct EditSpelling: Sendable {
    /// The option alone: `--from`, `from`.
    package let name: @Sendable (_ option: String) -> String
    /// The option with its value: `--from 1.5`, `from=1.5`.
    package let item: @Sendable (_ option: String, _ value: String) -> String

    package init(
        name: @escaping @Sendable (_ option: String) -> String,
        item: @escaping @Sendable (_ option: String, _ value: String) -> String
    ) {
        self.name = name; self.item = item
    }
}

/// An edit option that does not parse or cannot apply, in the caller's spelling: `convert` prints it after
/// `Error:`, `gifx serve` returns it as its 400's message.
package struct EditSettingsError: Error, CustomStringConvertible, Equatable, Sendable {
    package let description: String
    package init(_ description: String) { self.description = description }
}

extension TimelineEditError {
    /// The problem in the caller's terms (the library's own `description` names no option).
    package func wording(_ spelling: EditSpelling) -> String {
        func seconds(_ cs: Int) -> String { "\(cs / 100).\(cs % 100 < 10 ? "0" : "")\(cs % 100)" }
        func rect(_ r: PixelRect) -> String { "\(r.width)x\(r.height)+\(r.x)+\(r.y)" }
        let item = spelling.item
        switch self {
        case .negativeTime: return "\(spelling.name("from")) and \(spelling.name("to")) must be 0 or more"
        case .emptyCut(let from, let to): return "\(item("to", seconds(to))) must be after \(item("from", seconds(from)))"
        case .cutAfterEnd(let from, let duration):
            return "\(item("from", seconds(from))) is at or after the end of the GIF (\(seconds(duration)) s)"
        case .speed(let speed):
            return "\(item("speed", "\(speed)")): must be positive, numerator and denominator at most \(TimelineEdit.maxSpeedTerm)"
        case .tooFast(let speed, let duration):
            return "\(item("speed", "\(speed)")) leaves less than 1 cs of the \(seconds(duration)) s schedule"
        case .emptyCrop(let r): return "\(item("crop", rect(r))): the width and height must be at least 1"
        case .cropOutside(let r, let canvas):
            return "\(item("crop", rect(r))) reaches outside the \(canvas.width)x\(canvas.height) canvas"
        }
    }
}
