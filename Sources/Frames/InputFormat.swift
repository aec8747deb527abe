import GifxTimeline
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One input format, declared once, in its own folder (as a demuxer carries its probe: `gifdec.c`'s `gif_probe`): how
/// its first bytes are told, its metadata reader and its frame decoder, and whether the GIF pipeline's decode-ahead
/// and banded compositing serve it. `InputFormat.all` is the registry; the container is told by its first bytes,
/// never by the file name.
package struct InputFormat: Sendable {
    /// The schedule's name for it (the timeline's `format`, its units).
    package let source: SourceFormat
    /// What the help calls it among the inputs ("GIF", "PNG/APNG").
    package let helpName: String
    /// Its media type: what `gifx serve` answers with when `format=auto` passes the source through.
    package let mediaType: String
    /// The file names a folder search takes for it (`gifx batch`), lower case, with the dot; the content is still
    /// told by its first bytes when the file is read.
    package let fileExtensions: [String]
    /// Whether a file starting with these bytes (up to `probeLength`, fewer when the file is shorter) is this format.
    let probe: @Sendable (_ head: [UInt8]) -> Bool
    /// Reads everything but the pixels.
    let readMetadata: @Sendable (_ path: String, _ limits: DecodeLimits) throws -> AnimationMetadata
    /// The decoder that composites one frame per call, in order, on the producer thread.
    let frameSource: @Sendable (_ path: String, _ metadata: AnimationMetadata, _ limits: DecodeLimits) throws -> any FrameSource
    /// Whether frames are decoded ahead and composited in bands on many threads (`BandedFrameProducer`, the
    /// sequential `Compositor`); otherwise `frameSource` decodes on the producer thread alone.
    package let decodesAhead: Bool
}

extension InputFormat {
    /// Every input format gifx reads, one line each.
    package static let all: [InputFormat] = [
        .gif,
        .webp,
        .apng,
        .avif,
    ]

    /// How many first bytes a probe is given: enough for a RIFF header (12) and for an ISO BMFF `ftyp` box with
    /// its compatible brands past the major one (a box of a few dozen bytes in practice).
    package static let probeLength = 512

    /// The format a schedule names.
    package static func of(_ source: SourceFormat) -> InputFormat { all.first { $0.source == source }! }

    /// The container `path` holds, from its first `probeLength` bytes. Anything else (an empty file too) is malformed data,
    /// refused in one line.
    package static func sniff(path: String) throws -> SourceFormat {
        let source = try FileByteSource(path: path)
        let length = probeLength
        var head = [UInt8](repeating: 0, count: length)
        let count = head.withUnsafeMutableBytes { source.copyBytes(into: $0.baseAddress!, count: length) }
        if count < length && source.readErrno != 0 {
            throw GifDecodeError(.io, at: count, String(cString: strerror(source.readErrno)))
        }
        head.removeLast(length - count)
        if let format = sniff(head) { return format }
        let shown = head.prefix(8).map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }
        let start = head.isEmpty ? "the file is empty" : "it starts with \(shown.joined(separator: " "))"
        throw GifDecodeError(.malformed, at: 0, "not a \(namesPhrase) file (\(start))")
    }

    /// Every format as the help lists the inputs: "GIF, WebP or PNG/APNG" (`or: false`: "... and ...").
    package static func helpPhrase(or: Bool = true) -> String { EnglishList.phrase(all.map(\.helpName), or: or) }

    /// Every name a folder search takes, as the help lists them: "*.gif, *.webp, *.png, *.apng".
    package static var folderPatterns: String {
        EnglishList.joined(all.flatMap(\.fileExtensions).map { "*" + $0 }, separator: ", ")
    }

    /// Whether a folder search takes the file `name` (its extension, in any case).
    package static func takesFileName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return all.contains { $0.fileExtensions.contains { lower.hasSuffix($0) } }
    }

    /// Every format's name, as a refusal lists them: "GIF, WebP or PNG" (the CLI's and the service's).
    package static var namesPhrase: String { EnglishList.phrase(all.map(\.source.displayName), or: true) }

    /// The container of a file starting with `head` (its first `probeLength` bytes, or all of a shorter file;
    /// at least 12 bytes for WebP), `nil` when unknown.
    package static func sniff(_ head: some Collection<UInt8>) -> SourceFormat? {
        let bytes = Array(head.prefix(probeLength))
        return all.first { $0.probe(bytes) }?.source
    }

    /// The metadata reader of `format`.
    static func readMetadata(_ format: SourceFormat, path: String, limits: DecodeLimits) throws -> AnimationMetadata {
        try of(format).readMetadata(path, limits)
    }

    /// The frame decoder of the format `metadata` was read from.
    static func makeFrameSource(path: String, metadata: AnimationMetadata, limits: DecodeLimits) throws -> any FrameSource {
        try of(metadata.format).frameSource(path, metadata, limits)
    }
}

/// A list of names as one phrase: "GIF, WebP or PNG".
///
/// Both functions are plain loops, not the standard library's `joined(separator:)`: `convert`'s help, which every
/// command builds at start-up (ArgumentParser reads every subcommand's configuration), is made with them, and the
/// generic `joined` (not specialized in this package) costs each process ≈ 0.4 M instructions of protocol
/// conformance lookups on its first call on an array, and as much again on a slice (docs/benchmarks.md).
package enum EnglishList {
    package static func phrase(_ items: [String], or: Bool = false) -> String {
        var text = ""
        for index in items.indices {
            if index > 0 { text += index == items.count - 1 ? (or ? " or " : " and ") : ", " }
            text += items[index]
        }
        return text
    }

    /// `items.joined(separator: separator)`, the same text.
    package static func joined(_ items: [String], separator: String) -> String {
        var text = ""
        for index in items.indices {
            if index > 0 { text += separator }
            text += items[index]
        }
        return text
    }
}

/// Reads the metadata of a GIF, an animated (or still) WebP, or an APNG (or still PNG), told apart by the
/// first bytes (`InputFormat.sniff`). (It was readGifMetadata, and the type GifMetadata, until issue 49: they carry every format.)
/// Throws `GifDecodeError`: `.cannotOpen`, `.malformed`/`.truncated`/`.tooLarge`, `.io`.
package func readAnimationMetadata(path: String, limits: DecodeLimits = .default) throws -> AnimationMetadata {
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
