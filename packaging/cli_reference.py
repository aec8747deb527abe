#!/usr/bin/env python3
"""docs/cli.md from the ArgumentParser definitions: `gifx --experimental-dump-help` (JSON) to Markdown.

    packaging/cli_reference.py GIFX > docs/cli.md

The flag reference has one source, the option declarations in Sources/gifx; `make docs` writes this file
into .build and fails when docs/cli.md differs from it, so the reference cannot go stale. Hidden options
(developer switches) are left out, as `--help` leaves them out.
"""
import json
import subprocess
import sys


def flag_names(argument):
    names = []
    for name in argument.get("names", []):
        prefix = "-" if name["kind"] in ("short", "longWithSingleDash") else "--"
        names.append(prefix + name["name"])
    return names


def synopsis(argument):
    kind = argument["kind"]
    value = argument.get("valueName", "value")
    if kind == "positional":
        text = f"<{value}>"
    elif kind == "flag":
        text = ", ".join(flag_names(argument))
    else:
        text = ", ".join(f"{n} <{value}>" for n in flag_names(argument))
    if argument.get("isRepeating"):
        text += " …"
    return text


def one_line(text):
    return " ".join((text or "").split()).replace("|", "\\|")


def describe(argument):
    parts = [one_line(argument.get("abstract"))]
    values = argument.get("allValues")
    if values:
        parts.append("Values: " + ", ".join(f"`{v}`" for v in values) + ".")
    default = argument.get("defaultValue")
    if default not in (None, ""):
        parts.append(f"Default: `{default}`.")
    if argument.get("discussion"):
        discussion = argument["discussion"]
        if isinstance(discussion, dict):
            discussion = discussion.get("staticText") or ""
        parts.append(one_line(discussion))
    return " ".join(p for p in parts if p)


def command_section(command, path, out):
    name = " ".join(path)
    out.append(f"## `{name}`")
    out.append("")
    if command.get("abstract"):
        out.append(one_line(command["abstract"]))
        out.append("")
    if command.get("discussion"):
        out.append(" ".join(command["discussion"].split()))
        out.append("")
    arguments = [a for a in command.get("arguments", []) if a.get("shouldDisplay", True)]
    positionals = [a for a in arguments if a["kind"] == "positional"]
    options = [a for a in arguments if a["kind"] != "positional"]
    usage = [name] + [("[options]" if options else "")] + [synopsis(a) for a in positionals]
    out.append("```")
    out.append(" ".join(u for u in usage if u))
    out.append("```")
    out.append("")
    if arguments:
        out.append("| argument | what it does |")
        out.append("|---|---|")
        for argument in positionals + options:
            out.append(f"| `{synopsis(argument)}` | {describe(argument)} |")
        out.append("")
    for sub in command.get("subcommands", []):
        if sub.get("shouldDisplay", True) and sub["commandName"] != "help":
            command_section(sub, path + [sub["commandName"]], out)


def main():
    gifx = sys.argv[1]
    dump = json.loads(subprocess.run([gifx, "--experimental-dump-help"], check=True, capture_output=True,
                                     text=True).stdout)
    root = dump["command"]
    out = [
        "# gifx command-line reference",
        "",
        "Generated from the option declarations in Sources/gifx by `make cli-reference`",
        "(packaging/cli_reference.py); `make docs`, and so `make test`, fails when this file is stale.",
        "`gifx COMMAND --help` prints the same text; the man pages (`make dist-share`) too.",
        "Exit codes are in the README.",
        "",
        "Commands: " + ", ".join(f"[`{s['commandName']}`](#gifx-{s['commandName']})"
                                 for s in root.get("subcommands", [])
                                 if s.get("shouldDisplay", True) and s["commandName"] != "help") + ".",
        "",
    ]
    command_section(root, [root["commandName"]], out)
    sys.stdout.write("\n".join(out).rstrip() + "\n")


if __name__ == "__main__":
    main()
