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


def phrase(items):
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# format=auto (Sources/Server/AutoFormat.swift): the kinds it chooses between by Accept, else the source itself.
AUTO_KINDS = ["avif", "webp"]


def blocks(registry):
    served = [k for k in registry["outputs"] if k["served"]]
    formats = ", ".join([k["name"] for k in served] + ["auto"])
    described = "; ".join(f"{k['name']}, {k['summary']} ({k['mediaType']})" for k in served)
    streams = phrase([k["name"] for k in served if k["streams"]])
    auto_settings = [s["name"] for s in registry["settings"]
                     if all(s["name"] in k["settings"] for k in served if k["name"] in AUTO_KINDS)]
    auto = (f"auto, {' or '.join(AUTO_KINDS)} as the request's Accept names them, else the source itself with its own type "
            f"({', '.join(i['mediaType'] for i in registry['inputs'])}), answered with Vary: Accept and the choice in "
            f"X-Gifx-Format (docs/serve.md); it takes {phrase(auto_settings)}, and stream=1 with it is 400 as for the "
            "format chosen")
    yield "format", [
        "- name: format",
        "  in: query",
        "  required: true",
        "  description: >-",
        *wrap(f"The output: {described}; {auto}. A setting a format does not take is 400 bad_query; stream=1 is for {streams}.", "    "),
        "  example: mp4",
        "  schema:",
        "    type: string",
        f"    enum: [{formats}]",
    ]
    settings = []
    for s in registry["settings"]:
        takers = [k["name"] for k in served if s["name"] in k["settings"]]
        if all(kind in takers for kind in AUTO_KINDS):
            takers.append("auto")
        settings += [
            f"- name: {s['name']}",
            "  in: query",
            f"  description: {json.dumps(s['help'] + ' For ' + phrase(takers) + ' only.', ensure_ascii=False)}",
            f"  schema: {s['schema']}",
        ]
    yield "settings", settings
    media = []
    for m in [k["mediaType"] for k in served] + [i["mediaType"] for i in registry["inputs"]]:
        if m not in media:
            media.append(m)
    listed = ", ".join(f"{k['name']} {k['mediaType']}" for k in served)
    sources = ", ".join(i["mediaType"] for i in registry["inputs"])
    yield "output-content", [f"# One media type per format: {listed}; format=auto's source passed through: {sources}."] + [
        f"{m}: {{schema: {{type: object}}}}" if m == "application/json" else f"{m}: {{schema: {{type: string, format: binary}}}}"
        for m in media]
    yield "output-content-partial", [f"{m}: {{}}" if m == "application/json" else f"{m}: {{schema: {{type: string, format: binary}}}}"
                                     for m in media]


def wrap(text, indent, width=116):
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(indent) + len(line) + 1 + len(word) > width:
            lines.append(indent + line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + [indent + line]


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
    if missing:
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
