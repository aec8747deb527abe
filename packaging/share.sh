#!/usr/bin/env bash
# Man pages and shell completions, generated from gifx's own ArgumentParser definitions.
#   packaging/share.sh BINARY ARGUMENT_PARSER_CHECKOUT TOOLS_SCRATCH DATE OUT
# Man pages: swift-argument-parser's `generate-manual` (the tool behind its GenerateManual plugin, built here
# from the checkout SwiftPM resolved, so no second build of gifx): gifx.1 and one page per subcommand
# (--multi-page: gifx.batch.1, gifx.to-mp4.1, ...). Completions: `gifx --generate-completion-script SHELL`.
# OUT gets share/man/man1/*.1, share/bash-completion/completions/gifx, share/zsh/site-functions/_gifx and
# share/fish/vendor_completions.d/gifx.fish (the layout under a PREFIX).
set -euo pipefail
binary=$1 checkout=$2 scratch=$3 date=$4 out=$5
[ -x "$binary" ] || { echo "share.sh: no binary at $binary" >&2; exit 1; }
[ -f "$checkout/Tools/generate-manual/GenerateManual.swift" ] \
    || { echo "share.sh: no swift-argument-parser checkout with Tools/generate-manual at $checkout" >&2; exit 1; }
tool=$scratch/debug/generate-manual
if [ ! -x "$tool" ]; then
    echo "building generate-manual (swift-argument-parser $(git -C "$checkout" describe --tags 2>/dev/null || echo '?'))"
    swift build --package-path "$checkout" --scratch-path "$scratch" --product generate-manual >/dev/null
fi
rm -rf "$out/share/man" "$out/share/bash-completion" "$out/share/zsh" "$out/share/fish"
mkdir -p "$out/share/man/man1" "$out/share/bash-completion/completions" "$out/share/zsh/site-functions" \
    "$out/share/fish/vendor_completions.d"
"$tool" "$binary" --multi-page --date "$date" --output-directory "$out/share/man/man1"
rm -f "$out/share/man/man1/gifx.help.1" # ArgumentParser's `help` pseudo-command: gifx.1 covers it
"$binary" --generate-completion-script bash > "$out/share/bash-completion/completions/gifx"
"$binary" --generate-completion-script zsh > "$out/share/zsh/site-functions/_gifx"
"$binary" --generate-completion-script fish > "$out/share/fish/vendor_completions.d/gifx.fish"

# What must be there: a page for gifx and for each subcommand its --help lists, each completion non-empty
# and naming every subcommand.
subcommands=$("$binary" --help | awk '/^SUBCOMMANDS:/{s=1; next} s && /^  [a-z]/{print $1} s && /^$/{if (n++) exit}')
[ -n "$subcommands" ] || { echo "share.sh: could not read the subcommands from gifx --help" >&2; exit 1; }
[ -s "$out/share/man/man1/gifx.1" ] || { echo "share.sh: gifx.1 missing" >&2; exit 1; }
for sub in $subcommands; do
    [ -s "$out/share/man/man1/gifx.$sub.1" ] || { echo "share.sh: gifx.$sub.1 missing" >&2; exit 1; }
    for f in "$out"/share/bash-completion/completions/gifx "$out"/share/zsh/site-functions/_gifx \
             "$out"/share/fish/vendor_completions.d/gifx.fish; do
        grep -q -- "$sub" "$f" || { echo "share.sh: $f does not mention $sub" >&2; exit 1; }
    done
done
echo "man pages: $(ls "$out/share/man/man1" | tr '\n' ' ')"
echo "completions: bash, zsh, fish ($(echo $subcommands | wc -w) subcommands each)"
