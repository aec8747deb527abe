/// A progress bar created on the first report, when the total (frames, read from the GIF) is known.
final class LazyProgressBar {
    private let label: String
    private let quiet: Bool
    private var bar: ProgressBar?
    init(label: String, quiet: Bool) { self.label = label; self.quiet = quiet }
    func update(_ done: Int, _ total: Int) {
        if bar == nil { bar = ProgressBar(total: total, label: label, quiet: quiet) }
        bar?.update(done)
    }
    func finish() { bar?.finish() }
}
