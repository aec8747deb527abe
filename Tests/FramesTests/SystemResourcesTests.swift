import Foundation
import GifxFrames
import GifxSystem
import Testing

/// `SystemResources` over fake /proc and /sys/fs/cgroup folders laid out as the kernel lays them out: the
/// figures are the files' numbers worked out by hand, not by the code under test.
@Suite struct SystemResourcesTests {
    /// A fake kernel: files under a temporary root, `proc/...` and `cgroup/...`.
    private func kernel(_ files: [String: String]) throws -> (SystemResources, URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gifx-sysres-\(UUID().uuidString)")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return (SystemResources(procFolder: root.appendingPathComponent("proc").path,
                                cgroupFolder: root.appendingPathComponent("cgroup").path), root)
    }

    @Test func cgroupV2QuotaRoundsUpAndBeatsTheMask() throws {
        let (system, root) = try kernel([
            "proc/self/cgroup": "0::/job\n",
            "proc/self/status": "Name:\tgifx\nCpus_allowed:\tff\n",  // 8 CPUs
            "cgroup/job/cpu.max": "150000 100000\n",  // 1.5 cores -> 2
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(system.affinityCount() == 8)
        #expect(system.availableCores(online: 16) == AvailableCores(count: 2, source: "cgroup v2 cpu.max"))
    }

    /// VmData as the kernel writes it (a tab, padding, kB): what a serve worker's memory grant starts from.
    @Test func dataBytesReadsVmData() throws {
        let (system, root) = try kernel([
            "proc/self/status": "Name:\tgifx\nVmPeak:\t  812344 kB\nVmData:\t   70544 kB\nVmStk:\t     132 kB\n",
            "proc/meminfo": "MemTotal:       24576000 kB\nMemAvailable:   20000000 kB\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(system.dataBytes() == 70544 * 1024)
        #expect(system.memAvailable() == 20_000_000 * 1024)
        #expect(SystemResources(procFolder: root.appendingPathComponent("none").path).dataBytes() == nil)
    }

    @Test func noQuotaLeavesTheMask() throws {
        let (system, root) = try kernel([
            "proc/self/cgroup": "0::/job\n",
            "proc/self/status": "Cpus_allowed:\t00000000,0000000f\n",  // 4 CPUs
            "cgroup/job/cpu.max": "max 100000\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(system.availableCores(online: 16) == AvailableCores(count: 4, source: "affinity mask"))
    }

    @Test func cgroupV1QuotaUnderTheCombinedMount() throws {
        let (system, root) = try kernel([
            "proc/self/cgroup": "4:memory:/slurm/job1\n3:cpu,cpuacct:/slurm/job1\n",
            "cgroup/cpu,cpuacct/slurm/job1/cpu.cfs_quota_us": "300000\n",
            "cgroup/cpu,cpuacct/slurm/job1/cpu.cfs_period_us": "100000\n",
            "cgroup/memory/slurm/job1/memory.limit_in_bytes": "1073741824\n",
            "cgroup/memory/slurm/job1/memory.usage_in_bytes": "73741824\n",
            "proc/meminfo": "MemTotal:       24000000 kB\nMemAvailable:   20000000 kB\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(system.availableCores(online: 16) == AvailableCores(count: 3, source: "cgroup v1 cpu quota"))
        #expect(system.availableMemory() == AvailableMemory(bytes: 1_000_000_000, source: "cgroup v1 limit"))
    }

    @Test func cgroupV2MemoryFromTheNamespaceRootAndMemAvailableWhenSmaller() throws {
        // Inside a container's cgroup namespace the own path's folder is missing; the root holds the files.
        let (system, root) = try kernel([
            "proc/self/cgroup": "0::/\n",
            "cgroup/memory.max": "536870912\n",
            "cgroup/memory.current": "36870912\n",
            "proc/meminfo": "MemAvailable:   400000 kB\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(system.cgroupMemoryRemaining()?.bytes == 500_000_000)
        #expect(system.availableMemory() == AvailableMemory(bytes: 409_600_000, source: "MemAvailable"))
    }

    @Test func v1WithoutALimitAndNothingReadable() throws {
        let (system, root) = try kernel([
            "proc/self/cgroup": "4:memory:/\n",
            "cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(system.cgroupMemoryRemaining() == nil)
        #expect(system.availableMemory() == AvailableMemory(bytes: nil, source: "unknown"))
        #expect(system.availableCores(online: 2) == AvailableCores(count: 2, source: "online cores"))
    }
}

/// Every thread count gifx decides from the cores (`ThreadCounts`), on machines given here: the rules worked by
/// hand from their documentation.
@Suite struct ThreadCountsTests {
    @Test func runAndEncoderThreads() {
        let whole = ThreadCounts(cores: 8, onlineCores: 8)
        let masked = ThreadCounts(cores: 2, onlineCores: 8)  // taskset -c 0,1 on an 8-core machine
        #expect(whole.run(requested: nil) == 8 && masked.run(requested: nil) == 2 && masked.run(requested: 5) == 5)
        // Every core usable: the encoder chooses (0); a mask or quota the encoder would not see: the cores.
        #expect(whole.encoder(requested: nil) == 0)
        #expect(masked.encoder(requested: nil) == 2)
        #expect(masked.encoder(requested: 3) == 3)
        // x264's own choice, 1.5 a online core, rounded up: 12 on 8 cores, 2 on 1.
        #expect(whole.encoderOwnChoice == 12 && ThreadCounts(cores: 1, onlineCores: 1).encoderOwnChoice == 2)
        #expect(whole.readBack(requested: nil) == 0 && whole.readBack(requested: 2) == 2)
        #expect(whole.pngDeflate(requested: nil, runThreads: 8) == 4 && whole.pngDeflate(requested: nil, runThreads: 3) == 3)
        #expect(whole.pngDeflate(requested: 1, runThreads: 8) == 1)
    }

    @Test func batchAndServiceThreads() {
        let sixteen = ThreadCounts(cores: 16, onlineCores: 16)
        #expect(sixteen.batchJobs(requested: nil, inputs: 4) == 4 && sixteen.threadsPerJob(jobs: 4) == 4)
        #expect(sixteen.batchJobs(requested: 8, inputs: 3) == 3 && sixteen.threadsPerJob(jobs: 3) == 5)
        #expect(sixteen.batchJobs(requested: nil, inputs: 0) == 1 && sixteen.threadsPerJob(jobs: 32) == 1)
        #expect(sixteen.service(requested: nil, limit: 256) == 16 && sixteen.service(requested: nil, limit: 8) == 8)
        #expect(sixteen.service(requested: 3, limit: 8) == 3)
        // At least one of everything, whatever a broken reading says.
        #expect(ThreadCounts(cores: 0, onlineCores: 0) == ThreadCounts(cores: 1, onlineCores: 1))
    }
}
