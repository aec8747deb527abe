// The GifxKit delivery path of the conformance matrix (Tests/ConformanceMatrix): converts through the library's
// public API only, as an app or a server linking GifxKit would. One job per line on standard input,
//
//   POLICY <tab> INPUT <tab> KIND <tab> OUTPUT
//
// (a sheet's OUTPUT is its PNG; its JSON goes beside it, `.json` for `.png`), and one answer line per job on
// standard output: `ok`, or `error: ` and the library's message. A kind this program does not know is an error,
// so a kind added to the registry fails the matrix here until it is given its GifxKit request.
import Foundation
import GifxKit

func request(kind: String, output: String) -> OutputRequest? {
    let target = OutputTarget.file(output)
    switch kind {
    case "mp4": return .video(target: target, options: VideoSettings(container: .mp4))
    case "webm": return .video(target: target, options: VideoSettings(container: .webm))
    case "avif": return .video(target: target, options: VideoSettings(container: .avif))
    case "webp": return .webp(target: target, options: WebPOptions())
    case "apng": return .apng(target: target)
    case "png": return .poster(target: target, frame: .index(0))
    case "jpg": return .jpegPoster(target: target, frame: .index(0), options: JPEGOptions())
    case "timeline": return .timelineJSON(target: target)
    case "sheet":
        let json = output.hasSuffix(".png") ? String(output.dropLast(4)) + ".json" : output + ".json"
        return .spriteSheet(SpriteOptions(png: target, json: .file(json)))
    default: return nil
    }
}

while let line = readLine() {
    let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    guard fields.count == 4, let policy = TimelinePolicy(rawValue: fields[0]) else {
        print("error: a job is POLICY<tab>INPUT<tab>KIND<tab>OUTPUT, got \(line)")
        continue
    }
    guard let output = request(kind: fields[2], output: fields[3]) else {
        print("error: gifxkit-convert has no GifxKit request for the kind \(fields[2])")
        continue
    }
    let converter = GifConverter(settings: RunSettings(policy: policy, overwrite: true))
    do {
        _ = try await converter.convert(.path(fields[1]), to: [output])
        print("ok")
    } catch {
        print("error: \(String(describing: error).split(separator: "\n").first ?? "")")
    }
}
