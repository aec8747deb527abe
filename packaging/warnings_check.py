#!/usr/bin/env python3
"""`make warnings-check` (part of `make test`): the debug build of our own targets has no compiler warning.

It reads what the last `swift build` left, so it adds no build of its own and works after an incremental one:
- Swift: every target's serialized diagnostics (`-serialize-diagnostics`: one `.dia` per source file, kept for
  a file the incremental build did not recompile, so its warnings are still there when the log no longer shows
  them), read with the toolchain's libclang (`clang_loadDiagnostics`). The targets are those of the current
  build plan (`.build/debug.yaml`), so a target that no longer exists is not read; a file two plans claim is
  read from its newer `.dia`.
- C: the few C files of our targets are compiled again with their build arguments and `-fsyntax-only` (the C
  compiler keeps no diagnostics file).
Warnings in files outside Sources/ and Tests/ (the dependencies under .build/checkouts, which SwiftPM builds
with -suppress-warnings anyway) are not ours and are ignored. Prints each warning as the compiler worded it and
exits 1, or prints one line and exits 0."""
import ctypes, glob, json, os, pathlib, re, shutil, subprocess, sys

ROOT = pathlib.Path.cwd().resolve()
OURS = tuple(str(ROOT / folder) + "/" for folder in ("Sources", "Tests"))
MANIFEST = ROOT / ".build" / "debug.yaml"


def libclang():
    swiftc = shutil.which("swiftc") or "/usr/bin/swiftc"
    lib = pathlib.Path(os.path.realpath(swiftc)).parent.parent / "lib" / "libclang.so"
    if not lib.exists():
        sys.exit(f"warnings-check: no libclang.so beside the toolchain's swiftc ({lib})")
    clang = ctypes.CDLL(str(lib))

    class CXString(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("flags", ctypes.c_uint)]

    clang.clang_loadDiagnostics.restype = ctypes.c_void_p
    clang.clang_loadDiagnostics.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(CXString)]
    clang.clang_getNumDiagnosticsInSet.argtypes = [ctypes.c_void_p]
    clang.clang_getDiagnosticInSet.restype = ctypes.c_void_p
    clang.clang_getDiagnosticInSet.argtypes = [ctypes.c_void_p, ctypes.c_uint]
    clang.clang_getDiagnosticSeverity.argtypes = [ctypes.c_void_p]
    clang.clang_formatDiagnostic.restype = CXString
    clang.clang_formatDiagnostic.argtypes = [ctypes.c_void_p, ctypes.c_uint]
    clang.clang_getCString.restype = ctypes.c_char_p
    clang.clang_getCString.argtypes = [CXString]
    clang.clang_disposeString.argtypes = [CXString]
    clang.clang_disposeDiagnostic.argtypes = [ctypes.c_void_p]
    clang.clang_disposeDiagnosticSet.argtypes = [ctypes.c_void_p]

    def warnings(dia):
        error, text = ctypes.c_int(0), CXString()
        diagnostics = clang.clang_loadDiagnostics(dia.encode(), ctypes.byref(error), ctypes.byref(text))
        if not diagnostics:
            sys.exit(f"warnings-check: cannot read {dia} (libclang error {error.value})")
        found = []
        for index in range(clang.clang_getNumDiagnosticsInSet(diagnostics)):
            diagnostic = clang.clang_getDiagnosticInSet(diagnostics, index)
            if clang.clang_getDiagnosticSeverity(diagnostic) == 2:  # CXDiagnostic_Warning
                line = clang.clang_formatDiagnostic(diagnostic, 0x1 | 0x2)  # file, line, column
                found.append(clang.clang_getCString(line).decode(errors="replace"))
                clang.clang_disposeString(line)
            clang.clang_disposeDiagnostic(diagnostic)
        clang.clang_disposeDiagnosticSet(diagnostics)
        return found

    return warnings


def main():
    if not MANIFEST.exists():
        sys.exit("warnings-check: no .build/debug.yaml: run swift build first")
    manifest = MANIFEST.read_text()
    read_dia = libclang()
    # Swift: each target's output file map names every source's .dia; the newest claim of a source wins.
    maps = sorted(set(re.findall(r'"-output-file-map","([^"]+)"', manifest)))
    newest = {}
    module_dias = []
    for path in maps:
        if not os.path.exists(path):
            continue
        for source, outputs in json.load(open(path)).items():
            dia = outputs.get("diagnostics")
            if not source.startswith(OURS) or not dia:
                continue
            if not os.path.exists(dia):
                sys.exit(f"warnings-check: {source} was never compiled ({dia} is missing): run swift build --build-tests")
            if source not in newest or os.path.getmtime(dia) > os.path.getmtime(newest[source]):
                newest[source] = dia
        folder = os.path.dirname(path)
        module_dias += glob.glob(os.path.join(folder, "*.emit-module.dia"))
    found = set()
    for dia in sorted(newest.values()) + module_dias:
        found.update(w for w in read_dia(dia) if w.startswith(OURS))
    # C: our C files, compiled again without output.
    c_files = 0
    for block in manifest.split("\n\n"):
        if "tool: clang" not in block:
            continue
        match = re.search(r"^\s*args: (\[.*\])$", block, re.M)
        inputs = re.search(r"^\s*inputs: (\[.*\])$", block, re.M)
        if not match or not inputs:
            continue
        sources = [s for s in json.loads(inputs.group(1)) if s.startswith(OURS) and s.endswith(".c")]
        if not sources:
            continue
        args, kept, skip = json.loads(match.group(1)), [], 0
        for arg in args:
            if skip:
                skip -= 1
            elif arg in ("-MF", "-MT", "-o", "-index-store-path"):
                skip = 1
            elif arg not in ("-c", "-MD") and arg not in sources:
                kept.append(arg)
        run = subprocess.run(kept + ["-fsyntax-only"] + sources, capture_output=True, text=True)
        c_files += len(sources)
        found.update(line for line in run.stderr.splitlines() if line.startswith(OURS) and ": warning:" in line)
    for warning in sorted(found):
        print(os.path.relpath(warning.split(":", 1)[0], ROOT) + ":" + warning.split(":", 1)[1])
    if found:
        sys.exit(f"warnings-check: {len(found)} compiler warning(s) in our own targets (Sources/, Tests/); the build must have none")
    print(f"warnings-check: no compiler warning in our own targets ({len(newest)} Swift files, {c_files} C files)")


main()
