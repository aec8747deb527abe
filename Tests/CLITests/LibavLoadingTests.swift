import ChildProcesses
import Foundation
import GifFixtures
import SystemPackage
import Testing

/// libav is opened on first use (Sources/CAV/loader.c), so commands that encode no video start without
/// libavcodec and its dependency tree. Checked on the running process: gifx is started reading a GIF
/// from a pipe, its memory map is read while it waits, then the GIF is sent and the run must succeed.
@Suite("libav is loaded only by the commands that need it")
struct LibavLoadingTests {
    /// The shared objects mapped by `pid`, once the dynamic loader is done (giflib is mapped).
    private func mappedLibraries(of pid: Int32) throws -> String {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            // /proc files report size 0: read them to the end, not by their size.
            let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/maps")
            let maps = String(decoding: (try? handle?.readToEnd()) ?? Data(), as: UTF8.self)
            try? handle?.close()
            if maps.contains("libgif") { return maps }
            Thread.sleep(forTimeInterval: 0.01)
        }
        Issue.record("gifx (pid \(pid)) never mapped giflib")
        return ""
    }

    /// Starts `gifx arguments` with a pipe on stdin, returns its mapped libraries, then feeds `gif`.
    private func librariesWhileWaiting(_ arguments: [String], feeding gif: Data) throws -> (maps: String, status: Int32) {
        let input = try FileDescriptor.pipe()
        // The write end must not stay open in the child, or its standard input never ends.
        _ = fcntl(input.writeEnd.rawValue, F_SETFD, FD_CLOEXEC)
        let child: SpawnedProcess
        do {
            defer { try? input.readEnd.close() }
            child = try SpawnedProcess.spawn(gifxExecutable().path, arguments, stdin: .descriptor(input.readEnd))
        } catch {
            try? input.writeEnd.close()
            throw error
        }
        let maps = try mappedLibraries(of: child.pid)
        try input.writeEnd.writeAll(gif)
        try input.writeEnd.close()
        return (maps, try child.wait()?.shellStatus ?? -1)
    }

    private let gif = FixtureGIF.solidFrames(width: 8, height: 6, colorIndices: [1, 2], delays: [5, 10])

    @Test("gifx timeline runs without mapping libavcodec, libavformat or libswscale")
    func timelineNeedsNoLibav() throws {
        let run = try librariesWhileWaiting(["timeline", "-", "--json"], feeding: try gif.encode())
        #expect(run.status == 0)
        #expect(run.maps.contains("libgif"))
        for library in ["libavcodec", "libavformat", "libswscale", "libavutil"] {
            #expect(!run.maps.contains(library), "\(library) is mapped at start-up")
        }
    }

    @Test("gifx to-sprite (unscaled) runs without mapping libavcodec")
    func spriteNeedsNoLibav() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("sheet.png").path
        let run = try librariesWhileWaiting(["to-sprite", "-", "-o", output, "--quiet"], feeding: try gif.encode())
        #expect(run.status == 0)
        #expect(FileManager.default.fileExists(atPath: output))
        #expect(!run.maps.contains("libavcodec"))
    }

    /// Empty files named like the installed libav libraries, found first through LD_LIBRARY_PATH, make
    /// dlopen fail the way a missing or broken installation does.
    private func brokenLibavFolder() throws -> URL {
        let folder = try temporaryFolder("broken-libav")
        #if arch(arm64)
        let system = "/usr/lib/aarch64-linux-gnu"
        #else
        let system = "/usr/lib/x86_64-linux-gnu"
        #endif
        let names = (try? FileManager.default.contentsOfDirectory(atPath: system)) ?? []
        for name in names where name.range(of: #"^lib(avutil|swscale|avcodec|avformat)\.so\.[0-9]+$"#, options: .regularExpression) != nil {
            _ = FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: Data())
        }
        return folder
    }

    @Test("Without loadable libav: to-mp4 and scaled to-sprite fail in one line (70), leave nothing; the rest works")
    func unloadableLibavIsOneClearLine() throws {
        let libraries = try brokenLibavFolder()
        let folder = try temporaryFolder()
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: libraries)
        }
        try #require(
            (try FileManager.default.contentsOfDirectory(atPath: libraries.path)).contains { $0.hasPrefix("libavutil.so.") },
            "no libavutil.so.N in the multiarch library folder to shadow")
        var environment = ProcessInfo.processInfo.environment
        environment["LD_LIBRARY_PATH"] = libraries.path
        let input = try writeGIF(gif, to: folder)
        let outputs = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)

        for arguments in [["to-mp4", input, "-o", outputs.appendingPathComponent("a.mp4").path],
                          ["to-sprite", input, "-o", outputs.appendingPathComponent("b.png").path, "--scale", "2"]] {
            let run = try runGifx(arguments, environment: environment)
            #expect(run.status == 70, "\(arguments[0]): \(run.stderr)")
            #expect(run.stderrLines.count == 1)
            #expect(run.stderr.contains("cannot load libavutil.so."))
            #expect(try FileManager.default.contentsOfDirectory(atPath: outputs.path).isEmpty)
        }
        let timeline = try runGifx(["timeline", input, "--json"], environment: environment)
        #expect(timeline.status == 0)
        let sprite = try runGifx(
            ["to-sprite", input, "-o", outputs.appendingPathComponent("c.png").path, "--quiet"], environment: environment)
        #expect(sprite.status == 0, "\(sprite.stderr)")
    }
}
