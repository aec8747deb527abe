import Foundation
import GifxFrames
import GifxPOSIXFiles
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Canvases of one size kept on disk by slot, so a conversion can show them again without decoding the GIF
/// again or holding them in memory: the edits' reordering (`EditedCanvases`) and `--target-size`'s further
/// encodes (`CanvasSpool`). The file lives in the run's scratch folder (`RunSettings.scratchFolder`) and is unlinked the moment it is
/// created: only the descriptor names it, so nothing is left behind whatever ends the process, and it is
/// never counted as output. Disk: `canvasBytes` a slot.
package final class CanvasScratchFile {
    package let canvasBytes: Int
    package let folder: String
    private let fd: FileDescriptor

    package init(canvasBytes: Int, folder: String) throws {
        self.canvasBytes = canvasBytes
        self.folder = folder
        switch POSIXFiles.makeUniqueFile(prefix: folder + "/gifx-canvases-", access: .ownerOnly) {
        case .success(let made):
            unlink(made.path)  // the descriptor keeps the data; nothing remains once it is closed
            fd = made.fd
        case .failure(let error):
            throw ScratchSpaceError(folder: folder, errno: error)
        }
    }

    deinit { try? fd.close() }

    /// Writes `pixels` (`canvasBytes` of them) into `slot`.
    package func write(_ pixels: UnsafeRawBufferPointer, slot: Int) throws {
        do {
            _ = try fd.writeAll(toAbsoluteOffset: Int64(slot) * Int64(canvasBytes), pixels)
        } catch {
            throw ScratchSpaceError(folder: folder, errno: error as? Errno ?? .ioError)
        }
    }

    /// Reads `slot` into `buffer` (`canvasBytes` long).
    package func read(slot: Int, into buffer: UnsafeMutableRawPointer) throws {
        let offset = Int64(slot) * Int64(canvasBytes)
        var done = 0
        while done < canvasBytes {
            let count: Int
            do {
                count = try fd.read(
                    fromAbsoluteOffset: offset + Int64(done),
                    into: UnsafeMutableRawBufferPointer(start: buffer + done, count: canvasBytes - done))
            } catch {
                throw ScratchSpaceError(folder: folder, errno: error as? Errno ?? .ioError)
            }
            if count == 0 { throw ScratchSpaceError(folder: folder, errno: .ioError) }
            done += count
        }
    }
}

/// Canvases could not be kept in the scratch folder, or read back (disk full, say).
package struct ScratchSpaceError: GifxError {
    package let folder: String
    package let errno: Errno
    package var failureClass: FailureClass { .io }
    package var description: String {
        "cannot keep frames in \(folder) (width x height x 4 bytes a frame; set TMPDIR elsewhere): \(errno)"
    }
}
