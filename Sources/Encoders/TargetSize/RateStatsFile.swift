import Foundation
import GifxPOSIXFiles
import GifxPipeline

#if canImport(Glibc)
import Glibc
#endif

/// Where x264 or x265 write a first pass's rate statistics (`stats=`), private in the run's scratch folder; the encoders also
/// write `.mbtree` / `.cutree` and `.temp` files beside it. All are removed when this goes, or on a signal.
final class RateStatsFile {
    let path: String
    private var companions: [String] { [path, path + ".temp", path + ".mbtree", path + ".mbtree.temp", path + ".cutree", path + ".cutree.temp"] }

    init(folder: String) throws {
        switch POSIXFiles.makeHiddenTemporary(beside: folder + "/gifx-ratestats") {
        case .success(let file):
            try? file.fd.close()
            path = file.path
        case .failure(let error):
            throw OutputError(path: folder, reason: "cannot create a rate statistics file: \(error)", failure: .io)
        }
        for file in companions { TemporaryFiles.shared.register(file) }
    }

    deinit {
        for file in companions {
            unlink(file)
            TemporaryFiles.shared.unregister(file)
        }
    }
}
