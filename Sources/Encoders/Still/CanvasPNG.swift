internal import CPng
import GifxFrames
import GifxPipeline
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Writes one composited canvas as an RGBA PNG at `path` (created or truncated), streamed row by row
/// through libpng: what `gifx frames` shows of the encoders' input, and the core of a still output.
package func writeCanvasPNG(_ canvas: Canvas, to path: String) throws {
    let fd: FileDescriptor
    do {
        fd = try FileDescriptor.open(
            FilePath(path), .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: [
                .ownerReadWrite, .groupRead, .otherRead,
            ])
    } catch {
        throw OutputError(path: path, reason: "\(error)", failure: .cannotCreateOutput)
    }
    defer { try? fd.close() }
    try writeCanvasPNG(canvas, fileDescriptor: fd.rawValue, path: path)
}

/// Writes one composited canvas as an RGBA PNG to the open file `fd` (`path` names it in errors).
func writeCanvasPNG(_ canvas: Canvas, fileDescriptor fd: Int32, path: String) throws {
    guard let writer = gifx_png_writer_create(fd, UInt32(canvas.width), UInt32(canvas.height), 3) else {
        throw OutputError(path: path, reason: "out of memory", failure: .internalError)
    }
    defer { gifx_png_writer_destroy(writer) }
    func check(_ status: Int32) throws {
        guard status != 0 else { return }
        if status == -2 { throw OutputError.writing(path, errno: gifx_png_writer_errno(writer)) }
        throw OutputError(
            path: path, reason: String(cString: gifx_png_writer_error(writer)), failure: .internalError)
    }
    try check(gifx_png_writer_begin(writer))
    let rows = canvas.pixels.baseAddress!.assumingMemoryBound(to: UInt8.self)
    try check(gifx_png_writer_write_rows(writer, rows, UInt32(canvas.height), canvas.width * 4))
    try check(gifx_png_writer_finish(writer))
}
