"""Describes the machine and the tool versions a benchmark run used."""

import os
import platform
import subprocess


def _first_line(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return "not found"
    text = (p.stdout or p.stderr).strip()
    return text.splitlines()[0] if text else "unknown"


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def _os_name():
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.system()


def _x264_version():
    out = subprocess.run(["ffmpeg", "-hide_banner", "-h", "encoder=libx264"],
                         capture_output=True, text=True).stdout
    return "libx264 available" if "libx264" in out else "libx264 missing"


def describe(gifx_path):
    commit = _first_line(["git", "rev-parse", "--short", "HEAD"])
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return {
        "nproc": os.cpu_count(),
        "cpu": _cpu_model(),
        "memory_gib": _memory_gib(),
        "os": _os_name(),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "ffmpeg": _first_line(["ffmpeg", "-version"]),
        "x264": _x264_version(),
        "imagemagick": _first_line(["convert", "-version"]).replace("Version: ", ""),
        "swift": _first_line(["swift", "--version"]),
        "gifx_commit": commit + (" (+ uncommitted changes in the tree)" if dirty else ""),
        "gifx_path": gifx_path,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
