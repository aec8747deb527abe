import ChildProcesses
import Foundation
import GifFixtures

#if canImport(Glibc)
import Glibc
#endif

/// A folder of generated GIFs for batch tests: what each good one is made of (the expected values
/// come from here), plus files that must fail.
struct BatchLibrary {
    struct Good {
        let path: String
        /// Relative to the library folder, e.g. `sub/deep/g3.gif`.
        let relativePath: String
        let frames: Int
        /// Centiseconds: every frame has the same delay (>= 2 cs, so no timing rule changes it).
        let delay: Int
        var durationCentiseconds: Int { frames * delay }
    }

    let root: URL
    var good: [Good] = []
    /// Inputs that are not GIFs: garbage bytes and a file cut inside the header.
    var bad: [String] = []

    /// `count` good GIFs spread over `root`, `sub/` and `sub/deep/` (one with an upper-case `.GIF`),
    /// `badCount` corrupt ones, and files the folder walk must ignore (hidden, not `.gif`).
    init(count: Int, badCount: Int = 2, in root: URL) throws {
        self.root = root
        let folders = ["", "sub/", "sub/deep/"]
        for folder in folders {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        for i in 0..<count {
            let frames = i % 3 + 1
            let delay = 4 + i
            let relative = folders[i % folders.count] + "g\(i)" + (i == 1 ? ".GIF" : ".gif")
            let gif = FixtureGIF.solidFrames(
                width: 2 + i % 4, height: 3, colorIndices: (0..<frames).map { UInt8(($0 + i) % 8) },
                delays: Array(repeating: delay, count: frames))
            let url = root.appendingPathComponent(relative)
            try gif.write(to: url)
            good.append(Good(path: url.path, relativePath: relative, frames: frames, delay: delay))
        }
        let sample = try FixtureGIF.solidFrames(width: 2, height: 2, colorIndices: [1], delays: [5]).encode()
        for j in 0..<badCount {
            let url = root.appendingPathComponent(folders[j % folders.count] + "bad\(j).gif")
            let bytes = j % 2 == 0 ? Data("this is not a GIF at all, just text".utf8) : sample.prefix(9)
            try bytes.write(to: url)
            bad.append(url.path)
        }
        // Never picked up by the walk.
        try sample.write(to: root.appendingPathComponent(".hidden.gif"))
        try Data("not a gif".utf8).write(to: root.appendingPathComponent("notes.txt"))
    }

    var allInputs: Set<String> { Set(good.map(\.path) + bad) }
}

/// One line of a batch report, decoded.
struct ReportLine {
    let object: [String: Any]
    var input: String { object["input"] as? String ?? "" }
    var status: String { object["status"] as? String ?? "" }
    var outputs: [String] { object["outputs"] as? [String] ?? [] }
    var error: String? { object["error"] as? String }
    var exitCode: Int? { object["exitCode"] as? Int }
    var frames: Int? { object["frames"] as? Int }
    var duration: Double? { object["duration"] as? Double }
}

/// The report's lines; a line that is not one JSON object fails the caller's expectations via `nil`.
func readReport(_ path: String) -> [ReportLine?] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").map { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).map(ReportLine.init)
    }
}

/// Modification time in nanoseconds, nil when the file is missing.
func modificationTime(_ path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
}

/// Every file under `folder`, relative to it, hidden ones included (to catch left-over temporary files).
func filesUnder(_ folder: URL) -> Set<String> {
    guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
    var files = Set<String>()
    while let name = enumerator.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isDirectory),
           !isDirectory.boolValue {
            files.insert(name)
        }
    }
    return files
}

/// Starts `gifx arguments…` in the background (stdout/stderr to files in `folder`) for tests that
/// signal it midway; the caller waits for it with `waitGifx`.
func startGifx(_ arguments: [String], logsIn folder: URL) throws -> pid_t {
    try SpawnedProcess.spawn(
        gifxExecutable().path, arguments, stdout: .file(folder.appendingPathComponent("stdout").path),
        stderr: .file(folder.appendingPathComponent("stderr").path)
    ).pid
}

/// Waits for a child started with `startGifx`, killing it after `timeout`; returns the shell-style
/// status, or -1 when it had to be killed.
func waitGifx(_ pid: pid_t, timeout: TimeInterval = 60) -> Int32 {
    guard let (ended, timedOut) = try? SpawnedProcess(pid: pid).waitKilling(
        after: Date().addingTimeInterval(timeout * testTimeScale)) else { return -1 }
    return timedOut ? -1 : ended.shellStatus
}

/// The running children of `pid` (Linux: /proc/PID/task/*/children), e.g. a batch's conversions.
func childProcesses(of pid: pid_t) -> [pid_t] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.flatMap { task -> [pid_t] in
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}

/// FNV-1a 64 as published (offset basis 14695981039346656037, prime 1099511628211), written here
/// independently of gifx: the shard a relative path belongs to, as docs/scale-out.md promises.
func referenceShard(of relativePath: String, count: Int) -> Int {
    var hash: UInt64 = 14_695_981_039_346_656_037
    for byte in Array(relativePath.utf8) {
        hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211
    }
    return Int(hash % UInt64(count))
}
