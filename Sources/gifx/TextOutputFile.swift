import Foundation
import GifxPipeline
import SystemPackage

/// Writes `text` to `path` (`-`: standard output) as every output is written: to a hidden temporary beside it,
/// renamed into place when whole, never replacing an existing file without `overwrite` (the pictures of
/// `timeline --svg` and `verify --report`).
func writeTextOutput(_ text: String, to path: String, overwrite: Bool) throws {
    let output = try AtomicOutput(
        target: OutputTarget(commandLine: path), overwrite: overwrite,
        scratchFolder: RunSettings().resolvedScratchFolder)
    do {
        guard let descriptor = output.descriptor else { throw OutputError.writing(output.displayPath, errno: EBADF) }
        do {
            _ = try descriptor.writeAll(Array(text.utf8))
        } catch let error as Errno {
            throw OutputError.writing(output.displayPath, errno: error.rawValue)
        }
        try output.commit()
    } catch {
        output.discard()
        throw error
    }
}
