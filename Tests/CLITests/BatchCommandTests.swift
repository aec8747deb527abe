import ChildProcesses
import Foundation
import GifFixtures
import GifxSystem
import Testing
@testable import gifx

#if canImport(Glibc)
import Glibc
#endif

@Suite struct BatchCommandTests {
    /// Good GIFs converted (frames and duration as built), bad ones reported with their error,
    /// one report line per input, exit 1; a rerun skips everything done without touching it.
    @Test func timelineBatchConvertsGoodReportsBadAndResumes() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try BatchLibrary(count: 7, in: folder.appendingPathComponent("lib"))
        let out = folder.appendingPathComponent("out")
        let report = folder.appendingPathComponent("report.jsonl").path

        let run = try runGifx(["batch", "timeline", library.root.path, "--out-dir", out.path,
                               "--report", report, "--jobs", "2"])
        #expect(run.status == 1, "\(run.stderr)")
        for bad in library.bad {
            #expect(run.stderrLines.contains { $0.hasPrefix("gifx: \(bad): ") })
        }

        let lines = readReport(report)
        #expect(lines.count == library.allInputs.count)
        let byInput = Dictionary(lines.compactMap { $0 }.map { ($0.input, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(Set(byInput.keys) == library.allInputs)
        for good in library.good {
            let expectedOutput = out.path + "/" + good.relativePath.dropLast(4) + ".timeline.json"
            let line = try #require(byInput[good.path])
            #expect(line.status == "ok")
            #expect(line.exitCode == 0)
            #expect(line.outputs == [expectedOutput])
            #expect(line.frames == good.frames)
            #expect(line.duration == Double(good.durationCentiseconds) / 100)
            let data = try Data(contentsOf: URL(fileURLWithPath: expectedOutput))
            let json = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect((json["frames"] as? [Any])?.count == good.frames)
            #expect((json["duration"] as? [String: Any])?["centiseconds"] as? Int == good.durationCentiseconds)
        }
        for bad in library.bad {
            let line = try #require(byInput[bad])
            #expect(line.status == "failed")
            #expect(line.exitCode == 65)
            #expect(line.outputs.isEmpty)
            #expect(line.error?.hasPrefix("\(bad): malformed GIF") == true, "\(line.error ?? "nil")")
        }
        // Only the finished outputs: no partial or temporary file, nothing for the bad inputs.
        #expect(filesUnder(out) == Set(library.good.map { $0.relativePath.dropLast(4) + ".timeline.json" }))

        let before = library.good.map { modificationTime(out.path + "/" + $0.relativePath.dropLast(4) + ".timeline.json") }
        let rerun = try runGifx(["batch", "timeline", library.root.path, "--out-dir", out.path,
                                 "--report", report, "--jobs", "2", "--quiet"])
        #expect(rerun.status == 1)
        #expect(rerun.stderr.isEmpty)
        let second = readReport(report).dropFirst(lines.count).compactMap { $0 }
        #expect(second.count == library.allInputs.count)
        #expect(Set(second.filter { $0.status == "skipped" }.map(\.input)) == Set(library.good.map(\.path)))
        #expect(Set(second.filter { $0.status == "failed" }.map(\.input)) == Set(library.bad))
        let after = library.good.map { modificationTime(out.path + "/" + $0.relativePath.dropLast(4) + ".timeline.json") }
        #expect(after == before)
    }

    /// SIGTERM midway: the running children are stopped (no temporary file left), the report holds
    /// only whole lines for finished inputs, and a rerun converts exactly the rest. Independent of machine
    /// speed: the inputs are the first 12 GIFs, two FIFOs nobody writes to (each holds one of the 2 jobs
    /// for ever, its child blocked in open(2)), then the other 12; so when the report has 12 lines the
    /// batch is exactly there, whatever the speed, and is stopped with 12 inputs never started.
    @Test func killedBatchResumesWithoutRedoingOrMissing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try BatchLibrary(count: 24, badCount: 0, in: folder.appendingPathComponent("lib"))
        let out = folder.appendingPathComponent("out")
        let report = folder.appendingPathComponent("report.jsonl").path
        let fifos = ["hold0.gif", "hold1.gif"].map { folder.appendingPathComponent($0).path }
        for fifo in fifos { #expect(mkfifo(fifo, 0o644) == 0) }
        let (early, late) = (Array(library.good.prefix(12)), Array(library.good.dropFirst(12)))
        let options = ["--out-dir", out.path, "--report", report, "--jobs", "2"]
        func sheet(_ good: BatchLibrary.Good) -> String {
            out.path + "/" + good.relativePath.split(separator: "/").last!.dropLast(4) + ".png"
        }

        let pid = try startGifx(["batch", "to-sprite"] + early.map(\.path) + fifos + late.map(\.path) + options,
                                logsIn: folder)
        let deadline = Date().addingTimeInterval(120)
        while readReport(report).count < early.count && Date() < deadline { usleep(5_000) }
        // The second FIFO's child starts just after the 12th line is written.
        while childProcesses(of: pid).count < 2 && Date() < deadline { usleep(5_000) }
        #expect(childProcesses(of: pid).count == 2, "both jobs should be held by the FIFOs")
        kill(pid, SIGTERM)
        let status = waitGifx(pid)
        let first = readReport(report)
        #expect(status == 143, "\((try? String(contentsOf: folder.appendingPathComponent("stderr"), encoding: .utf8)) ?? "")")
        #expect(first.count == early.count)
        #expect(first.allSatisfy { $0?.status == "ok" })
        #expect(Set(first.compactMap { $0?.input }) == Set(early.map(\.path)))
        #expect(!filesUnder(out).contains { $0.split(separator: "/").last!.hasPrefix(".") })
        #expect(filesUnder(out).count == 2 * early.count, "only the first 12 sheets (+ JSON) exist")
        let stamps = Dictionary(uniqueKeysWithValues: early.map { ($0.path, modificationTime(sheet($0))) })
        #expect(stamps.values.allSatisfy { $0 != nil })

        let rerun = try runGifx(["batch", "to-sprite"] + library.good.map(\.path) + options + ["--quiet"], timeout: 120)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let second = readReport(report).dropFirst(first.count).compactMap { $0 }
        #expect(second.count == library.good.count)
        #expect(Set(second.filter { $0.status == "skipped" }.map(\.input)) == Set(early.map(\.path)))
        #expect(Set(second.filter { $0.status == "ok" }.map(\.input)) == Set(late.map(\.path)))
        for good in library.good {
            #expect(FileManager.default.fileExists(atPath: sheet(good)), "\(good.relativePath)")
            if let stamp = stamps[good.path] { #expect(modificationTime(sheet(good)) == stamp) }
        }
        for line in second where line.status == "ok" {
            let good = try #require(library.good.first { $0.path == line.input })
            #expect(line.frames == good.frames)
        }
    }

    /// Shards 0..<N: pairwise disjoint, together every input, each exactly the inputs whose FNV-1a
    /// of the relative path is K mod N; `--shard auto` reads the schedulers' variables the same way.
    @Test func shardsPartitionTheInputs() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try BatchLibrary(count: 12, badCount: 0, in: folder.appendingPathComponent("lib"))
        let count = 3
        var seen: [String: Int] = [:]
        for k in 0..<count {
            let report = folder.appendingPathComponent("r\(k).jsonl").path
            let run = try runGifx(["batch", "timeline", library.root.path, "--out-dir",
                                   folder.appendingPathComponent("out").path, "--report", report,
                                   "--shard", "\(k)/\(count)", "--quiet"])
            #expect(run.status == 0, "\(run.stderr)")
            let inputs = readReport(report).compactMap { $0?.input }
            for input in inputs { seen[input, default: 0] += 1 }
            let expected = library.good.filter { referenceShard(of: $0.relativePath, count: count) == k }.map(\.path)
            #expect(Set(inputs) == Set(expected), "shard \(k)")
        }
        #expect(Set(seen.keys) == library.allInputs)
        #expect(seen.values.allSatisfy { $0 == 1 })

        // The same shard from the environment: Kubernetes Indexed Job, then a Slurm array starting at 1.
        let environments: [[String: String]] = [
            ["JOB_COMPLETION_INDEX": "1", "GIFX_SHARD_COUNT": "3"],
            ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3"],
        ]
        for (i, extra) in environments.enumerated() {
            let report = folder.appendingPathComponent("auto\(i).jsonl").path
            let run = try runGifx(
                ["batch", "timeline", library.root.path, "--out-dir", folder.appendingPathComponent("auto\(i)").path,
                 "--report", report, "--shard", "auto", "--quiet"],
                environment: ProcessInfo.processInfo.environment.merging(extra) { _, new in new })
            #expect(run.status == 0, "\(run.stderr)")
            let expected = library.good.filter { referenceShard(of: $0.relativePath, count: 3) == 1 }.map(\.path)
            #expect(Set(readReport(report).compactMap { $0?.input }) == Set(expected))
        }
    }

    /// Usage errors exit 64 before anything is written; a missing input is one failed line (exit 1);
    /// all good exits 0; the command's options after `--` reach every conversion.
    @Test func exitCodesAndOptionPassthrough() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try BatchLibrary(count: 2, badCount: 0, in: folder.appendingPathComponent("lib"))
        let out = folder.appendingPathComponent("out").path
        let lib = library.root.path
        let usage: [[String]] = [
            ["batch", "timeline", lib],                                           // no --out-dir
            ["batch", "convert", lib, "--out-dir", out],                          // unknown command
            ["batch", "timeline", "--out-dir", out],                              // no input
            ["batch", "to-sprite", lib, "--padding", "2", "--out-dir", out],      // command option before --
            ["batch", "to-sprite", lib, "--out-dir", out, "--", "-o", "x.png"],   // batch names the outputs
            ["batch", "to-sprite", lib, "--out-dir", out, "--", "--bogus"],       // rejected by to-sprite itself
            ["batch", "timeline", lib, "--out-dir", out, "--shard", "3/3"],
            ["batch", "timeline", lib, "--out-dir", out, "--jobs", "0"],
        ]
        for arguments in usage {
            let run = try runGifx(arguments)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(arguments)")
        }
        let noScheduler = ProcessInfo.processInfo.environment.filter {
            !["GIFX_SHARD_INDEX", "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"].contains($0.key)
        }
        let auto = try runGifx(["batch", "timeline", lib, "--out-dir", out, "--shard", "auto"], environment: noScheduler)
        #expect(auto.status == 64)

        let report = folder.appendingPathComponent("r.jsonl").path
        let missing = folder.appendingPathComponent("missing.gif").path
        let partial = try runGifx(["batch", "timeline", lib, missing, "--out-dir", out, "--report", report])
        #expect(partial.status == 1)
        let line = try #require(readReport(report).compactMap { $0 }.first { $0.input == missing })
        #expect(line.status == "failed")
        #expect(line.exitCode == 66)

        // Options after -- reach the conversion: --policy browser is echoed in each timeline's JSON.
        let browser = folder.appendingPathComponent("browser").path
        let ok = try runGifx(["batch", "timeline", lib, "--out-dir", browser, "--quiet", "--", "--policy", "browser"])
        #expect(ok.status == 0, "\(ok.stderr)")
        for good in library.good {
            let data = try Data(contentsOf: URL(fileURLWithPath: browser + "/" + good.relativePath.dropLast(4) + ".timeline.json"))
            let json = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(json["policy"] as? String == "browser")
        }
    }

    /// Paths on standard input; two inputs with one output name: the first wins, the other fails.
    @Test func standardInputListAndCollisions() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gif = try FixtureGIF.solidFrames(width: 2, height: 2, colorIndices: [1, 2], delays: [6, 6]).encode()
        for name in ["a/x.gif", "b/x.gif", "c/y.gif"] {
            let url = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try gif.write(to: url)
        }
        let out = folder.appendingPathComponent("out")
        let report = folder.appendingPathComponent("r.jsonl").path
        let list = ["a/x.gif", "b/x.gif", "c/y.gif"].map { folder.appendingPathComponent($0).path }
        let run = try runGifx(["batch", "timeline", "-", "--out-dir", out.path, "--report", report, "--quiet"],
                              stdin: Data((list.joined(separator: "\n") + "\n").utf8))
        #expect(run.status == 1)
        let lines = readReport(report).compactMap { $0 }
        #expect(lines.count == 3)
        #expect(lines.first { $0.input == list[0] }?.status == "ok")
        #expect(lines.first { $0.input == list[2] }?.status == "ok")
        let loser = try #require(lines.first { $0.input == list[1] })
        #expect(loser.status == "failed")
        #expect(loser.error?.contains("also the output of \(list[0])") == true, "\(loser.error ?? "nil")")
        #expect(filesUnder(out) == ["x.timeline.json", "y.timeline.json"])
    }

