import Foundation
import GifxPOSIXFiles
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// One cached output, as its description (`KEY.meta`, JSON) records it.
struct CachedObject: Codable, Sendable, Equatable {
    var key: String
    var format: String
    var contentType: String
    /// `X-Gifx-Timeline`'s value: frames, duration and tick of the schedule the output follows.
    var timeline: String
    /// The output's file name in `objects/` (`KEY.mp4`); a sprite sheet's description beside it (`KEY.json`).
    var file: String
    var describedBy: String?
    var bytes: Int
}

/// The content-addressed cache on disk (docs/serve.md):
///
///     CACHE/objects/KEY.EXT    the output, written by the conversion's own transaction (hidden temporary,
///                              fsync, rename)
///     CACHE/objects/KEY.meta   its description, written the same way after the output: the entry's commit
///     CACHE/spool/             request bodies while they convert, the conversions' scratch files, and streamed
///                              outputs while they are written (`OutputSpool`: renamed into objects/ on success)
///
/// An output without its description is a partial entry (a crash between the two renames): removed at
/// start, with every hidden temporary and the spool. The size is capped; the least recently used entries
/// go first (use order is kept in memory and starts from the descriptions' modification times).
/// Keys are 64 lowercase hex digits; a path is only ever made from a key that passed `isKey`.
final class ObjectCache: @unchecked Sendable {
    let root: String
    let objects: String
    let spool: String
    let capacity: Int
    private let lock = NSLock()
    private var entries: [String: CachedObject] = [:]
    private var lastUse: [String: UInt64] = [:]
    private var clock: UInt64 = 0
    private var total = 0
    /// Keys being read (a response in the making): not evicted until released.
    private var pinned: [String: Int] = [:]
    private(set) var hits = 0
    private(set) var evictions = 0

    init(root: String, capacity: Int) throws {
        self.root = root
        objects = root + "/objects"
        spool = root + "/spool"
        self.capacity = capacity
        for folder in [root, objects, spool] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try recover()
    }

    static func isKey(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    var byteCount: Int { lock.withLock { total } }
    var count: Int { lock.withLock { entries.count } }

    /// The entry for `key`, marked as just used (a hit).
    func lookup(_ key: String) -> CachedObject? {
        lock.withLock {
            guard let entry = entries[key] else { return nil }
            clock += 1
            lastUse[key] = clock
            hits += 1
            return entry
        }
    }

    /// Whether the cache holds `key` (not a use: the order of eviction stays as it is).
    func contains(_ key: String) -> Bool { lock.withLock { entries[key] != nil } }

    /// Opens the entry's file (`describedBy`: its companion) for reading; the descriptor stays valid
    /// whatever eviction does next.
    func open(_ entry: CachedObject, companion: Bool = false) -> FileDescriptor? {
        guard let name = companion ? entry.describedBy : entry.file else { return nil }
        return try? FileDescriptor.open(FilePath(objects + "/" + name), .readOnly, options: [.closeOnExec])
    }

    /// Paths for a new entry's files (`key` has been checked).
    func paths(for key: String, fileExtension: String) -> (output: String, description: String) {
        (objects + "/\(key).\(fileExtension)", objects + "/\(key).json")
    }

    /// Records a converted output: writes its description (atomically, durably), then evicts down to the cap.
    func commit(_ object: CachedObject) throws {
        let data = try JSONEncoder().encode(object)
        let target = objects + "/\(object.key).meta"
        let file = try POSIXFiles.makeHiddenTemporary(beside: target).get()
        do {
            try POSIXFiles.writeAll(file.fd, data)
            POSIXFiles.sync(file.fd)
            try file.fd.close()
            try POSIXFiles.durableRename(file.path, to: target)
        } catch {
            try? file.fd.close()
            unlink(file.path)
            throw error
        }
        lock.withLock {
            if let old = entries[object.key] { total -= old.bytes }
            entries[object.key] = object
            clock += 1
            lastUse[object.key] = clock
            total += object.bytes
        }
        evict()
    }

    /// Removes an entry's files (a conversion that failed after writing some, or a refused sheet).
    func discardFiles(of key: String) {
        guard Self.isKey(key) else { return }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: objects)) ?? [] where name.hasPrefix(key + ".") {
            unlink(objects + "/" + name)
        }
    }

    func pin(_ key: String) { lock.withLock { pinned[key, default: 0] += 1 } }
    func unpin(_ key: String) {
        lock.withLock {
            pinned[key, default: 1] -= 1
            if pinned[key] == 0 { pinned[key] = nil }
        }
    }

    /// Least recently used first, until the total is under the cap (pinned entries stay).
    private func evict() {
        var victims: [CachedObject] = []
        lock.withLock {
            guard total > capacity else { return }
            for key in entries.keys.sorted(by: { lastUse[$0, default: 0] < lastUse[$1, default: 0] }) {
                guard total > capacity else { break }
                guard pinned[key] == nil, let entry = entries.removeValue(forKey: key) else { continue }
                lastUse[key] = nil
                total -= entry.bytes
                evictions += 1
                victims.append(entry)
            }
        }
        for entry in victims {
            // The description first: from then on the entry is gone, whatever else a crash leaves.
            unlink(objects + "/\(entry.key).meta")
            unlink(objects + "/" + entry.file)
            if let describedBy = entry.describedBy { unlink(objects + "/" + describedBy) }
        }
    }

    /// Start: keeps every entry whose description and files are whole, removes everything else.
    private func recover() throws {
        // Spooled bodies and streamed outputs, and the scratch folders (`job-XXXXXX`) of a killed service's workers.
        for name in try FileManager.default.contentsOfDirectory(atPath: spool) {
            try? FileManager.default.removeItem(atPath: spool + "/" + name)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: objects)
        var kept: [(CachedObject, Date)] = []
        var keep = Set<String>()
        for name in names where name.hasSuffix(".meta") && !name.hasPrefix(".") {
            let key = String(name.dropLast(5))
            let path = objects + "/" + name
            guard Self.isKey(key), let data = FileManager.default.contents(atPath: path),
                  let object = try? JSONDecoder().decode(CachedObject.self, from: data), object.key == key,
                  object.file.hasPrefix(key + "."), object.describedBy.map({ $0.hasPrefix(key + ".") }) ?? true,
                  FileManager.default.fileExists(atPath: objects + "/" + object.file),
                  object.describedBy.map({ FileManager.default.fileExists(atPath: objects + "/" + $0) }) ?? true
            else { continue }
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast
            kept.append((object, modified))
            keep.insert(name)
            keep.insert(object.file)
            if let describedBy = object.describedBy { keep.insert(describedBy) }
        }
        for name in names where !keep.contains(name) { unlink(objects + "/" + name) }
        for (object, _) in kept.sorted(by: { $0.1 < $1.1 }) {
            clock += 1
            entries[object.key] = object
            lastUse[object.key] = clock
            total += object.bytes
        }
        evict()
    }
}
