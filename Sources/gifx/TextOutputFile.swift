import Foundation
import GifxKit
import SystemPackage

/// Writes `text` to `path` (`-`: standard output) as every output is written: to a hidden temporary beside it,
/// renamed into place when whole, never replacing an existing file without `overwrite` (the pictures of
/// `timeline --svg` and `verify --report`).
func writeTextOutput(_ text: String, to path: String, overwrite: Bool) throws {
    try writeTextOutput(to: path, overwrite: overwrite) { write in write(text) }
}

/// As above, the text handed over in pieces by `produce` (a picture of millions of frames is never one string).
func writeTextOutput(to path: String, overwrite: Bool, _ produce: (_ write: @escaping (String) -> Void) -> Void) throws {
    let output = try AtomicOutput(
        target: OutputTarget(commandLine: path), overwrite: overwrite,
        scratchFolder: RunSettings().resolvedScratchFolder)
    do {
        guard let descriptor = output.descriptor else { throw OutputError.writing(output.displayPath, errno: EBADF) }
        // The first failed write stops the rest; it is thrown once the producer is done.
        var failure: (any Error)?
        produce { piece in
            guard failure == nil else { return }
            do {
                _ = try descriptor.writeAll(Array(piece.utf8))
            } catch let error as Errno {
                failure = OutputError.writing(output.displayPath, errno: error.rawValue)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        try output.commit()
    } catch {
        output.discard()
        throw error
    }
}
