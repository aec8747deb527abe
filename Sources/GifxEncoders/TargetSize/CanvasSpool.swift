import Foundation
import GifxFrames
import GifxPOSIXFiles
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Composited canvases kept on disk, in order, so an output can be encoded again without decoding the GIF
/// again (`--target-size`'s further encodes). Memory stays one canvas; disk is width × height × 4 bytes a
/// canvas. The file is private (TMPDIR) and unlinked as soon as it is created: only the descriptor names it,
/// so nothing is left behind whatever ends the process (and `--progress` does not count it as output).
final class CanvasSpool {
    let width: Int
    let height: Int
    private let fd: FileDescriptor
    private let path: String
    private var indices: [Int] = []
    private var buffer: [UInt8]

    init(width: Int, height: Int) throws {
        self.width = width
        self.height = height
        buffer = [UInt8](repeating: 0, count: width * height * 4)
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        switch POSIXFiles.makeHiddenTemporary(beside: folder + "/gifx-canvases") {
        case .success(let file):
            fd = file.fd
            path = file.path
        case .failure(let error):
            throw OutputError(path: folder, reason: "cannot create a spool of canvases: \(error)", failure: .io)
        }
        unlink(path)
    }

    deinit { try? fd.close() }

    var count: Int { indices.count }

    /// Appends a canvas (its pixels and frame index).
    func append(_ canvas: Canvas) throws {
        precondition(canvas.width == width && canvas.height == height)
        do throws(Errno) {
            try POSIXFiles.writeAll(fd, canvas.pixels)
        } catch {
            throw OutputError.writing(path, errno: error.rawValue)
        }
        indices.append(canvas.index)
    }

    /// Lends every canvas, in the order appended, to `body`.
    func replay(_ body: (Canvas) throws -> Void) throws {
        let bytes = width * height * 4
        for (k, index) in indices.enumerated() {
            try buffer.withUnsafeMutableBytes { raw in
                var done = 0
                while done < bytes {
                    let n = pread(fd.rawValue, raw.baseAddress! + done, bytes - done, off_t(k * bytes + done))
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { throw OutputError(path: path, reason: "spool read failed", failure: .io) }
                    done += n
                }
                try body(Canvas(index: index, width: width, height: height, pixels: UnsafeRawBufferPointer(raw)))
            }
        }
    }
}
