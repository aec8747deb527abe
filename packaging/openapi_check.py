#!/usr/bin/env python3
"""`make docs`: docs/openapi.yaml describes exactly the service's routes (Sources/Server/GifxService.swift's
router, and the table of routes that 405's Allow is read from), its `format` values and query settings (the registry
of output kinds, `gifx formats --json`; the edits' EditSettings.keys and ConvertQuery.ownKeys), its `codec` values
(VideoCodec.allCases, as `gifx formats --json` lists them) and its error codes (every ServiceError code in Sources/Server). One line per difference; exit 1 on any.
Usage: openapi_check.py GIFX"""
import json, pathlib, re, subprocess, sys
import yaml

root = pathlib.Path(__file__).resolve().parent.parent
spec = yaml.safe_load((root / "docs/openapi.yaml").read_text())
server = "\n".join(p.read_text() for p in sorted((root / "Sources/Server").rglob("*.swift")))
problems = []

def compare(what, code, documented):
    for item in sorted(code - documented):
        problems.append(f"openapi: {what} {item} is in the code but not in docs/openapi.yaml")
    for item in sorted(documented - code):
        problems.append(f"openapi: {what} {item} is in docs/openapi.yaml but not in the code")

routes = {(m.upper(), re.sub(r":(\w+)", r"{\1}", p)) for m, p in re.findall(r'router\.(get|post|put|delete|head)\("([^"]+)"', server)}
documented_routes = {(method.upper(), path) for path, item in spec["paths"].items() for method in item}
compare("route", routes, documented_routes)
# GifxService.routes, the table that 405's Allow is read from, lists exactly the routes the router registers.
table = re.search(r"static let routes = RouteTable\(\[(.*?)\]\)", server, re.S).group(1)
table_routes = {(m.upper(), re.sub(r":(\w+)", r"{\1}", p)) for m, p in re.findall(r'\(\.(\w+), "([^"]+)"\)', table)}
for item in sorted(routes ^ table_routes):
    problems.append(f"openapi: route {item} is in {'the router' if item in routes else 'GifxService.routes'} but not in "
                    f"{'GifxService.routes (405 Allow)' if item in routes else 'the router'}")

registry = json.loads(subprocess.run([sys.argv[1], "formats", "--json"], check=True, capture_output=True, text=True).stdout)
formats = {kind["name"] for kind in registry["outputs"] if kind["served"]}
# format=auto, the service's own value beside the registry's kinds (AutoFormat.formatName).
formats |= set(re.findall(r'static let formatName = "(\w+)"', server))
parameters = {p["name"]: p for p in spec["paths"]["/v1/convert"]["post"]["parameters"] if "name" in p}
compare("format", formats, set(parameters["format"]["schema"]["enum"]))

# The codecs the binary registers (VideoCodecRegistry, one descriptor per codec folder), as its `codec` setting's schema
# lists them.
codec_schema = next(setting["schema"] for setting in registry["settings"] if setting["name"] == "codec")
codecs = {name.strip() for name in re.search(r"enum: \[([^\]]*)\]", codec_schema).group(1).split(",")}
keys = {setting["name"] for setting in registry["settings"]}
edits = (root / "Sources/GifxKit/EditSettings.swift").read_text()
keys |= set(re.search(r'static let keys = \[([^\]]+)\]', edits).group(1).replace('"', "").replace(" ", "").split(","))
# The query's own items (ConvertQuery.ownKeys: stream).
keys |= set(re.search(r'static let ownKeys = \[([^\]]+)\]', server).group(1).replace('"', "").replace(" ", "").split(","))
compare("query setting", keys, set(parameters) - {"format", "X-Request-Id"})
compare("codec", codecs, set(parameters["codec"]["schema"]["enum"]))

codes = set(re.findall(r'ServiceError\(\s*\.\w+,\s*"([a-z_]+)"', server))
codes |= set(re.findall(r'ServiceError\(\s*\n\s*\.\w+,\s*"([a-z_]+)"', server))
compare("error code", codes, set(spec["components"]["schemas"]["Error"]["properties"]["code"]["enum"]))

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"openapi: docs/openapi.yaml matches the service ({len(routes)} routes, {len(formats)} formats, {len(codes)} error codes)")
