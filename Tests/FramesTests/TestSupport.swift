import Foundation
import GifFixtures

/// Writes `gif` to a fresh temporary file and returns its path (removed by the OS's tmp cleaning).
func temporaryGIF(_ gif: FixtureGIF, name: String = #function) throws -> String {
    try temporaryFile(gif.encode(), name: name)
}

/// Writes `data` to a fresh temporary file and returns its path.
func temporaryFile(_ data: Data, name: String = #function) throws -> String {
    let safe = name.filter { $0.isLetter || $0.isNumber }
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("gifx-frames-\(safe)-\(UUID().uuidString).gif")
    try data.write(to: url)
    return url.path
}

/// The read-only test corpus beside the package (`../shared/corpus`), `nil` when absent.
func corpusDirectory(_ sub: String, file: String = #filePath) -> URL? {
    let url = URL(fileURLWithPath: file)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/corpus/\(sub)")
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
        ? url : nil
}
