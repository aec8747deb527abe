import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One folder per test process, under the temporary directory, that every test's files and folders go into
/// (`temporaryFolder`, `mp4Folder`, `temporaryFile`): removed with all it holds when the process exits, so a
/// test that forgets its own clean-up, or fails before it, leaves nothing in /tmp. A process that dies of a
/// signal leaves its folder, named with its PID.
public enum TestScratch {
    public static let folder: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("gifx-tests-\(getpid())-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { TestScratch.removeFolder() }
        return url
    }()

    /// A fresh path in the folder: `prefix`, the test's name (letters and digits), a UUID and `suffix`.
    public static func path(_ prefix: String, name: String, suffix: String = "") -> URL {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        return folder.appendingPathComponent("\(prefix)-\(safe)-\(UUID().uuidString)\(suffix)")
    }

    static func removeFolder() {
        try? FileManager.default.removeItem(at: folder)
    }
}
