import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The hidden temporary files a conversion writes beside its outputs (`AtomicOutput`:
/// `.NAME.gifx-XXXXXX` in the output's folder, renamed to NAME when done). A child killed by SIGKILL,
/// or a whole batch killed with its children, cannot remove them: the batch does, for its own inputs only
/// (so shards sharing an out-dir never touch each other's files).
enum LeftoverTemporaries {
    /// The output base (`OUT/sub/a`) a hidden temporary's file name belongs to for `target`, nil if the
    /// name is not one of its temporaries: `.a.mp4.gifx-Ab12Cd` → `a` for to-mp4.
    static func base(ofTemporary fileName: String, target: BatchTarget) -> String? {
        guard fileName.hasPrefix("."), let marker = fileName.range(of: ".gifx-", options: .backwards),
              fileName[marker.upperBound...].count == 6,
              fileName[marker.upperBound...].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { return nil }
        let output = String(fileName[fileName.index(after: fileName.startIndex)..<marker.lowerBound])
        switch target.command {
        case .toMP4: return output.strippingSuffix(".mp4")
        case .timeline: return output.strippingSuffix(".timeline.json")
        case .convert:
            // Sheet pages (`a.sheet-2.png`) first, then each output's own suffix (`a.sheet.json`, `a.mp4`).
            if target.formats.contains(.sheet), let range = output.range(of: ".sheet-", options: .backwards),
               let page = output[range.upperBound...].strippingSuffix(".png"), page.allSatisfy(\.isNumber) {
                return String(output[..<range.lowerBound])
            }
            let suffixes = target.formats.map(\.suffix) + (target.formats.contains(.sheet) ? [".sheet.png"] : [])
            return suffixes.lazy.compactMap { output.strippingSuffix($0) }.first
        case .toSprite:
            if let base = output.strippingSuffix(".json") { return base }
            guard let base = output.strippingSuffix(".png") else { return nil }
            // `a-3.png` is page 3 of `a`, or the single page of an input named `a-3`: both are candidates,
            // and `sweep` accepts whichever is an input of this batch.
            return base
        }
    }

    /// The bases a temporary file name could belong to (`a-3.png`: `a-3`, and page 3 of `a`).
    static func candidateBases(ofTemporary fileName: String, target: BatchTarget) -> [String] {
        guard let base = base(ofTemporary: fileName, target: target) else { return [] }
        var candidates = [base]
        if target.command == .toSprite, fileName.contains(".png.gifx-"), let dash = base.lastIndex(of: "-"),
           !base[base.index(after: dash)...].isEmpty, base[base.index(after: dash)...].allSatisfy(\.isNumber) {
            candidates.append(String(base[..<dash]))
        }
        return candidates
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
