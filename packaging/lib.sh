# Shared by the packaging checks (sourced): preconditions, the host's bookworm mirrors, timing.

# cannot_run WHAT: the check cannot run on this machine; say why and stop with 77 ("skipped").
cannot_run() { echo "$CHECK: cannot run here: $*" >&2; exit 77; }
fail() { echo "$CHECK: FAIL: $*" >&2; exit 1; }
note() { echo "$CHECK: $*"; }

# need_root: the chroots, mounts, podman (rootful) and Slurm daemons all need it.
need_root() { [ "$(id -u)" = 0 ] || cannot_run "needs root (chroot, mount, rootful podman, Slurm daemons); run it as root"; }

# need_packages PKG...: installs the missing Debian packages with apt-get (needs the apt mirror).
need_packages() {
    local missing=() p
    for p in "$@"; do dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
    [ ${#missing[@]} = 0 ] && return 0
    command -v apt-get >/dev/null || cannot_run "needs the Debian packages ${missing[*]} and apt-get"
    note "installing ${missing[*]}"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } \
        || cannot_run "could not install ${missing[*]} with apt-get (is the apt mirror reachable?)"
}

# bookworm_mirrors: one "deb URI SUITE COMPONENTS" line per bookworm suite in this machine's apt sources
# (deb822 .sources and one-line .list files; other distributions' and vendors' repositories are left out),
# for mmdebstrap. Fails when there is none: a bookworm mirror is what these checks install from.
bookworm_mirrors() {
    python3 - <<'PY'
import glob, re
lines = []
def add(uri, suite, comps):
    if re.fullmatch(r"bookworm(-updates|-security|-backports)?", suite) and "backports" not in suite:
        line = f"deb {uri} {suite} {' '.join(comps)}"
        if line not in lines: lines.append(line)
for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
    for stanza in re.split(r"\n\s*\n", open(path).read()):
        fields = {}
        for raw in stanza.splitlines():
            if raw.startswith("#") or ":" not in raw: continue
            key, value = raw.split(":", 1); fields[key.strip().lower()] = value.split()
        if "deb" not in fields.get("types", []) or fields.get("enabled", ["yes"])[0] == "no": continue
        for uri in fields.get("uris", []):
            for suite in fields.get("suites", []): add(uri, suite, fields.get("components", ["main"]))
for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
    try: text = open(path).read()
    except OSError: continue
    for raw in text.splitlines():
        words = re.sub(r"\[[^]]*\]", "", raw.split("#", 1)[0]).split()
        if len(words) >= 4 and words[0] == "deb": add(words[1], words[2], words[3:])
print("\n".join(lines))
PY
}

# minbase_chroot DIR [mmdebstrap options...]: a fresh bookworm minbase chroot from this machine's mirrors.
minbase_chroot() {
    local dir=$1; shift
    local mirrors; mirrors=$(bookworm_mirrors)
    [ -n "$mirrors" ] || cannot_run "no bookworm suite in this machine's apt sources (mmdebstrap needs a Debian bookworm mirror)"
    local args=(); while IFS= read -r m; do args+=("$m"); done <<< "$mirrors"
    rm -rf "$dir"
    mmdebstrap --quiet --variant=minbase --mode=root "$@" bookworm "$dir" "${args[@]}" \
        || fail "mmdebstrap could not make a bookworm chroot from: $(echo "$mirrors" | paste -sd';')"
}

# seconds since START (date +%s.%N)
elapsed() { python3 -c "import sys,time; print(f'{time.time()-float(sys.argv[1]):.0f}')" "$1"; }
