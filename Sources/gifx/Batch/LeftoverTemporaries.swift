import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The hidden temporary files a conversion writes beside its outputs (`AtomicOutput`:
/// `.NAME.gifx-XXXXXX` in the output's folder, renamed to NAME when done). A child killed by SIGKILL,
/// or a whole batch killed with its children, cannot remove them: the batch does, for its own inputs only
/// (so shards sharing an out-dir never touch each other's files).
enum LeftoverTemporaries {
    /// The output bases (`OUT/sub/a`) a hidden temporary's file name may belong to for `target`, from each output's
    /// files (`OutputFiles`): `.a.mp4.gifx-Ab12Cd` → `a` for to-mp4; `.a-3.png.gifx-Ab12Cd` of a sheet → `a-3` (the
    /// single page of an input named `a-3`) and `a` (page 3 of `a`): `sweep` accepts whichever is an input of this batch.
    static func candidateBases(ofTemporary fileName: String, target: BatchTarget) -> [String] {
        guard fileName.hasPrefix("."), let marker = fileName.range(of: ".gifx-", options: .backwards),
              fileName[marker.upperBound...].count == 6,
              fileName[marker.upperBound...].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { return [] }
        let output = String(fileName[fileName.index(after: fileName.startIndex)..<marker.lowerBound])
        var candidates: [String] = []
        for file in target.outputs {
            let endings = [file.infix + file.files.main] + (file.files.description.map { [file.infix + $0] } ?? [])
            candidates += endings.compactMap { output.strippingSuffix($0) }
            // A page: STEM-N + the main ending.
            if file.files.pages, let stem = output.strippingSuffix(file.files.main), let dash = stem.lastIndex(of: "-"),
               !stem[stem.index(after: dash)...].isEmpty, stem[stem.index(after: dash)...].allSatisfy(\.isNumber) {
                let beforeDash = String(stem[..<dash])
                if let base = file.infix.isEmpty ? beforeDash : beforeDash.strippingSuffix(file.infix), !base.isEmpty {
                    candidates.append(base)
                }
            }
        }
        var seen = Set<String>()
        return candidates.filter { seen.insert($0).inserted }
    }

    /// Removes every leftover temporary of `bases` (output paths without extension), reading each
    /// output folder once; returns how many were removed.
    static func sweep(bases: [String], target: BatchTarget) -> Int {
        var byFolder: [String: Set<String>] = [:]
        for base in bases {
            let url = URL(fileURLWithPath: base)
            byFolder[url.deletingLastPathComponent().path, default: []].insert(url.lastPathComponent)
        }
        var removed = 0
        for (folder, names) in byFolder {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for entry in entries where entry.hasPrefix(".")
                && candidateBases(ofTemporary: entry, target: target).contains(where: names.contains) {
                if unlink(folder + "/" + entry) == 0 { removed += 1 }
            }
        }
        return removed
    }

    /// Removes the leftover temporaries of one output base; returns how many.
    static func remove(base: String, target: BatchTarget) -> Int {
        sweep(bases: [base], target: target)
    }
}

extension StringProtocol {
    fileprivate func strippingSuffix(_ suffix: String) -> String? {
        hasSuffix(suffix) && count > suffix.count ? String(dropLast(suffix.count)) : nil
    }
}
