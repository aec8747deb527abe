"""Finds out which gifx subcommands and options exist, so the harness skips cleanly what doesn't."""

import os
import re
import subprocess

# Subcommands the harness knows how to measure; hidden ones (like `frames`) are probed by name too.
KNOWN_SUBCOMMANDS = ("timeline", "to-mp4", "to-sprite", "frames", "batch")
# Options that would make `gifx frames` decode and composite without writing anything.
DECODE_ONLY_FLAGS = ("--null", "--decode-only", "--discard", "--no-output", "--count-only")


def _help(gifx, *args):
    """The help text of `gifx ARGS --help`, or None when that is not a command."""
    try:
        p = subprocess.run([gifx, *args, "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout + p.stderr if p.returncode == 0 else None


class GifxProbe:
    def __init__(self, gifx):
        self.path = gifx
        self.available = bool(gifx) and os.access(gifx, os.X_OK)
        self.subcommands = {}
        if not self.available:
            return
        text = _help(gifx) or ""
        match = re.search(r"SUBCOMMANDS:\n(.*?)(\n\s*\n|\Z)", text, re.S)
        names = re.findall(r"^\s{2,}([a-z][a-z0-9-]*)", match.group(1), re.M) if match else []
        for name in dict.fromkeys([*names, *KNOWN_SUBCOMMANDS]):
            text = _help(gifx, name)
            # ArgumentParser prints the root help for `gifx unknown --help`: require our own usage line.
            if text is not None and re.search(rf"USAGE: \S*gifx {re.escape(name)}\b", text):
                self.subcommands[name] = text

    def has(self, sub):
        return sub in self.subcommands

    def has_option(self, sub, option):
        return re.search(re.escape(option) + r"\b", self.subcommands.get(sub, "")) is not None

    def decode_only_flag(self):
        if not self.has("frames"):
            return None
        for flag in DECODE_ONLY_FLAGS:
            if self.has_option("frames", flag):
                return flag
        return None

    def describe(self):
        if not self.available:
            return f"not found at {self.path}"
        return "subcommands: " + (", ".join(sorted(self.subcommands)) or "none")
