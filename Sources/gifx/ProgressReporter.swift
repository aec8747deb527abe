/// A run's progress as `--progress` asks: a bar created on the first report, when the total (frames, read
/// from the GIF) is known (`bar`, drawn only on a terminal and not `--quiet`); JSON lines (`json`); or nothing.
final class ProgressReporter {
    private let label: String
    private let quiet: Bool
    private let mode: ProgressMode
    private var bar: ProgressBar?
    /// The JSON writer (`--progress json`): its end line is written by `ProgressOptions.endingRun`.
    let json: JSONProgress?

    init(label: String, quiet: Bool, progress: ProgressOptions = ProgressOptions()) {
        self.label = label
        self.quiet = quiet
        mode = progress.mode
        json = progress.jsonProgress()
    }

    func update(_ done: Int, _ total: Int) {
        DeveloperSwitches.current.progressed(done: done)
        switch mode {
        case .bar:
            if bar == nil { bar = ProgressBar(total: total, label: label, quiet: quiet) }
            bar?.update(done)
        case .json: json?.update(done, total)
        case .none: break
        }
    }

    func finish() { bar?.finish() }
}
