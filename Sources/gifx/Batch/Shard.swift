import Foundation

/// FNV-1a, 64 bits: a hash that is the same on every machine, process and run (unlike Swift's
/// `Hasher`, seeded per process), so shard K of N picks the same files wherever it runs.
func fnv1a64<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01b3
    }
    return hash
}

/// `--shard K/N`: this run converts only the inputs whose relative path hashes into shard K of N.
/// Shards 0..<N of the same input list are disjoint and together cover it, with no coordinator.
struct Shard: Equatable, Sendable, CustomStringConvertible {
    let index: Int
    let count: Int

    static let all = Shard(index: 0, count: 1)

    /// Whether the input with this relative path (as used for its output name) belongs to this shard.
    func contains(relativePath: String) -> Bool {
        count == 1 || fnv1a64(relativePath.utf8) % UInt64(count) == UInt64(index)
    }

    var description: String { "\(index)/\(count)" }

    /// Parses `K/N` with 0 <= K < N.
    init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let index = Int(parts[0].trimmingCharacters(in: .whitespaces)),
              let count = Int(parts[1].trimmingCharacters(in: .whitespaces)),
              count >= 1, index >= 0, index < count
        else { return nil }
        self.init(index: index, count: count)
    }

    init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// The environment variables `--shard auto` reads, in order of precedence (documented in
    /// `gifx batch --help` and docs/scale-out.md):
    /// - `GIFX_SHARD_INDEX` + `GIFX_SHARD_COUNT` (any launcher, e.g. GNU parallel);
    /// - `JOB_COMPLETION_INDEX` (Kubernetes Indexed Job) + `GIFX_SHARD_COUNT` (set it to `completions`,
    ///   which Kubernetes does not export);
    /// - `SLURM_ARRAY_TASK_ID` + `SLURM_ARRAY_TASK_COUNT`, relative to `SLURM_ARRAY_TASK_MIN`
    ///   and divided by `SLURM_ARRAY_TASK_STEP` when present (so `--array=1-8` or `0-14:2` work).
    static func fromEnvironment(_ env: [String: String]) throws -> Shard {
        func int(_ name: String) throws -> Int? {
            guard let text = env[name], !text.isEmpty else { return nil }
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw ShardError("--shard auto: \(name)=\(text) is not a whole number")
            }
            return value
        }
        func make(_ index: Int, _ count: Int, _ source: String) throws -> Shard {
            guard count >= 1, index >= 0, index < count else {
                throw ShardError("--shard auto: \(source) gives shard \(index) of \(count), outside 0..<\(count)")
            }
            return Shard(index: index, count: count)
        }
        if let index = try int("GIFX_SHARD_INDEX") {
            guard let count = try int("GIFX_SHARD_COUNT") else {
                throw ShardError("--shard auto: GIFX_SHARD_INDEX is set but GIFX_SHARD_COUNT is not")
            }
            return try make(index, count, "GIFX_SHARD_INDEX/GIFX_SHARD_COUNT")
        }
        if let index = try int("JOB_COMPLETION_INDEX") {
            guard let count = try int("GIFX_SHARD_COUNT") else {
                throw ShardError(
                    "--shard auto: JOB_COMPLETION_INDEX is set but GIFX_SHARD_COUNT is not (set it to the Job's completions)")
            }
            return try make(index, count, "JOB_COMPLETION_INDEX/GIFX_SHARD_COUNT")
        }
        if let id = try int("SLURM_ARRAY_TASK_ID") {
            guard let count = try int("SLURM_ARRAY_TASK_COUNT") else {
                throw ShardError("--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")
            }
            let minimum = try int("SLURM_ARRAY_TASK_MIN") ?? 0
            let step = max(try int("SLURM_ARRAY_TASK_STEP") ?? 1, 1)
            guard (id - minimum) % step == 0 else {
                throw ShardError("--shard auto: SLURM_ARRAY_TASK_ID \(id) is not on the array's step \(step)")
            }
            return try make((id - minimum) / step, count, "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT")
        }
        throw ShardError(
            "--shard auto: none of GIFX_SHARD_INDEX, JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID is set")
    }
}

/// A `--shard` value that cannot be used (a usage error, exit 64).
struct ShardError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
