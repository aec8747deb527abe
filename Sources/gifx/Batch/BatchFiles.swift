import Foundation
import GifxPOSIXFiles
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// The files of a batch: output names from input names, whether an output is up to date, and the hidden
/// temporary beside a target that a finished job's output is renamed from.
enum BatchFiles {
    /// `sub/a.gif` → `sub/a`; a leading dot (`.gif`) is a name, not an extension.
    static func removingExtension(_ relativePath: String) -> String {
        let slash = relativePath.lastIndex(of: "/").map { relativePath.index(after: $0) } ?? relativePath.startIndex
        let name = relativePath[slash...]
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return relativePath }
        return String(relativePath[..<dot])
    }

    /// An output counts as done when it exists and is not older than its input.
    static func isUpToDate(_ output: String, input: String) -> Bool {
        var out = stat(), source = stat()
        guard stat(output, &out) == 0, stat(input, &source) == 0 else { return false }
        let a = out.st_mtim, b = source.st_mtim
        return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec >= b.tv_nsec)
    }

    /// A hidden, empty file beside `target` (same folder, so the final rename is atomic), with the
    /// permissions a new file would get.
    static func makeTemporary(beside target: String) -> Result<String, Errno> {
        POSIXFiles.makeHiddenTemporary(beside: target).map { file in
            try? file.fd.close()
            return file.path
        }
    }

    /// Flushes the finished temporary file and renames it over the target; the failure is rename's errno.
    static func commit(_ temporary: String, to target: String) -> Errno? {
        do throws(Errno) {
            try POSIXFiles.durableRename(temporary, to: target)
            return nil
        } catch {
            return error
        }
    }
}
