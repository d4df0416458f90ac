#!/bin/sh
# Builds the real-code bench tree: app/ and lib/ of redmine, lobsters and
# openstreetmap-website, ten copies each, committed to one git repository (about 7,400
# Ruby files). Each copy is a component (`packs/redmine-1/app/...`), which the default
# scope walks like a Rails root, so every file keeps its Rails path below it. Bench it with RSPEC_SCOUT_BENCH_ROOT=<the tree> cargo bench, or time
# `rspec-scout discover --all --no-metadata` in it.
#
#   benches/real_tree.sh [APPS_DIR] [OUT]   # defaults: /work/apps, /tmp/rspec-scout-real-tree
#
# APPS_DIR holds git clones named redmine, lobsters and openstreetmap-website (any
# revision; the README's figures name the ones used). OUT is replaced.
set -eu
apps=${1:-/work/apps}
out=${2:-/tmp/rspec-scout-real-tree}
copies=${COPIES:-10}
rm -rf "$out"
mkdir -p "$out"
for app in redmine lobsters openstreetmap-website; do
    [ -d "$apps/$app/app" ] || { echo "no $apps/$app/app" >&2; exit 1; }
    rev=$(git -C "$apps/$app" rev-parse --short HEAD 2>/dev/null || echo unknown)
    echo "$app $rev" >>"$out/SOURCES"
    i=1
    while [ "$i" -le "$copies" ]; do
        mkdir -p "$out/packs/$app-$i"
        cp -R "$apps/$app/app" "$apps/$app/lib" "$out/packs/$app-$i/"
        i=$((i + 1))
    done
done
cd "$out"
git init -q -b main
git add -A
git -c user.name=bench -c user.email=bench@example.com commit -q -m "real-code bench tree"
echo "$out: $(git ls-files '*.rb' | wc -l) Ruby files, $(git ls-files '*.rb' | xargs cat | wc -c) bytes"
