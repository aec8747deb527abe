#!/usr/bin/env bash
# The release artefacts from a built binary and its generated share/ tree (packaging/share.sh):
#   packaging/dist.sh BINARY SHARE_DIR VERSION COMMIT OUT_DIR
# OUT_DIR gets gifx-VERSION-linux-ARCH.tar.gz (bin/, share/, README.md, LICENSE, COPYRIGHT, LICENSES/, SHA256SUMS, laid
# out like a PREFIX) and gifx_VERSION-1_DEBARCH.deb (dpkg-deb). The .deb's Depends come from the binary:
#   - its NEEDED libraries (objdump -p, ldconfig, dpkg -S), with dpkg-shlibdeps' floors (each library's
#     symbols file, for the symbols the binary uses);
#   - the libav sonames its loader dlopens (the strings libavutil.so.N... compiled into the binary), mapped
#     the same way, floors from their symbols files for the functions the loader resolves: gifx cannot
#     make a video without them.
set -euo pipefail
checkouts=$(cd "$(dirname "$1")/.." && pwd)/checkouts # SwiftPM's, beside release/
binary=$(readlink -f "$1") share=$(readlink -f "$2") version=$3 commit=$4 out=$5
repo=$(cd "$(dirname "$0")/.." && pwd)
arch=$(uname -m)
maintainer=${GIFX_MAINTAINER:-$(git -C "$repo" log -1 --format="%an <%ae>" 2>/dev/null || echo "gifx maintainers <root@localhost>")}
debarch=$(dpkg --print-architecture)
work=$out/work
rm -rf "$work" && mkdir -p "$work" "$out"

# --- The statically linked runtime: it must not need any Swift library at run time.
if objdump -p "$binary" | awk '/NEEDED/{print $2}' | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|lib_Foundation'; then
    echo "dist.sh: $binary still needs the Swift runtime above (build it with --static-swift-stdlib)" >&2; exit 1
fi

