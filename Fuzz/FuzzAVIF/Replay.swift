// Without libFuzzer the target replays the files named on its command line (FuzzSupport).
#if !GIFX_LIBFUZZER
import FuzzSupport

@main
enum Replay {
    static func main() {
        replayFuzzInputs(target: "fuzz-avif", script: "Fuzz/run.sh", verdict: "ok", fuzzTestOneInput)
    }
}
#endif
