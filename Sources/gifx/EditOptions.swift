import ArgumentParser
import GifxKit
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

    /// The options as the library's parser takes them (Sources/GifxKit/EditSettings.swift, shared with
    /// `gifx serve`'s query).
    var settings: EditSettings {
        EditSettings(from: from, to: to, speed: speed, crop: crop, reverse: reverse, boomerang: boomerang)
    }

    /// The edit asked for, `nil` when no edit option is given; `ValidationError` for bad syntax.
    func edit() throws -> TimelineEdit? {
        do throws(EditSettingsError) { return try settings.edit(.commandLine) } catch { throw ValidationError(error.description) }
    }

    /// The run's settings with the edit (validated already by `validate`).
    func applied(to settings: RunSettings) -> RunSettings {
        var settings = settings
        settings.edit = (try? edit()) ?? nil
        return settings
    }
}

extension TimelineEditError {
    /// The problem in this command line's terms.
    var commandLineWording: String { wording(.commandLine) }
}

extension EditSpelling {
    /// The command line's: `--from`, `--from 1.5`.
    static let commandLine = EditSpelling(name: { "--\($0)" }, item: { "--\($0) \($1)" })
}
