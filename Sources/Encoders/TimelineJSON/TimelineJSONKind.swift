import GifxPipeline
extension OutputKind {
    /// The schedule as JSON (schema gifx.timeline/1), as `timeline --json` prints it.
    package static let timelineJSON = OutputKind(
        name: "timeline", displayName: "timeline JSON",
        summary: "the schedule as JSON (gifx.timeline/1), as timeline --json prints it",
        prefixNames: ["timeline", "json"], extensions: [".timeline.json"], mediaType: "application/json", settings: [],
        // Any JSON is read as a sheet's description.
        reader: .sheetDescription, isText: true
    ) { build throws(OutputRuleError) in .timelineJSON(target: build.target) }
}

extension OutputRequest {
    /// The schedule as JSON (`TimelineJSONSink`).
    public static func timelineJSON(target: OutputTarget) -> OutputRequest {
        OutputRequest(kind: OutputKind.timelineJSON.name, target: target) { TimelineJSONSink(target: target, context: $0) }
    }
}

/// What a timeline JSON output wrote.
package struct TimelineJSONResult: ReportedOutput {
    package var path: String
    package var paths: [String] { [path] }
    package var stats: OutputStats { OutputStats(kind: OutputKind.timelineJSON.statsName, paths: paths) }
}
