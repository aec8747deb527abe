#!/usr/bin/env python3
"""docs/openapi.yaml's blocks that come from the registry of output kinds, regenerated from `gifx formats --json`
(the list `convert -o`, batch, verify and the service read): the `format` parameter, the query settings and the
media types of a converted output. Each block stands between `# generated: NAME (make openapi)` and
`# end generated` lines; everything else in the file is written by hand.

    openapi_gen.py GIFX            rewrite docs/openapi.yaml
    openapi_gen.py GIFX --check    exit 1, with a diff, when the file differs from what the registry says
"""
import difflib, json, pathlib, re, subprocess, sys

root = pathlib.Path(__file__).resolve().parent.parent
path = root / "docs/openapi.yaml"


def blocks(registry):
    served = [k for k in registry["outputs"] if k["served"]]
    formats = ", ".join(k["name"] for k in served)
    lines = "; ".join(f"{k['name']}: {k['summary']} ({k['mediaType']})" for k in served)
    streams = " and ".join(k["name"] for k in served if k["streams"])
    description = f"The output: {lines}. stream=1 is for {streams}."
    yield "format", [
        "- name: format",
        "  in: query",
        "  required: true",
        f"  description: {json.dumps(description, ensure_ascii=False)}",
        f"  schema: {{type: string, enum: [{formats}]}}",
    ]
    yield "settings", [
        f"- {{name: {s['name']}, in: query, description: {json.dumps(s['help'] + ' For ' + ', '.join(k['name'] for k in served if s['name'] in k['settings']) + '.', ensure_ascii=False)}, schema: {s['schema']}}}"
        for s in registry["settings"]
    ]
    media = []
    for k in served:
        if k["mediaType"] not in media:
            media.append(k["mediaType"])
    yield "output-content", [f"{m}: {{schema: {{type: string, format: binary}}}}" for m in media]


def regenerate(text, registry):
    generated = dict(blocks(registry))
    out, lines, i, seen = [], text.splitlines(), 0, set()
    while i < len(lines):
        line = lines[i]
        marker = re.match(r"^(\s*)# generated: ([\w-]+) \(make openapi\)$", line)
        out.append(line)
        i += 1
        if not marker:
            continue
        indent, name = marker.groups()
        if name not in generated:
            sys.exit(f"openapi_gen: unknown block '{name}' in {path}")
        seen.add(name)
        while i < len(lines) and lines[i].strip() != "# end generated":
            i += 1
        if i == len(lines):
            sys.exit(f"openapi_gen: block '{name}' has no '# end generated' line")
        out.extend(indent + g for g in generated[name])
    missing = set(generated) - seen
    if missing and not any(m == "output-content" for m in missing):
        sys.exit(f"openapi_gen: {path} has no block for {', '.join(sorted(missing))}")
    return "\n".join(out) + "\n"


def main():
    gifx, check = sys.argv[1], "--check" in sys.argv[2:]
    registry = json.loads(subprocess.run([gifx, "formats", "--json"], check=True, capture_output=True, text=True).stdout)
    text = path.read_text()
    new = regenerate(text, registry)
    if check:
        if new != text:
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True), "docs/openapi.yaml", "generated"))
            print("docs/openapi.yaml is stale: the registry of output kinds changed; run make openapi and commit it", file=sys.stderr)
            sys.exit(1)
        print("docs/openapi.yaml: up to date with the registry of output kinds")
    elif new != text:
        path.write_text(new)


main()
