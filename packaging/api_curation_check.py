#!/usr/bin/env python3
"""`make docs`: every top-level public symbol of each library product, GifxKit and GifxTimeline (from the symbol
graph DocC was built from), is curated in its catalogue's Topics (GifxKit.docc/GifxKit.md,
GifxTimeline.docc/GifxTimeline.md), and there are at most LIMIT of them (issue 37: a narrow public surface).
A new public name that is not curated, or a surface that grows past the limit, fails the check in one line.
Usage: api_curation_check.py [MODULE] (default GifxKit)."""
import json, pathlib, re, sys

LIMIT = 60
module = sys.argv[1] if len(sys.argv) > 1 else "GifxKit"
folder = {"GifxKit": "GifxKit", "GifxTimeline": "Timeline"}[module]
graph = pathlib.Path(f".build/x86_64-unknown-linux-gnu/extracted-symbols/main/{module}/{module}.symbols.json")
catalogue = pathlib.Path(f"Sources/{folder}/{module}.docc/{module}.md")
if not graph.exists():
    candidates = sorted(pathlib.Path(".build").glob(f"*/extracted-symbols/*/{module}/{module}.symbols.json"))
    if not candidates:
        sys.exit(f"api-curation: no {module} symbol graph under .build (run generate-documentation first)")
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
    sys.exit(f"api-curation: {module} has {len(top)} top-level public names, more than {LIMIT}")
print(f"api-curation: {module}'s {len(top)} top-level public names ({len(symbols)} symbols) are all curated")
