import ArgumentParser
import GifxKit
import GifxTimeline

/// Library value types parsed straight from the command line.
extension TimelinePolicy: ExpressibleByArgument {}

extension RGBColor: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
    public var defaultValueDescription: String { description }
}

/// `--poster-frame`: a frame number, `middle` or `last`.
struct PosterFrameChoice: ExpressibleByArgument {
    var frame: PosterFrame

    init(frame: PosterFrame) { self.frame = frame }

    init?(argument: String) {
        switch argument {
        case "middle": frame = .middle
        case "last": frame = .last
        default:
            guard let n = Int(argument), n >= 0 else { return nil }
            frame = .index(n)
        }
    }

    var defaultValueDescription: String { "0" }
}
