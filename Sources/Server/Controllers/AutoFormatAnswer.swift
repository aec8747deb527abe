import Foundation
import GifxKit
import GifxTimeline
import GifxPOSIXFiles
import HTTPTypes
import Hummingbird

#if canImport(Glibc)
import Glibc
#endif

/// `format=auto`'s answers (docs/serve.md, "format=auto"): the format chosen from `Accept` (`AutoFormat`), then the
/// chosen order answered as if it had been named, or the source passed through; either way with `Vary: Accept` and
/// the choice in `X-Gifx-Format`.
extension ConversionRunner {
    static let varyField = HTTPField.Name("Vary")!
    static let formatField = HTTPField.Name("X-Gifx-Format")!
    /// The cache key's canonical text of a source passed through (settings and edits do not apply to it).
    static let sourceCanonicalText = "source"

    func respondAuto(
        _ bytes: Data, _ query: ConvertQuery, source: SourceFormat, request: Request, context: BasicRequestContext, conditional: Bool
    ) async throws -> Response {
        let choice = AutoFormat.choose(accept: request.headers[.accept])
        var response: Response
        switch choice {
        case .avif, .webp:
            let (avif, webp) = ConvertQuery.autoKinds
            let order = query.order(for: choice == .avif ? avif : webp)
            // As `format=avif&stream=1` is answered: 400, neither streams.
            try ConvertQuery.checkStream(order)
            response = try await respond(bytes, order, request: request, context: context, conditional: conditional)
        case .source:
            if query.stream {
                throw ServiceError.badQuery(
                    "format=auto: this Accept takes neither AVIF nor WebP, so the source is passed through whole; stream is for \(ConvertQuery.streamingKinds)")
            }
            response = try await passThrough(bytes, source: source, request: request, conditional: conditional)
        }
        response.headers[Self.varyField] = "Accept"
        response.headers[Self.formatField] = choice.rawValue
        return response
    }

    /// The source itself as a cache entry (keyed on its bytes and `source`), with its own media type and schedule:
    /// served as any entry is (ETag, Range, 304, `Location`).
    private func passThrough(_ bytes: Data, source: SourceFormat, request: Request, conditional: Bool) async throws -> Response {
        let key = cacheKey(bytes, Self.sourceCanonicalText)
        return try await answer(key: key, request: request, conditional: conditional) {
            try await self.storeSource(key: key, bytes: bytes, source: source)
        }
    }

    /// Reads the source's schedule (its structure only: a damaged header is 422 as for a conversion), then writes
    /// its bytes into the cache (hidden temporary, fsync, rename) and commits the entry.
    private func storeSource(key: String, bytes: Data, source: SourceFormat) async throws -> CachedObject {
        var settings = RunSettings()
        settings.scratchFolder = cache.spool
        let reader = GifConverter(settings: settings)
        let timeline = try await offThePool { try reader.timeline(of: .bytes(bytes)) }
        let file = "\(key).\(source.rawValue)"
        let target = cache.objects + "/" + file
        do {
            let temporary = try POSIXFiles.makeHiddenTemporary(beside: target).get()
            do {
                try POSIXFiles.writeAll(temporary.fd, bytes)
                POSIXFiles.sync(temporary.fd)
                try temporary.fd.close()
                try POSIXFiles.durableRename(temporary.path, to: target)
            } catch {
                try? temporary.fd.close()
                unlink(temporary.path)
                throw error
            }
        } catch {
            throw ServiceError.internalError("cannot write the source into the cache: \(error)")
        }
        let object = CachedObject(
            key: key, format: source.rawValue, contentType: InputFormat.of(source).mediaType,
            timeline: TimelineHeader.value(timeline), file: file, describedBy: nil, bytes: bytes.count)
        do {
            try cache.commit(object)
        } catch {
            cache.discardFiles(of: key)
            throw ServiceError.internalError("cannot record the source in the cache: \(error)")
        }
        return object
    }
}
