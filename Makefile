# gifx — the two commands: `make demo` and `make test`. Both install what is missing first.
SHELL := /bin/bash
SWIFT ?= swift
# Debian packages gifx builds against; ffmpeg (ffprobe), webp (webpmux) and libavif-bin (avifenc, avifdec) are the
# tests' independent oracles.
PACKAGES := libgif-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libx264-dev libpng-dev libwebp-dev libavif-dev libdav1d-dev libavif-bin pkg-config ffmpeg webp time python3-yaml vpx-tools dav1d libde265-examples openssl gdb
GIFX := .build/debug/gifx
EXAMPLES := $(wildcard Examples/*.gif)
DEMO_OUT := Examples/out

.PHONY: all deps build demo test lint check-units docs-check warnings-check api-check conformance conformance-fetch conformance-matrix encoder-matrix library-usage docs asan tsan bench bench-quality soak-serve examples fuzz fuzz-smoke clean browser-deps browser-check \
	dist-binary dist-share dist install uninstall dist-check image image-check slurm-check

all: build

## deps: install the Debian packages that are missing (apt-get; needs root or sudo).
deps:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "install ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null \
			|| { echo "make deps: could not install $$missing" >&2; exit 1; }; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "make deps: swift is not on PATH (https://swift.org/install)" >&2; exit 1; }
	@# Pillow: the second, independent PNG decoder of the sprite tests and the animated WebP reader of the
	@# convert tests (both skipped, and reported so, without it).
	@python3 -c "import PIL" 2>/dev/null || python3 -m pip install -q Pillow >/dev/null 2>&1 \
		|| echo "make deps: could not install Pillow (python3 -m pip install Pillow); its sprite test will be skipped" >&2
	@# html5lib: the strict HTML parser of the embed and verify --report tests (skipped, and reported so, without it).
	@python3 -c "import html5lib" 2>/dev/null || python3 -m pip install -q html5lib >/dev/null 2>&1 \
		|| echo "make deps: could not install html5lib (python3 -m pip install html5lib); its HTML checks will be skipped" >&2

build: deps
	$(SWIFT) build --product gifx

## demo: convert every GIF in Examples/ and say where the results are.
demo: build
	@mkdir -p $(DEMO_OUT)
	@for gif in $(EXAMPLES); do \
		name=$$(basename $$gif .gif); \
		echo "== $$gif"; \
		$(GIFX) timeline $$gif || exit $$?; \
		$(GIFX) timeline $$gif --json > $(DEMO_OUT)/$$name.timeline.json || exit $$?; \
		$(GIFX) to-mp4 $$gif -o $(DEMO_OUT)/$$name.mp4 --overwrite --quiet || exit $$?; \
		$(GIFX) to-sprite $$gif -o $(DEMO_OUT)/$$name.png --json $(DEMO_OUT)/$$name.json --overwrite --quiet || exit $$?; \
		$(GIFX) convert $$gif -o $(DEMO_OUT)/$$name.webm -o $(DEMO_OUT)/$$name.webp -o $(DEMO_OUT)/$$name.jpg --overwrite --quiet || exit $$?; \
		echo; \
	done
	@echo "Outputs (MP4, sprite sheet PNG + JSON, timeline JSON; WebM with alpha, animated WebP, JPEG poster from one decode) in $(abspath $(DEMO_OUT)):"
	@ls -1 $(DEMO_OUT) | sed 's|^|  $(DEMO_OUT)/|'

## library-usage: gifx as a Swift library. Builds Examples/library-usage (a separate package that depends on
## gifx by path) and runs it: timeline, MP4 + sprite sheet with progress, a cancelled conversion that must
## leave nothing behind. It exits 1 if any of that fails.
library-usage: deps
	@# SwiftPM keeps a path dependency's file list from its last plan: a pull that adds files to gifx would not
	@# be compiled into the example (seen twice). A newer manifest makes it plan again (about a second).
	@touch Examples/library-usage/Package.swift
	@# Nor did it recompile the example's own main.swift when a gifx struct it copies changed layout (a crash in
	@# "outlined init with copy of VideoResult", seen once): its objects are rebuilt every time (a few seconds).
	@rm -rf Examples/library-usage/.build/*/debug/library_usage.build
	$(SWIFT) build --package-path Examples/library-usage
	@out=$$(mktemp -d); Examples/library-usage/.build/debug/library-usage Examples/bouncing-ball.gif $$out; \
		status=$$?; rm -rf $$out; exit $$status

## docs: DocC documentation of each library product (swift-docc-plugin); any DocC warning fails the build, and
## so does a public GifxKit name that is not curated in GifxKit.docc (packaging/api_curation_check.py, at most 60),
## and docs/openapi.yaml that differs from the service's routes, formats or error codes (packaging/openapi_check.py).
## Archives land in .build/plugins/Swift-DocC/outputs/.
## docs/cli.md, the flag reference, is generated from the ArgumentParser declarations
## (packaging/cli_reference.py over `gifx --experimental-dump-help`): `make cli-reference` writes it, and
## `make docs` (so `make test`, so CI) fails when the checked-in file differs from what the code says.
## It runs docs-check and facade-check first.
LIBRARY_PRODUCTS := GifxTimeline GifxKit
CLI_REFERENCE := docs/cli.md
docs: deps docs-check facade-check cli-reference-check
	@set -o pipefail; for target in $(LIBRARY_PRODUCTS); do \
		$(SWIFT) package generate-documentation --target $$target --warnings-as-errors 2>&1 | grep -v '^\[' || exit 1; \
	done
	@for target in $(LIBRARY_PRODUCTS); do python3 packaging/api_curation_check.py $$target || exit 1; done
	@python3 packaging/openapi_check.py $(GIFX)
	@python3 packaging/openapi_gen.py $(GIFX) --check

## openapi: regenerate docs/openapi.yaml's blocks that come from the registry of output kinds (`gifx formats --json`:
## the format parameter, the output settings, each format's media type; packaging/openapi_gen.py); `make docs`
## fails when the checked-in file differs from what the registry says.
.PHONY: openapi
openapi: deps
	$(SWIFT) build --product gifx
	python3 packaging/openapi_gen.py $(GIFX)

.PHONY: cli-reference cli-reference-check
cli-reference: deps
	$(SWIFT) build --product gifx
	python3 packaging/cli_reference.py $(GIFX) > $(CLI_REFERENCE)
cli-reference-check: deps
	@$(SWIFT) build --product gifx >/dev/null
	@mkdir -p .build && python3 packaging/cli_reference.py $(GIFX) > .build/cli.md
	@diff -u $(CLI_REFERENCE) .build/cli.md >/dev/null || { diff -u $(CLI_REFERENCE) .build/cli.md | head -40; \
		echo "$(CLI_REFERENCE) is stale: the options changed; run make cli-reference and commit it" >&2; exit 1; }
	@echo "$(CLI_REFERENCE): up to date with the option declarations"

## test: build and run every test (Swift Testing), the library example and the documentation build, then one
## line "N passed, F failed, K skipped" and every skipped test with its reason (.ci/test-summary); then the
## encoder matrix's sample, the conformance matrix's sample, the conformance files and `make api-check`'s run. Fails if a test fails or none ran,
## or if the build of our own targets has a compiler warning (warnings-check).
TEST_LOG ?= .build/test.log
TEST_MINUTES ?= 30
test: deps library-usage docs conformance-fetch check-units lint
	$(SWIFT) build --build-tests
	@# The test process writes to a file, followed live by tail: through a pipe (`| tee`), runs on a loaded
	@# machine lost up to 67 of Swift Testing's result lines (the run itself passed), so the summary undercounted.
	@# .ci/watchdog stops a run that goes past TEST_MINUTES (about 4 minutes on an idle 2-core machine), after
	@# writing the process tree and every thread's stack into the log: a hang fails with its evidence, within CI's time.
	@status=0; python3 packaging/warnings_check.py || status=1; : > $(TEST_LOG); $(SWIFT) test --skip-build >> $(TEST_LOG) 2>&1 & pid=$$!; \
		bash .ci/watchdog $$pid $(TEST_MINUTES) $(TEST_LOG) & tail -n +1 -f --pid=$$pid $(TEST_LOG); \
		wait $$pid || status=$$?; \
		bash .ci/test-summary $(TEST_LOG) || { [ $$status -ne 0 ] || status=1; }; \
		python3 Tests/EncoderMatrix/encoder_matrix.py --gifx $(GIFX) --sample || { [ $$status -ne 0 ] || status=1; }; \
		python3 Tests/ConformanceMatrix/conformance_matrix.py --gifx $(GIFX) --sample || { [ $$status -ne 0 ] || status=1; }; \
		python3 Tests/Conformance/conformance.py $(CONFORMANCE_DIR) --gifx $(GIFX) || { [ $$status -ne 0 ] || status=1; }; \
		python3 packaging/api-check/api_check.py --gifx $(GIFX) || { [ $$status -ne 0 ] || status=1; }; \
		exit $$status

## docs-check: the docs name only what exists (packaging/docs_check.py; issue 58): every repository path
## (Sources/, Tests/, Fuzz/, packaging/, Benchmarks/, docs/, Examples/) and relative link named in docs/*.md and
## README.md exists, unless git ignores it or an HTML comment marks it `<!-- docs-check: foreign PROJECT -->`
## (another project's tree) or `<!-- docs-check: absent WHY -->` (made at run time): at the end of a line for that
## line, alone on a line up to the next heading; every `make TARGET` they name is a target here; every docs/ file
## and section ("Title" beside it) that Sources/ or a doc names exists; every environment variable Sources/ reads
## or sets has exactly one row in docs/environment.md, and each row's variable is read somewhere; docs/architecture.md
## is one screen (at most 60 lines of at most 100 characters). Under a second.
docs-check:
	@python3 packaging/docs_check.py

## lint: no branch on the video codec outside its own folder (packaging/codec_lint.py; issue 58, item 2): no `==`,
## `!=`, `switch` or `case` on a codec (`VideoCodec`'s members, read from the codec folders), no `AV_CODEC_ID_*` and
## no encoder name as a string ("libx264", "libsvtav1", ...) in Sources/ outside Sources/Encoders/Video/<codec>/; each
## finding is `path:line: reason`. Shared code asks the codec's `VideoCodecDescriptor`. `make test` runs it first:
## under a second.
lint:
	@python3 packaging/codec_lint.py

## check-units: no time literal (10, 100, 1000, 10_000, 1_000_000) in arithmetic outside
## Sources/Timeline/MediaTime.swift but the lines packaging/units-allowlist.txt names, each with its reason
## (packaging/check_units.py; issue 57). `make test` runs it first: under a second.
check-units:
	@python3 packaging/check_units.py

## facade-check: the command line (Sources/gifx) and the service (Sources/Server) reach the conversion through GifxKit
## alone (packaging/facade_check.py; issue 58): no import there of GifxEncoders, GifxPipeline, GifxChecks, GifxFrames
## or the C libraries below them, and none of them in the gifx or GifxServer target's dependencies in Package.swift.
## What they need of the conversion is named in Sources/GifxKit/PackageFace.swift. `make docs` runs it: under a second.
.PHONY: facade-check
facade-check:
	@python3 packaging/facade_check.py

## warnings-check: the debug build of our own targets (Sources/, Tests/) has no compiler warning; `make test`
## runs it after its build. It reads what the build left (packaging/warnings_check.py: each Swift file's
## serialized diagnostics, kept for files an incremental build did not recompile, read with the toolchain's
## libclang; our C files compiled again with -fsyntax-only), so it adds no build of its own: about a second.
## Dependencies' warnings (.build/checkouts) are not ours and are ignored.
warnings-check: deps
	$(SWIFT) build --build-tests
	python3 packaging/warnings_check.py

## api-check: docs/openapi.yaml against a running `gifx serve`, by schemathesis (issue 50; pinned in
## packaging/api-check/api_check.py, installed from PyPI into .build/api-check/venv when missing): every check,
## the examples, coverage, fuzzing and stateful phases, a fixed seed, real GIF, WebP and APNG bodies made with Pillow,
## and signed URLs to a local origin serving them (so conversions run, and the stateful phase reaches /v1/o/{key}
## through the spec's link). The service runs on 127.0.0.1 at a free port with a temporary cache and
## --memory-budget 256M, and is stopped at the end whatever happens. Ends with one line "api-check: ok: ...
## N requests, 0 failed checks, 0 errors in S s"; exit 1 on any failure. About 730 requests: 32 s on 2 cores,
## 52-85 s while other builds share them (make's `swift build` check before it can add a minute on a busy
## machine; the first run adds about 25 s for schemathesis's install). `make test` runs it after the Swift tests.
api-check: deps
	$(SWIFT) build --product gifx
	python3 packaging/api-check/api_check.py --gifx $(GIFX)

## conformance: the public conformance files of WebP and APNG input (issue 35), fetched at test time and never
## committed (Tests/Conformance/fetch.sh: Pillow's pinned sdist from PyPI, whose Tests/images carry Philip
## Jägenstedt's APNG tests and Pillow's animated PNGs and WebPs; cached in .build/conformance), then every
## animated file checked under both policies (Tests/Conformance/conformance.py): gifx converts it (exit 0, or
## 65 with one line where it is broken on purpose), its frames match libwebp's WebPAnimDecoder byte for byte
## (WebP) or FFmpeg's apng decoder and Pillow (APNG), its schedule the players' rules. `make test` runs it after
## the Swift tests. CONFORMANCE_TABLE=file also writes the per-file table (docs/conformance.md has it).
CONFORMANCE_DIR := .build/conformance
conformance-fetch:
	@bash Tests/Conformance/fetch.sh $(CONFORMANCE_DIR)
conformance: deps conformance-fetch
	$(SWIFT) build --product gifx
	python3 Tests/Conformance/conformance.py $(CONFORMANCE_DIR) --gifx $(GIFX) $(if $(CONFORMANCE_TABLE),--markdown $(CONFORMANCE_TABLE))

## encoder-matrix: every encoder gifx drives (H.264, HEVC, VP9 with and without alpha, AV1 through SVT-AV1 and
## through libaom, WebP lossless and lossy, AVIF) over generated GIFs of 1-130 px in both dimensions (odd and
## even) and a few large ones, at ticks of 1, 2, 3 and 7 cs, --fps auto, --vfr, --fps 30, --max-fps, and with
## --loops, one-frame GIFs, --target-size, --level, --threads 1 and a small --memory-budget, all under
## MALLOC_CHECK_=3 (Tests/EncoderMatrix/encoder_matrix.py). Each cell must exit 0 with an output that ffprobe
## (and webpmux) and gifx verify accept, or refuse in one line with exit 64, 65 or 78; a signal, another
## exit code or a hang fails it. Ends with "N passed, F failed"; docs/reliability.md ("Encoder matrix") has
## its size and duration. `make test` runs a sample of it (about 70 cells, under a minute on 2 cores).
MATRIX_ARGS ?=
encoder-matrix: build
	python3 Tests/EncoderMatrix/encoder_matrix.py --gifx $(GIFX) $(MATRIX_ARGS)

## conformance-matrix: every input format (GIF, WebP, APNG, AVIF) x schedule (mixed delays with 0 and 1 cs under
## both policies, APNG's and AVIF's 1/30 s, a 5 s pause, one frame) x loops (once, 3, forever) x output kind x delivery path (a
## file, a pipe, batch, serve with a POST and with stream=1, GifxKit), generated from the registries (`gifx formats
## --json`): gifx verify, what each file declares (boxes, Matroska Duration, webpmux, acTL/fcTL, the sheet's
## JSON) against `timeline --json`, X-Gifx-Timeline and batch's report (Tests/ConformanceMatrix; docs/conformance.md
## "The conformance matrix" has the table per kind and the run's duration). `make test` runs its sample.
conformance-matrix: build library-usage
	python3 Tests/ConformanceMatrix/conformance_matrix.py --gifx $(GIFX) $(MATRIX_ARGS)

## asan: every test under AddressSanitizer + LeakSanitizer (its own scratch path .build-asan; slow, not
## part of `make test`). Known third-party leaks are suppressed by Tests/lsan-suppressions.txt (each with
## its reason); any other leak, in a test process or in a gifx child it runs, fails. Children get 5x the
## usual time before a test calls them hung (GIFX_TEST_TIME_SCALE); full stacks (fast_unwind_on_malloc=0)
## so a suppression can name the caller inside a library built without frame pointers. ASAN_ARGS narrows it,
## e.g. make asan ASAN_ARGS="--filter BatchCommandTests".
ASAN_ARGS ?=
asan: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt:print_suppressions=1 \
	ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 GIFX_TEST_TIME_SCALE=5 GIFX_TEST_SANITIZER=address \
		$(SWIFT) test --skip-build --sanitize=address --scratch-path .build-asan $(ASAN_ARGS)

## tsan: the parallel decoder's tests under ThreadSanitizer (its own scratch path .build-tsan; slow, not part
## of `make test`): the banded producer, the frame ring and its gate, the thread-count suites (issue 39).
## Any data race report fails it (TSAN_OPTIONS=halt_on_error=1). TSAN_ARGS widens or narrows the filter.
TSAN_ARGS ?= --filter "ParallelDecodeTests|FrameStreamTests|DecodeThreadsCommandTests"
tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	TSAN_OPTIONS=halt_on_error=1 GIFX_TEST_TIME_SCALE=5 GIFX_TEST_SANITIZER=thread \
		$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan $(TSAN_ARGS)

## browser-check: every output kind and timing mode played in Chromium and Firefox ESR (Tests/Browser):
## duration, the frame shown at each GIF frame's midpoint, each frame change (1 ms search), WebP frame
## durations, alpha; the embed mode (GET /v1/embed's markup played from a running gifx serve: the rendition taken
## and the plays); the playground mode (gifx serve --playground: a drop, every output playing, the timeline drawn, the
## embed shown, no console error); one table per browser, fails beyond each mode's tolerance (about 4 minutes on 2 cores,
## plus the first install). Installs chromium, chromium-driver, firefox-esr (Debian) and selenium,
## websocket-client (PyPI) when missing; serves only on 127.0.0.1. BROWSERS=chromium or firefox narrows it;
## BROWSER_MODES=playground (comma-separated modes) runs only those.
BROWSER_PACKAGES := chromium chromium-driver firefox-esr
BROWSERS ?= chromium,firefox
BROWSER_MODES ?=
BROWSER_OUT := .build/browser-check
browser-deps: deps
	@missing=$$(for p in $(BROWSER_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "install ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null \
			|| { echo "make browser-deps: could not install $$missing" >&2; exit 1; }; \
	fi
	@python3 -c "import selenium, websocket" 2>/dev/null || python3 -m pip install -q selenium websocket-client >/dev/null 2>&1 \
		|| { echo "make browser-deps: could not install selenium websocket-client (PyPI)" >&2; exit 1; }

browser-check: browser-deps
	$(SWIFT) build --product gifx
	@mkdir -p $(BROWSER_OUT)
	python3 Tests/Browser/browser_check.py --gifx $(GIFX) --out $(BROWSER_OUT) --browsers $(BROWSERS) \
		$(if $(BROWSER_MODES),--modes $(BROWSER_MODES)) --report $(BROWSER_OUT)/report.md

## bench: release build, then the benchmark harness (writes docs/benchmarks.md; not part of CI). BENCH_KINDS=serve
## measures gifx serve against thumbor (pip-installed into .build-bench/serve/venv; gifsicle from Debian).
bench: deps
	$(SWIFT) build -c release --product gifx
	bash Benchmarks/run.sh

## bench-quality: release build, then bytes at matched SSIM of gifx's default video against the ffmpeg CLI's recipe per
## codec (Benchmarks/quality_bench.py, issue 56; writes its section of docs/benchmarks.md). BENCH_QUALITY_ARGS, e.g.
## "--codecs h264,hevc,vp9,av1 --real /path/to/gifs" (the real set: Benchmarks/quality_set.json). Needs numpy, Pillow.
BENCH_QUALITY_ARGS ?= --codecs h264
bench-quality: deps
	$(SWIFT) build -c release --product gifx
	@python3 -c "import numpy, PIL" 2>/dev/null || python3 -m pip install -q numpy Pillow >/dev/null 2>&1 \
		|| { echo "make bench-quality: needs numpy and Pillow (python3 -m pip install numpy Pillow)" >&2; exit 1; }
	PYTHONDONTWRITEBYTECODE=1 python3 Benchmarks/quality_bench.py --gifx .build/release/gifx $(BENCH_QUALITY_ARGS)

## soak-serve: the soak of `gifx serve` (Benchmarks/serve_soak.py, issue 36): 32 clients for SOAK_SECONDS (600)
## at --memory-budget SOAK_BUDGET (512M; also run it at 2G), 10 % of uploads damaged, bombs or oversized, a
## SIGKILL halfway and a restart on the same cache folder, and SOAK_CRASH_SHARE (0.1) of the conversions killed
## mid-way (SIGKILL to their worker: issue 50). Fails on a crash, an answer outside docs/openapi.yaml's
## codes, a 500, peak RSS over the budget × 1.10, an output gifx verify refuses, a partial cache entry after the
## restart, a key served before the kill and not after, anything left in the spool or TMPDIR. Release build
## (GIFX_SOAK=path: another binary, not rebuilt); its client needs aiohttp (PyPI, in .build-bench/serve/venv). Not part of `make test`.
SOAK_SECONDS ?= 600
SOAK_BUDGET ?= 512M
SOAK_CRASH_SHARE ?= 0.1
soak-serve: deps
	@[ -n "$(GIFX_SOAK)" ] || $(SWIFT) build -c release --product gifx
	python3 Benchmarks/serve_soak.py --gifx $(or $(GIFX_SOAK),.build/release/gifx) --duration $(SOAK_SECONDS) --budget $(SOAK_BUDGET) --crash-share $(SOAK_CRASH_SHARE)

## examples: regenerate the GIFs in Examples/ from Examples/Generator.
examples: deps
	$(SWIFT) run make-examples Examples

## fuzz: libFuzzer + ASan (Fuzz/run.sh) for FUZZ_SECONDS (default 60) over FUZZ_TARGET: fuzz-decoder (default:
## the GIF decoder and compositor, seeded with ../shared/corpus and Examples/), fuzz-webp, fuzz-apng or fuzz-avif
## (the WebP, APNG or AVIF reader alone); crashes land in .build-fuzz/crashes/.
FUZZ_SECONDS ?= 60
FUZZ_TARGET ?= fuzz-decoder
fuzz: deps
	FUZZ_TARGET=$(FUZZ_TARGET) FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) bash Fuzz/run.sh

## fuzz-smoke: each of the four targets (fuzz-decoder, fuzz-webp, fuzz-apng, fuzz-avif) for 60 s, output in
## .build-fuzz/smoke-TARGET.log and one closing line each; fails on a crash, sanitizer report, leak, hang or
## out-of-memory (Fuzz/smoke.sh). .ci/run calls it before `make test`.
fuzz-smoke: deps
	@FUZZ_SECONDS=60 SWIFT=$(SWIFT) bash Fuzz/smoke.sh

## --- Packaging (docs/packaging.md): install without a Swift toolchain. None of this is part of `make test`.
## dist-binary: the release binary with the Swift runtime and Foundation linked statically
## (--static-swift-stdlib); giflib, libpng, libwebp stay dynamic and libav* is dlopened as always. Its own
## scratch path (.build-dist/swift); GIFX_COMMIT is compiled in for `gifx --version` (a changed commit
## recompiles everything: a few minutes on 2 cores).
DIST := .build-dist
DIST_OUT := $(DIST)/out
DIST_BIN := $(DIST)/swift/release/gifx
VERSION := $(shell sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/gifx/VersionText.swift)
GIFX_COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD -- Sources Package.swift 2>/dev/null || echo -dirty)
PREFIX ?= /usr/local
DESTDIR ?=
dist-binary: deps
	@command -v objdump >/dev/null || { echo "make dist: objdump is missing (apt-get install binutils)" >&2; exit 1; }
	$(SWIFT) build -c release --product gifx --static-swift-stdlib --scratch-path $(DIST)/swift \
		-Xcc '-DGIFX_BUILD_COMMIT="$(GIFX_COMMIT)"'
	@$(DIST_BIN) --version | head -1 | grep -qF "gifx $(VERSION) (commit $(GIFX_COMMIT))" \
		|| { echo "make dist: $(DIST_BIN) --version does not say gifx $(VERSION) (commit $(GIFX_COMMIT))" >&2; exit 1; }

## dist-share: man pages (gifx.1 + one per subcommand, swift-argument-parser's generate-manual) and bash,
## zsh, fish completions (--generate-completion-script), from the release binary, into .build-dist/share.
dist-share: dist-binary
	bash packaging/share.sh $(DIST_BIN) $(DIST)/swift/checkouts/swift-argument-parser $(DIST)/tools \
		"$$(git log -1 --format=%cs 2>/dev/null || date -u +%F)" $(DIST)/share

## install / uninstall: the release binary, its man pages and completions under $(DESTDIR)$(PREFIX)
## (default /usr/local): bin/gifx, share/man/man1/gifx*.1, share/bash-completion/completions/gifx,
## share/zsh/site-functions/_gifx, share/fish/vendor_completions.d/gifx.fish.
install: dist-share
	install -D -m 0755 $(DIST_BIN) $(DESTDIR)$(PREFIX)/bin/gifx
	@cd $(DIST)/share && find share -type f | while read -r f; do \
		install -D -m 0644 "$$f" "$(abspath $(DESTDIR)$(PREFIX))/$$f" || exit 1; echo "installed $(DESTDIR)$(PREFIX)/$$f"; done
	@echo "installed $(DESTDIR)$(PREFIX)/bin/gifx ($$($(DESTDIR)$(PREFIX)/bin/gifx --version | head -1))"
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/gifx $(DESTDIR)$(PREFIX)/share/man/man1/gifx.1 $(DESTDIR)$(PREFIX)/share/man/man1/gifx.*.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/gifx $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_gifx \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/gifx.fish

## dist: .build-dist/out/gifx-VERSION-linux-ARCH.tar.gz and gifx_VERSION-1_ARCH.deb (packaging/dist.sh;
## Depends read from the binary with objdump, ldconfig and dpkg -S).
dist: dist-share
	@command -v dpkg-deb >/dev/null || { echo "make dist: dpkg-deb is missing (a Debian machine is needed)" >&2; exit 1; }
	bash packaging/dist.sh $(DIST_BIN) $(DIST)/share $(VERSION) $(GIFX_COMMIT) $(abspath $(DIST_OUT))

## dist-check: the .deb installed with apt into a fresh mmdebstrap minbase chroot (no Swift, no -dev
## packages), gifx --version and every Examples GIF to MP4, WebM, WebP and a sprite sheet inside it, the
## outputs checked from outside with ffprobe and Pillow; then the tarball's binary in the same chroot with
## the package removed (runtime libraries only). Needs root and the apt mirror (about 4 minutes).
dist-check:
	@bash packaging/dist-check.sh --can-run
	@$(MAKE) --no-print-directory dist
	bash packaging/dist-check.sh $(abspath $(DIST_OUT)) $(VERSION) $(GIFX_COMMIT) $(abspath $(DIST))/check

## image: the runtime image (Containerfile, stage "runtime") from the .deb of `make dist`, on a bookworm
## base made with mmdebstrap and `podman import` (no registry needed); tagged gifx:VERSION.
## image-check: runs it on Examples with a read-only root, --network none, as its non-root user, then
## gifx serve in it under --memory 512m --cpus 1 (a port on 127.0.0.1): a GIF converted by curl, read by ffprobe.
## Both need root, podman, and the apt mirror (packaging/containers.conf).
image:
	@bash packaging/image.sh --can-run
	@$(MAKE) --no-print-directory dist
	bash packaging/image.sh $(abspath $(DIST_OUT)) $(VERSION) $(abspath $(DIST))/image
image-check:
	@bash packaging/image-check.sh --can-run
	@$(MAKE) --no-print-directory image
	bash packaging/image-check.sh $(VERSION) $(abspath $(DIST))/image-check

## slurm-check: the Slurm recipe of docs/scale-out.md on a one-node Slurm 22.05 started here (munge,
## slurmctld, slurmd under a temporary folder, stopped by pid at the end), over a generated corpus of
## 240 GIFs (some damaged), with one array task cancelled midway and resubmitted. Needs root, slurm-wlm
## and munge (apt), and the tarball's binary from `make dist`.
slurm-check:
	@bash packaging/slurm-check.sh --can-run
	@$(MAKE) --no-print-directory dist
	bash packaging/slurm-check.sh $(abspath $(DIST_OUT)) $(VERSION) $(abspath $(DIST))/slurm

.PHONY: differential fuzz-differential
## differential: gifx's own LZW decoder against giflib over the full generated sweep (sizes 1-300, code sizes
## 0-8, interlace, transparency, every disposal, truncation at every block, damaged data) and every corpus
## GIF; `make test` runs a sample of the sweep (Tests/FramesTests/DecoderDifferentialTests.swift).
## Release build with testing enabled, in its own scratch path: the debug decoder is too slow for the
## full sweep, and `make test`'s .build stays untouched.
DIFFERENTIAL_BUILD := --scratch-path .build-differential -c release -Xswiftc -enable-testing
differential: deps
	$(SWIFT) build --build-tests $(DIFFERENTIAL_BUILD)
	GIFX_DIFFERENTIAL=full $(SWIFT) test --skip-build $(DIFFERENTIAL_BUILD) --filter DecoderDifferentialTests

## fuzz-differential: libFuzzer + ASan, the new decoder against giflib (Fuzz/differential.sh) for
## FUZZ_SECONDS (default 60); findings land in .build-fuzz-differential/crashes/.
fuzz-differential: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) bash Fuzz/differential.sh

clean:
	rm -rf .build $(DEMO_OUT) $(DIST)
