import ArgumentParser
import GifxEncoders
import GifxTimeline

/// Library value types parsed straight from the command line.
extension TimelinePolicy: ExpressibleByArgument {}

extension RGBColor: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
    public var defaultValueDescription: String { description }
}
