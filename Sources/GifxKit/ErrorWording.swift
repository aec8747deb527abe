import GifxEncoders
import GifxTimeline

extension VideoPlanError {
    /// The problem and what would work instead, in the caller's terms: the command line's flags (`--vfr`,
    /// `--fps 1`), or `gifx serve`'s query (`fps=vfr`, `fps=1`). The library's `description` states the facts
    /// alone and names neither.
    package func wording(_ spelling: EditSpelling) -> String {
        let commandLine = spelling == .commandLine
        switch remedy {
        case nil:
            return description
        case .resize:
            return "\(description); use " + (commandLine ? "--scale, --width or --height" : "scale, width or height")
        case .shorterFrames(let longest):
            let rate = Rational(longest.den, longest.num)
            return "\(description): use "
                + (commandLine ? "--vfr, or --fps \(rate) or faster" : "fps=vfr, or fps=\(rate) or faster")
        case .stillOutput:
            return "\(description): "
                + (commandLine ? "write .webp, .png or .jpg instead" : "ask for format=webp or format=jpg instead")
        }
    }
}
