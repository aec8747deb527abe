#!/usr/bin/env python3
"""`make docs`: every top-level public symbol of GifxKit (from the symbol graph DocC was built from) is curated
in GifxKit.docc/GifxKit.md's Topics, and there are at most LIMIT of them (issue 37: a narrow public surface).
A new public name that is not curated, or a surface that grows past the limit, fails the check in one line."""
import json, pathlib, re, sys

LIMIT = 60
graph = pathlib.Path(".build/x86_64-unknown-linux-gnu/extracted-symbols/main/GifxKit/GifxKit.symbols.json")
catalogue = pathlib.Path("Sources/GifxKit/GifxKit.docc/GifxKit.md")
if not graph.exists():
    candidates = sorted(pathlib.Path(".build").glob("*/extracted-symbols/*/GifxKit/GifxKit.symbols.json"))
    if not candidates:
        sys.exit("api-curation: no GifxKit symbol graph under .build (run generate-documentation first)")
    graph = candidates[-1]
symbols = json.loads(graph.read_text())["symbols"]
top = sorted({s["pathComponents"][0] for s in symbols if len(s["pathComponents"]) == 1})
text = catalogue.read_text()
topics = text[text.index("## Topics"):] if "## Topics" in text else ""
curated = set(re.findall(r"^- ``([A-Za-z0-9_]+)``", topics, re.M))
missing = [name for name in top if name not in curated]
stale = sorted(curated - set(top))
if missing:
    sys.exit(f"api-curation: public but not curated in {catalogue}: {', '.join(missing)}")
if stale:
    sys.exit(f"api-curation: curated in {catalogue} but not public: {', '.join(stale)}")
if len(top) > LIMIT:
    sys.exit(f"api-curation: GifxKit has {len(top)} top-level public names, more than {LIMIT}")
print(f"api-curation: GifxKit's {len(top)} top-level public names ({len(symbols)} symbols) are all curated")
