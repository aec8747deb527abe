import Foundation

/// The read-only third-party corpus beside the package (`../shared/corpus`), `nil` when absent: the
/// tests that use it then skip. One copy for every test target.
public func corpusDirectory(_ sub: String) -> URL? {
    // This file is Tests/GifFixtures/Corpus.swift: four levels up is the folder holding the package and `shared`.
    let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/corpus/\(sub)")
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
        ? url : nil
}

/// Every `.gif` below `directory` (recursively), as paths relative to it, sorted so runs are deterministic.
public func corpusGIFs(in directory: URL) -> [String] {
    let names = FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []
    return names.filter { $0.hasSuffix(".gif") }.sorted()
}

/// One pygif case: its `.conf` file, a `[config]` section plus one section per expected frame.
public struct PygifConf: Sendable {
    public let name: String
    /// The GIF's file name in the pygif folder.
    public let input: String
    public let width: Int, height: Int
    /// `infinite`, or a number of loops; `0` when the file has no loop extension.
    public let loopCount: String
    public let forceAnimation: Bool
    /// The sections of the expected frames, in order (`pixels`/`image`, `delay` …); empty when the case
    /// expects a decode error.
    public let frames: [[String: String]]

    /// The case names listed in pygif's `TESTS` file.
    public static func caseNames(in directory: URL) throws -> [String] {
        try String(contentsOf: directory.appendingPathComponent("TESTS"), encoding: .utf8)
            .split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
    }

    public init(directory: URL, name: String) throws {
        let text = try String(contentsOf: directory.appendingPathComponent("\(name).conf"), encoding: .utf8)
        var sections: [String: [String: String]] = [:]
        var current = ""
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") { current = String(line.dropFirst().dropLast()); continue }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            sections[current, default: [:]][key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        let config = sections["config"] ?? [:]
        self.name = name
        input = config["input"] ?? "\(name).gif"
        width = Int(config["width"] ?? "") ?? -1
        height = Int(config["height"] ?? "") ?? -1
        loopCount = config["loop-count"] ?? "0"
        forceAnimation = config["force-animation"] == "yes"
        frames = (config["frames"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.map { sections[$0] ?? [:] }
    }

    public var expectsError: Bool { frames.isEmpty }

    /// pygif's loop count as our raw `loop.count`: `infinite` is 0 (or, for a forced animation without any
    /// loop extension, no extension: forever too under the flanimated policy); `0` means no extension.
    public var expectedLoopCounts: [Int?] {
        if loopCount == "infinite" { return forceAnimation ? [0, nil] : [0] }
        let value = Int(loopCount) ?? 0
        return value == 0 ? [nil] : [value]
    }
}
