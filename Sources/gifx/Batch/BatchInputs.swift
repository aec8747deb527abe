import Foundation
import GifxKit

#if canImport(Glibc)
import Glibc
#endif

/// One GIF of a batch: where to read it and the path its output mirrors.
struct BatchInput: Sendable, Equatable {
    /// The path to read (as typed or found), also the `input` of its report line.
    let path: String
    /// `sub/a.gif` for a file found in a folder (relative to that folder), `a.gif` for a file named
    /// directly. The output is `OUT-DIR/` + this with the new extension; the shard hash is taken of it.
    let relativePath: String
    /// Why this input cannot be converted (missing, unreadable folder, output collision), when known
    /// before running: it is reported as failed with `exitCode` and never started.
    var problem: String? = nil
    var exitCode: Int32? = nil
}

/// Expands the command line's inputs (files, folders, `-`) into the ordered list of GIFs to convert.
enum BatchInputs {
    /// Files and folders in the order given; each folder's GIFs (recursive, `*.gif` in any case,
    /// hidden entries skipped) sorted by relative path so every run and every shard sees the same list.
    /// `-` reads newline-separated paths from `standardInput`; a relative path read there (without `..`)
    /// keeps its folders in the output name, so `find . -name '*.gif' | gifx batch … -` mirrors the tree.
    static func expand(_ arguments: [String], standardInput: () -> String) -> [BatchInput] {
        var inputs: [BatchInput] = []
        var seen = Set<String>()
        func add(_ input: BatchInput) {
            // The same file reached twice (a folder and a file in it) is converted once.
            let key = "\(canonical(input.path))\u{0}\(input.relativePath)"
            if seen.insert(key).inserted { inputs.append(input) }
        }
        for argument in arguments {
            if argument == "-" {
                for line in standardInput().split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
                    let path = String(line).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
                    guard !path.isEmpty else { continue }
                    for input in expandOne(path, mirrorRelative: true) { add(input) }
                }
            } else {
                for input in expandOne(argument, mirrorRelative: false) { add(input) }
            }
        }
        return inputs
    }

    private static func expandOne(_ path: String, mirrorRelative: Bool) -> [BatchInput] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            return [BatchInput(path: path, relativePath: baseName(path), problem: "cannot open: \(reason)",
                               exitCode: errno == ENOENT || errno == EACCES ? ExitStatus.noInput : ExitStatus.ioError)]
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            var found: [BatchInput] = []
            walk(folder: path, relative: "", into: &found)
            return found.sorted { $0.relativePath.utf8.lexicographicallyPrecedes($1.relativePath.utf8) }
        }
        let relative = mirrorRelative ? (mirroredRelativePath(path) ?? baseName(path)) : baseName(path)
        return [BatchInput(path: path, relativePath: relative)]
    }

    /// Depth-first walk; symbolic links to folders are not followed (no cycles), links to files are.
    private static func walk(folder: String, relative: String, into found: inout [BatchInput]) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            let code = errno
            found.append(BatchInput(
                path: folder, relativePath: relative.isEmpty ? baseName(folder) : relative,
                problem: "cannot read folder: \(String(cString: strerror(code == 0 ? EACCES : code)))",
                exitCode: ExitStatus.noInput))
            return
        }
        for name in names where !name.hasPrefix(".") {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            let childRelative = relative.isEmpty ? name : relative + "/" + name
            var link = stat(), target = stat()
            guard lstat(path, &link) == 0 else { continue }
            let isLink = link.st_mode & S_IFMT == S_IFLNK
            guard stat(path, &target) == 0 else { continue }
            if target.st_mode & S_IFMT == S_IFDIR {
                if !isLink { walk(folder: path, relative: childRelative, into: &found) }
            } else if target.st_mode & S_IFMT == S_IFREG, Self.isAnimationName(name) {
                found.append(BatchInput(path: path, relativePath: childRelative))
            }
        }
    }

    /// The names a folder search takes (issue 35): each input format's extensions (`InputFormat.fileExtensions`:
    /// `*.gif`, `*.webp`, `*.png`, `*.apng`) in any case; what each file holds is told by its first bytes when it
    /// is read.
    static func isAnimationName(_ name: String) -> Bool { InputFormat.takesFileName(name) }

    /// `./a/b.gif` → `a/b.gif`; nil for absolute paths or paths that climb with `..`.
    static func mirroredRelativePath(_ path: String) -> String? {
        guard !path.hasPrefix("/") else { return nil }
        let parts = path.split(separator: "/").filter { $0 != "." }
        guard !parts.isEmpty, !parts.contains("..") else { return nil }
        return parts.joined(separator: "/")
    }

    static func baseName(_ path: String) -> String {
        let parts = path.split(separator: "/")
        return parts.last.map(String.init) ?? path
    }

    private static func canonical(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Marks every input whose output path was already taken by an earlier input (e.g. `a.gif` and
    /// `a.GIF` in one folder, or two files named alike in different folders given as files):
    /// the first keeps the name, the others are reported as failed (exit 73) rather than overwriting it.
    static func flagCollisions(_ inputs: inout [BatchInput], outputKey: (BatchInput) -> String) {
        var owners: [String: String] = [:]
        for i in inputs.indices where inputs[i].problem == nil {
            let key = outputKey(inputs[i])
            if let owner = owners[key] {
                inputs[i].problem = "output \(key) is also the output of \(owner); rename one of them"
                inputs[i].exitCode = ExitStatus.cannotCreate
            } else {
                owners[key] = inputs[i].path
            }
        }
    }
}
