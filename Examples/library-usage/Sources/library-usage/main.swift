// gifx as a library: read a GIF's exact schedule, convert it to an MP4 and a sprite sheet with a
// progress callback, then start a second (long) conversion, cancel it halfway, and show that nothing of
// it is left behind. Exits 1 if any of that does not hold, so `make test` can run it as a check.
//
//   swift run --package-path Examples/library-usage library-usage GIF OUTPUT_FOLDER
import Foundation
import GifxKit

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: library-usage GIF OUTPUT_FOLDER")
    exit(64)
}
let input = GifInput.path(arguments[1])
let folder = URL(fileURLWithPath: arguments[2])
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
func fail(_ message: String) -> Never {
    print("library-usage: FAILED: \(message)")
    exit(1)
}

let converter = GifConverter()

// 1. The schedule, as the reference player shows it.
let timeline = try converter.timeline(of: input)
print("timeline: \(timeline.frames.count) frames, tick \(timeline.tick.units) cs (\(timeline.tick.fps) fps), "
    + "\(timeline.duration.units) cs per play")
for frame in timeline.frames {
    print("  frame \(frame.index): starts at \(frame.start) cs, shows for \(frame.delay) cs (\(frame.rule.rawValue))")
}

// 2. One decode, two outputs, with progress.
let report = try await converter.convert(
    input,
    to: [
        .video(target: .file(path("clip.mp4")), options: VideoSettings()),
        .spriteSheet(SpriteOptions(png: .file(path("sheet.png")), json: .file(path("sheet.json")))),
    ],
    progress: { update in
        if update.canvasesDone == update.canvasesTotal || update.canvasesDone % 4 == 0 {
            print("converting: \(update.canvasesDone)/\(update.canvasesTotal) canvases")
        }
    })
for output in report.outputs {
    switch output {
    case let video as VideoResult:
        print("wrote \(video.target): \(video.summary.outputFrames) frames at \(video.frameRate) fps")
    case let sheet as SpriteResult:
        print("wrote \(sheet.pagePaths.joined(separator: ", ")) + \(sheet.jsonPath): \(sheet.cells) cells")
    default:
        print("wrote \(output.paths.joined(separator: ", "))")
    }
}
let written = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
guard written == ["clip.mp4", "sheet.json", "sheet.png"] else { fail("first conversion wrote \(written)") }

// 3. A long conversion (the animation 500 times over), cancelled once it is halfway.
let (halfway, reachedHalfway) = AsyncStream<Void>.makeStream()
let long = Task {
    try await converter.convert(
        input, to: [.video(target: .file(path("long.mp4")), options: VideoSettings(preset: "ultrafast", loops: 500))],
        progress: { update in
            if update.fraction >= 0.5 { reachedHalfway.yield() }
        })
}
for await _ in halfway { break }
long.cancel()
do {
    _ = try await long.value
    fail("the cancelled conversion finished")
} catch is CancellationError {
    print("second conversion: cancelled halfway")
}
let after = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
guard after == written else { fail("after the cancelled conversion the folder holds \(after)") }
print("nothing left behind: \(folder.path) holds \(after.joined(separator: ", "))")
print("library-usage: OK")
