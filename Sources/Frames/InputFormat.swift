import GifxTimeline
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place the readers are registered (issue 35): the container is told by its first bytes, never
/// by the file name, and each format's metadata reader and frame decoder are chosen here.
package enum InputFormat {
    /// The container `path` holds, from its first 12 bytes: `GIF`, `RIFF....WEBP`, or PNG's signature.
    /// Anything else (an empty file too) is malformed data, refused in one line.
    package static func sniff(path: String) throws -> SourceFormat {
        let source = try FileByteSource(path: path)
        var head = [UInt8](repeating: 0, count: 12)
        let count = head.withUnsafeMutableBytes { source.copyBytes(into: $0.baseAddress!, count: 12) }
        if count < 12 && source.readErrno != 0 {
            throw GifDecodeError(.io, at: count, String(cString: strerror(source.readErrno)))
        }
        head.removeLast(12 - count)
        if let format = sniff(head) { return format }
        let shown = head.prefix(8).map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }
        let start = head.isEmpty ? "the file is empty" : "it starts with \(shown.joined(separator: " "))"
        throw GifDecodeError(.malformed, at: 0, "not a GIF, WebP or PNG file (\(start))")
    }

    /// The container of a file starting with `head` (at least 12 bytes for WebP), `nil` when unknown.
    package static func sniff(_ head: some Collection<UInt8>) -> SourceFormat? {
        let bytes = Array(head.prefix(12))
        // "GIF" alone, as giflib checks it (its version bytes are not checked: `GIF$9a` decodes as before).
        if bytes.starts(with: Array("GIF".utf8)) { return .gif }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return .webp
        }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .apng }
        return nil
    }

    /// The metadata reader of `format`.
    static func readMetadata(_ format: SourceFormat, path: String, limits: DecodeLimits) throws -> GifMetadata {
        switch format {
        case .gif: try readGIFFileMetadata(path: path, limits: limits)
        case .webp: try WebPMetadataReader.read(path: path, limits: limits)
        case .apng: try APNGMetadataReader.read(path: path, limits: limits)
        }
    }

    /// The frame decoder of a WebP or APNG (a GIF keeps its own `GifFrameDecoder` path, with decode-ahead).
    static func makeFrameSource(path: String, metadata: GifMetadata, limits: DecodeLimits) throws -> any FrameSource {
        switch metadata.format {
        case .gif: try GifFrameDecoder(path: path, metadata: metadata, limits: limits)
        case .webp: try WebPFrameDecoder(path: path, metadata: metadata, limits: limits)
        case .apng: try APNGFrameDecoder(path: path, metadata: metadata, limits: limits)
        }
    }
}

/// Reads the metadata of a GIF, an animated (or still) WebP, or an APNG (or still PNG), told apart by the
/// first bytes (`InputFormat.sniff`); the name is GIF's for the callers written before issue 35.
/// Throws `GifDecodeError`: `.cannotOpen`, `.malformed`/`.truncated`/`.tooLarge`, `.io`.
package func readGifMetadata(path: String, limits: DecodeLimits = .default) throws -> GifMetadata {
    try InputFormat.readMetadata(try InputFormat.sniff(path: path), path: path, limits: limits)
}

/// A frame decoder FrameStream's producer drives: one call per frame (never per pixel), then a copy of
/// the composited canvas (RGBA8, straight alpha, `metadata.canvasBytes` bytes) into a lent slot.
protocol FrameSource: AnyObject {
    /// Decodes and composites the next frame; `false` after the last.
    func advance() throws -> Bool
    /// The canvas while the frame last advanced to is displayed.
    func copyCanvas(to destination: UnsafeMutableRawPointer)
    /// Damage found so far, one line each.
    var warnings: [String] { get }
    /// Changes exactly when `warnings` does.
    var warningTotal: Int { get }
}

extension GifFrameDecoder: FrameSource {}

/// A whole input file mapped read-only (WebP's demuxer needs the bytes in one piece; the APNG reader walks
/// chunks in place). Pages are read on demand and shared with the page cache, not copied.
final class MappedFile {
    let bytes: UnsafeRawBufferPointer
    private let mapping: UnsafeMutableRawPointer?

    init(path: String, format: SourceFormat) throws {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec)
        } catch {
            throw GifDecodeError(.cannotOpen, at: nil, "\(error)", format: format)
        }
        defer { try? fd.close() }
        var info = stat()
        guard fstat(fd.rawValue, &info) == 0 else {
            throw GifDecodeError(.io, at: nil, String(cString: strerror(errno)), format: format)
        }
        let size = Int(info.st_size)
        guard size > 0 else {
            mapping = nil
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd.rawValue, 0), address != MAP_FAILED else {
            throw GifDecodeError(.io, at: nil, "cannot map the file: \(String(cString: strerror(errno)))", format: format)
        }
        mapping = address
        bytes = UnsafeRawBufferPointer(start: address, count: size)
    }

    deinit {
        if let mapping { munmap(mapping, bytes.count) }
    }
}
