# Sourced by Fuzz/run.sh and Fuzz/differential.sh: the GIF seeds both fuzz from.
# gif_seed_folders OUT: copies the GIFs under 64 KiB of ../shared/corpus (fuzz, pygif, peterdn), Examples/ and
# Tests/CLITests/Regressions/ (those that exist) into OUT/seeds/NAME, one folder each, and appends the folders
# to the caller's SEEDS array.
gif_seed_folders() {
    local out=$1 dir seed
    for dir in ../shared/corpus/fuzz ../shared/corpus/pygif ../shared/corpus/peterdn Examples Tests/CLITests/Regressions; do
        [ -d "$dir" ] || continue
        seed="$out/seeds/$(echo "$dir" | tr -d '.' | tr '/' '_' | sed 's/^_*//')"
        mkdir -p "$seed"
        find "$dir" -name '*.gif' -size -64k -exec cp -f {} "$seed/" \;
        SEEDS+=("$seed")
    done
}