    // MARK: - Workers and the sharing of the cores (issue 39)

    /// The rule: `--jobs` (default: the cores) but never more jobs than inputs to convert, the cores divided
    /// among the jobs that run (at least one thread each); `--threads` after `--`, or `timeline`, sets none.
    @Test func jobsNeverExceedTheInputsAndShareTheCores() {
        let sprite = BatchTarget(command: .toSprite)
        func threads(requested: Int?, toConvert: Int, cores: Int) -> [String] {
            let jobs = BatchTarget.runningJobs(requested: requested, toConvert: toConvert, threads: ThreadCounts(cores: cores, onlineCores: cores))
            return sprite.threadArguments(jobs: jobs, passthrough: [], threads: ThreadCounts(cores: cores, onlineCores: cores))
        }
        #expect(BatchTarget.runningJobs(requested: nil, toConvert: 4, threads: ThreadCounts(cores: 16, onlineCores: 16)) == 4)
        #expect(threads(requested: nil, toConvert: 4, cores: 16) == ["--threads", "4"])
        #expect(threads(requested: nil, toConvert: 64, cores: 16) == ["--threads", "1"])
        #expect(threads(requested: 8, toConvert: 3, cores: 16) == ["--threads", "5"])
        #expect(threads(requested: 2, toConvert: 100, cores: 16) == ["--threads", "8"])
        #expect(threads(requested: 32, toConvert: 100, cores: 16) == ["--threads", "1"])
        #expect(BatchTarget.runningJobs(requested: nil, toConvert: 0, threads: ThreadCounts(cores: 16, onlineCores: 16)) == 1, "nothing to convert: one job")
        #expect(threads(requested: nil, toConvert: 1, cores: 1) == ["--threads", "1"])
        #expect(sprite.threadArguments(jobs: 2, passthrough: ["--threads", "3"], threads: ThreadCounts(cores: 16, onlineCores: 16)).isEmpty)
        #expect(sprite.threadArguments(jobs: 2, passthrough: ["--threads=3"], threads: ThreadCounts(cores: 16, onlineCores: 16)).isEmpty)
        #expect(BatchTarget(command: .timeline).threadArguments(jobs: 1, passthrough: [], threads: ThreadCounts(cores: 16, onlineCores: 16)).isEmpty)
    }

