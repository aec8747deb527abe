import Foundation

/// What a `BatchRunner` is asked to do, and what it reports at the end.
extension BatchRunner {
    struct Settings {
        var target: BatchTarget
        var outDir: String
        var jobs: Int
        /// What every conversion shares (the subcommand, its checked options, each one's memory budget and
        /// threads), sent once to each worker.
        var job: BatchJob.Settings
        var quiet: Bool
        /// `--timeout`: seconds a conversion may run before it gets SIGTERM, then SIGKILL after `terminationGrace`.
        var timeout: Double? = nil
        /// `--max-memory`: bytes of data each child may map (each worker's RLIMIT_DATA, `WorkerRole.batch`).
        var maxMemory: Int? = nil
        /// Seconds between SIGTERM (the child removes its temporary files and exits 143) and SIGKILL.
        var terminationGrace: Double = 5
        /// `--progress json`: a `jobStart` line per child started and a `jobEnd` line per input reported.
        var events: JSONProgress? = nil
        /// `--progress none` (or json): no bar even on a terminal.
        var showBar = true
        /// Inputs a worker converts before it is replaced: nil, as many as come; 1, one process per input
        /// (`GIFX_BATCH_PROCESS_PER_INPUT=1`, the model before workers, for comparison).
        var inputsPerWorker: Int? = nil
    }

    struct Summary {
        var converted = 0
        var skipped = 0
        /// Every failure, whatever its kind; the three kinds below are also counted on their own.
        var failed = 0
        var timedOut = 0
        var outOfMemory = 0
        var killedBySignal = 0
        /// Hidden temporary files of earlier, killed runs (or of children killed here) removed.
        var leftoversRemoved = 0
        var notStarted = 0
        var reportFailures = 0
        /// SIGINT or SIGTERM, when one stopped the batch.
        var stoppedBy: Int32?
    }
}
