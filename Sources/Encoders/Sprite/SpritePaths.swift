import Foundation

/// `OUT.png` for one page; `OUT-0.png`, `OUT-1.png`, … for several.
package func spritePagePaths(_ pngPath: String, pageCount: Int) -> [String] {
    guard pageCount > 1 else { return [pngPath] }
    let url = URL(fileURLWithPath: pngPath)
    let ext = url.pathExtension.isEmpty ? "png" : url.pathExtension
    let stem = url.pathExtension.isEmpty ? pngPath : String(pngPath.dropLast(ext.count + 1))
    return (0..<pageCount).map { "\(stem)-\($0).\(ext)" }
}

/// `path` as seen from the folder of `reference` (the JSON), so the sheet and its JSON can move together.
func relativePath(_ path: String, from reference: String) -> String {
    let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
    let base = URL(fileURLWithPath: reference).standardizedFileURL.deletingLastPathComponent().pathComponents
    var common = 0
    while common < min(target.count - 1, base.count) && target[common] == base[common] { common += 1 }
    let ups = Array(repeating: "..", count: base.count - common)
    return (ups + target[common...]).joined(separator: "/")
}