# --- Depends.
# Linked libraries: dpkg-shlibdeps, the floors from each library's symbols file for the symbols the binary
# uses; cross-checked with objdump -p (NEEDED) + ldconfig + dpkg -S, so no library goes unnamed.
needed=$(objdump -p "$binary" | awk '/NEEDED/{print $2}')
package_of() { # soname -> package
    local path
    path=$(ldconfig -p | awk -v so="$1" '$1 == so {print $NF; exit}')
    [ -n "$path" ] || { echo "dist.sh: $1 is not installed on this machine (ldconfig -p)" >&2; return 1; }
    dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1 | grep . || dpkg -S "$path" | head -1 | cut -d: -f1
}
shlibs=$work/shlibs
mkdir -p "$shlibs/debian"
printf 'Source: gifx\n\nPackage: gifx\nArchitecture: any\n' > "$shlibs/debian/control"
linked=$(cd "$shlibs" && dpkg-shlibdeps -O "$binary" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$linked" ] || { echo "dist.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
for so in $needed; do
    pkg=$(package_of "$so") || exit 1
    echo "$linked" | tr ',' '\n' | awk '{print $1}' | grep -qx "$pkg" \
        || { echo "dist.sh: $so ($pkg) is NEEDED but dpkg-shlibdeps did not name it: $linked" >&2; exit 1; }
done
# dlopened libav: the sonames compiled into the loader, each mapped to its package; floor: the newest of
# (the symbols-file version of every function the loader resolves, from gifx_av_functions.h) and the
# epoch:major.minor of the -dev package gifx was compiled against (its struct layouts).
dlopened=$(strings -n 8 "$binary" | grep -E '^lib(avutil|swscale|avcodec|avformat)\.so\.[0-9]+$' | sort -u)
[ "$(echo "$dlopened" | wc -w)" = 4 ] \
    || { echo "dist.sh: expected the four libav sonames the loader opens in the binary, found: $dlopened" >&2; exit 1; }
functions=$(grep -oE 'XV?\(LIB_[A-Z]+, ([^,]+, )?[a-z_0-9]+,' "$repo/Sources/CAV/include/gifx_av_functions.h" | sed -E 's/.*, ([a-z_0-9]+),$/\1/')
[ "$(echo "$functions" | wc -w)" -ge 30 ] || { echo "dist.sh: could not read the loader's functions" >&2; exit 1; }
libav=()
for so in $dlopened; do
    pkg=$(package_of "$so") || exit 1
    stem=${so%%.so.*}; stem=${stem#lib}
    symbols=; for f in /var/lib/dpkg/info/"$pkg".symbols /var/lib/dpkg/info/"$pkg":*.symbols; do [ -f "$f" ] && symbols=$f; done
    [ -n "$symbols" ] || { echo "dist.sh: no symbols file for $pkg" >&2; exit 1; }
    dev=$(dpkg-query -W -f='${Version}' "lib$stem-dev")
    floor=$(echo "$dev" | sed -E 's/^(([0-9]+:)?[0-9]+\.[0-9]+).*/\1/')
    found=0
    for fn in $functions; do
        v=$(awk -v f="$fn" '$1 ~ "^" f "@" {print $2; exit}' "$symbols")
        [ -n "$v" ] || continue
        found=$((found + 1))
        if dpkg --compare-versions "$v" gt "$floor"; then floor=$v; fi
    done
    [ "$found" -gt 0 ] || { echo "dist.sh: none of the loader's functions is in $symbols" >&2; exit 1; }
    libav+=("$pkg (>= $floor)")
done
# dlopened libx264 (Sources/CX264: H.264 with B-frame repeats): its soname names its build, the package's version.
x264so=$(strings -n 8 "$binary" | grep -E '^libx264\.so\.[0-9]+$' | sort -u)
[ "$(echo "$x264so" | wc -w)" = 1 ] || { echo "dist.sh: expected the libx264 soname the loader opens in the binary, found: $x264so" >&2; exit 1; }
x264pkg=$(package_of "$x264so") || exit 1
libav+=("$x264pkg")
depends=$( { echo "$linked" | tr ',' '\n' | sed 's/^ *//'; printf '%s\n' "${libav[@]}"; } | sort | paste -sd, | sed 's/,/, /g')
echo "NEEDED: $(echo $needed)"
echo "dlopened: $(echo $dlopened) ($(echo $functions | wc -w) functions), $x264so"
echo "Depends: $depends"

# --- Licences: gifx's own (Apache-2.0, LICENSE), the Swift runtime and the packages linked into it.
[ -f "$repo/LICENSE" ] || { echo "dist.sh: $repo/LICENSE is missing" >&2; exit 1; }
cp "$repo/LICENSE" "$work/LICENSE"
licences=$work/LICENSES
mkdir -p "$licences"
for dep in swift-argument-parser swift-system; do
    src=$checkouts/$dep/LICENSE.txt
    [ -f "$src" ] || { echo "dist.sh: no licence at $src" >&2; exit 1; }
    cp "$src" "$licences/$dep.txt"
done
swift_licence=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")/share/swift/LICENSE.txt
[ -f "$swift_licence" ] || swift_licence=$(find "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")" -maxdepth 4 -name LICENSE.txt 2>/dev/null | head -1)
if [ -n "$swift_licence" ] && [ -f "$swift_licence" ]; then cp "$swift_licence" "$licences/swift.txt"; else
    cp "$licences/swift-system.txt" "$licences/swift.txt"; fi # the same Apache 2.0 + RLE text
# What the binary combines with (docs/packaging.md, "Licences"): said once, in the tarball's COPYRIGHT and in
# the .deb's DEP-5 copyright below.
combined='Statically linked into the gifx binary: the Swift runtime and Foundation (swift.org) and
swift-argument-parser and swift-system, all Apache License 2.0 with the Runtime Library Exception
(texts in LICENSES/ of the tarball, and below in the .deb).
Loaded at run time from the system, each under its own package and licence: giflib (MIT), libpng
(libpng-2.0), libwebp (BSD-3-Clause), libavif (BSD-2-Clause) with dav1d (BSD-2-Clause), zlib (Zlib), and FFmpeg'"'"'s libavutil, libswscale, libavcodec and
libavformat (opened with dlopen). Debian'"'"'s libavcodec is built with GPL parts (libx264, libx265), so
it is GPL-2.0-or-later as a whole: a redistributed combination of gifx with it is under the GPL (3.0 or
later, since Apache-2.0 code cannot be combined with GPL-2.0-only).'
{
    echo "gifx $version (commit $commit)"
    echo
    echo "gifx is licensed under the Apache License, Version 2.0 (see LICENSE)."
    echo
    echo "$combined"
} > "$work/COPYRIGHT"

# --- Tarball: gifx-VERSION-linux-ARCH/{bin,share,README.md,LICENSE,COPYRIGHT,LICENSES,SHA256SUMS}.
name=gifx-$version-linux-$arch
tree=$work/$name
mkdir -p "$tree/bin"
install -m 0755 "$binary" "$tree/bin/gifx"
strip --strip-unneeded "$tree/bin/gifx"
cp -r "$share/share" "$tree/share"
cp "$repo/README.md" "$work/COPYRIGHT" "$work/LICENSE" "$tree/"
cp -r "$licences" "$tree/LICENSES"
(cd "$tree" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum > SHA256SUMS)
# Reproducible: fixed owner, order and mtime (the commit's date).
mtime=$(git -C "$repo" log -1 --format=%cI 2>/dev/null || date -u +%FT%TZ)
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="$mtime" -C "$work" -czf "$out/$name.tar.gz" "$name"

# --- .deb: /usr/bin/gifx, man pages (gzip -9n), completions, /usr/share/doc/gifx.
deb=$work/deb
mkdir -p "$deb/DEBIAN" "$deb/usr/bin" "$deb/usr/share/man/man1" "$deb/usr/share/doc/gifx" \
    "$deb/usr/share/bash-completion/completions" "$deb/usr/share/zsh/vendor-completions" "$deb/usr/share/fish/vendor_completions.d"
install -m 0755 "$tree/bin/gifx" "$deb/usr/bin/gifx"
for page in "$share"/share/man/man1/*.1; do gzip -9n < "$page" > "$deb/usr/share/man/man1/$(basename "$page").gz"; done
install -m 0644 "$share/share/bash-completion/completions/gifx" "$deb/usr/share/bash-completion/completions/gifx"
install -m 0644 "$share/share/zsh/site-functions/_gifx" "$deb/usr/share/zsh/vendor-completions/_gifx"
install -m 0644 "$share/share/fish/vendor_completions.d/gifx.fish" "$deb/usr/share/fish/vendor_completions.d/gifx.fish"
gzip -9n < "$repo/README.md" > "$deb/usr/share/doc/gifx/README.md.gz"
# Machine-readable (DEP-5). gifx's own text is Debian's common licence; the Runtime Library Exception texts
# of what is linked in follow in their own paragraph.
{
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: gifx"
    echo "Comment: gifx $version (commit $commit)."
    echo "$combined" | sed 's/^/ /'
    # What is linked in is Apache 2.0 (Debian's common licence) with the Runtime Library Exception: the
    # exception's own text once (the same in every one of LICENSES/), not the whole licence again (lintian:
    # copyright-file-contains-full-apache-2-license).
    echo " ."
    echo " The Runtime Library Exception of the Swift runtime, swift-argument-parser and swift-system:"
    sed -n '/^## Runtime Library Exception/,$p' "$licences/swift-system.txt" | sed -e '/^[[:space:]]*$/d' -e 's/^[[:space:]]*/ /' -e '$a\'
    echo
    echo "Files: *"
    echo "Copyright: 2026 the gifx authors"
    echo "License: Apache-2.0"
    echo
    echo "License: Apache-2.0"
    echo " Licensed under the Apache License, Version 2.0 (the \"License\"); you may not use"
    echo " this software except in compliance with the License. You may obtain a copy of the"
    echo " License at https://www.apache.org/licenses/LICENSE-2.0"
    echo " ."
    echo " Unless required by applicable law or agreed to in writing, software distributed"
    echo " under the License is distributed on an \"AS IS\" BASIS, WITHOUT WARRANTIES OR"
    echo " CONDITIONS OF ANY KIND, either express or implied. See the License for the"
    echo " specific language governing permissions and limitations under the License."
    echo " ."
    echo " On Debian systems, the full text of the Apache License, Version 2.0 can be found"
    echo " in the file '/usr/share/common-licenses/Apache-2.0'."
} > "$deb/usr/share/doc/gifx/copyright"
installed_size=$(du -sk --exclude=DEBIAN "$deb" | cut -f1)
cat > "$deb/DEBIAN/control" <<CONTROL
Package: gifx
Version: $version-1
Architecture: $debarch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Section: video
Priority: optional
Description: animated GIF to MP4, WebM, WebP and sprite sheets with exact timing
 gifx converts animated GIFs to MP4 (H.264, HEVC, AV1, VP9), WebM, animated WebP,
 JPEG posters and sprite sheets (PNG + JSON), following the reference iOS
 player's timing exactly, and prints the playback schedule of any GIF.
 gifx batch converts whole libraries, sharded across machines.
 .
 Built from commit $commit, with the Swift runtime linked statically.
CONTROL
(cd "$deb" && find usr -type f | LC_ALL=C sort | xargs md5sum > DEBIAN/md5sums)
find "$deb" -exec touch -h -d "$mtime" {} +
debfile=$out/gifx_$version-1_$debarch.deb
SOURCE_DATE_EPOCH=$(date -d "$mtime" +%s) dpkg-deb --root-owner-group -Zxz --build "$deb" "$debfile" >/dev/null
echo "$depends" > "$out/depends.txt"
(cd "$out" && sha256sum "$name.tar.gz" "$(basename "$debfile")" > SHA256SUMS)
echo "tarball: $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1))"
echo "deb:     $debfile ($(du -h "$debfile" | cut -f1))"