    /// One input with `--jobs 8` runs as one job with every core (counted by nproc(1), which reads the same
    /// affinity mask); an input already up to date takes no job, so the one left still gets every core.
    @Test(.enabled(if: ProcessInfo.processInfo.activeProcessorCount > 1, "one core: nothing to share"))
    func leftoverCoresGoToTheRunningJobs() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try BatchLibrary(count: 2, badCount: 0, in: folder.appendingPathComponent("lib"))
        let nproc = try CapturedRun.run("/usr/bin/nproc", [], timeout: 10)
        let cores = try #require(Int(String(decoding: nproc.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        let out = folder.appendingPathComponent("out").path
        let first = try runGifx(["batch", "to-sprite", library.good[0].path, "--out-dir", out, "--jobs", "8"], timeout: 60)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("each of 1 job(s): \(cores) thread(s)"), "\(first.stderr)")
        let both = try runGifx(["batch", "to-sprite"] + library.good.map(\.path) + ["--out-dir", out], timeout: 60)
        #expect(both.status == 0, "\(both.stderr)")
        #expect(both.stderr.contains("1 converted, 1 skipped"), "\(both.stderr)")
        #expect(both.stderr.contains("each of 1 job(s): \(cores) thread(s)"), "\(both.stderr)")
    }

    /// `--jobs 1`: one worker process converts every input, failures (exit 65, a malformed GIF) included,
    /// and the report is what one process per input gives (`GIFX_BATCH_PROCESS_PER_INPUT=1`, where every
    /// input has a process of its own): same statuses, exit codes, frames and durations, same outputs.
    @Test func oneWorkerConvertsInputAfterInputAsProcessesOfTheirOwnWould() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try BatchLibrary(count: 5, badCount: 2, in: folder.appendingPathComponent("lib"))
        var results: [String: (pids: [Int], lines: [String: ReportLine], files: Set<String>, stderr: String)] = [:]
        for (arm, perInput) in [("workers", false), ("per-input", true)] {
            var environment = ProcessInfo.processInfo.environment
            environment["GIFX_BATCH_PROCESS_PER_INPUT"] = perInput ? "1" : nil
            let out = folder.appendingPathComponent("out-\(arm)")
            let report = folder.appendingPathComponent("\(arm).jsonl").path
            let run = try runGifx(
                ["batch", "timeline", library.root.path, "--out-dir", out.path, "--report", report, "--jobs", "1",
                 "--progress", "json"], timeout: 60, environment: environment)
            #expect(run.status == 1, "\(run.stderr)")
            let pids = run.stderrLines.compactMap(ProgressJSONTests.object)
                .filter { $0["event"] as? String == "jobStart" }.compactMap { $0["pid"] as? Int }
            let lines = Dictionary(readReport(report).compactMap { $0 }.map { ($0.input, $0) }, uniquingKeysWith: { a, _ in a })
            results[arm] = (pids, lines, filesUnder(out), run.stderr)
        }
        let workers = try #require(results["workers"]), perInput = try #require(results["per-input"])
        #expect(workers.pids.count >= library.good.count, "a jobStart per conversion")
        #expect(Set(workers.pids).count == 1, "one worker for every input: \(workers.pids)")
        #expect(Set(perInput.pids).count == perInput.pids.count, "a process per input: \(perInput.pids)")
        #expect(Set(workers.lines.keys) == library.allInputs)
        #expect(Set(perInput.lines.keys) == library.allInputs)
        for input in library.allInputs {
            let a = try #require(workers.lines[input]), b = try #require(perInput.lines[input])
            #expect(a.status == b.status, "\(input)")
            #expect(a.exitCode == b.exitCode, "\(input)")
            #expect(a.error == b.error, "\(input)")
            #expect(a.frames == b.frames && a.duration == b.duration, "\(input)")
        }
        for good in library.good {
            #expect(workers.lines[good.path]?.frames == good.frames, "\(good.relativePath)")
            #expect(workers.lines[good.path]?.duration == Double(good.durationCentiseconds) / 100, "\(good.relativePath)")
        }
        #expect(workers.files == perInput.files)
        #expect(workers.files.count == library.good.count)
    }
}
