#!/usr/bin/env bash
# Fuzzes one of Molt's readers of untrusted input with libFuzzer.
#
#   Scripts/fuzz.sh TARGET [RUNS]     TARGET: xml plist model mapping expression predicate seed bplist inflate modelarchive transformable
#                                     RUNS: executions (default 100000; 0 runs until stopped)
#
# Builds the Fuzz/ package in release mode with `--sanitize=fuzzer` (in .build-fuzz), starts from
# the repository's example files (Fuzz/corpus/TARGET/seed, written on each run) and keeps what
# libFuzzer finds in Fuzz/corpus/TARGET/found (not committed). Each input may take at most
# 10 s and the process 2 GB; a crash, a timeout or too much memory stops the run with the input
# saved as Fuzz/corpus/TARGET/crash-*, replayable with `Scripts/fuzz.sh TARGET FILE`.
# Extra libFuzzer options can be given in FUZZ_OPTIONS (for example "-jobs=2 -workers=2").
set -euo pipefail
cd "$(dirname "$0")/.."

target="${1:?usage: Scripts/fuzz.sh TARGET [RUNS|FILE]}"
runs="${2:-100000}"
case "$target" in
    xml | plist | model | mapping | expression | predicate | seed | bplist | inflate | modelarchive | transformable) ;;
    *) echo "unknown target $target (xml plist model mapping expression predicate seed bplist inflate modelarchive transformable)" >&2; exit 64 ;;
esac
export MOLT_FUZZ_TARGET="$target"
product=MoltFuzz

MOLT_FUZZ_BUILD=1 swift build -c release --sanitize=fuzzer --package-path Fuzz --scratch-path .build-fuzz --product "$product" >&2
binary=".build-fuzz/release/$product"
corpus="Fuzz/corpus/$target"
mkdir -p "$corpus/seed" "$corpus/found"

# Replaying one input.
if [ -f "$runs" ]; then
    exec "$binary" -rss_limit_mb=2048 -timeout=10 "$runs"
fi

# The seed corpus: the repository's examples for this target.
MOLT_FUZZ_WRITE_SEEDS="$corpus/seed" "$binary" -runs=0 >/dev/null 2>&1 || true

# A dictionary of tags, keywords and markers helps libFuzzer build meaningful inputs.
case "$target" in
    xml | plist | model | mapping) dictionary=(-dict=Fuzz/dictionaries/xml.dict) ;;
    expression | predicate) dictionary=(-dict=Fuzz/dictionaries/expression.dict) ;;
    seed) dictionary=(-dict=Fuzz/dictionaries/json.dict) ;;
    *) dictionary=() ;;
esac

exec "$binary" "$corpus/found" "$corpus/seed" \
    -runs="$runs" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 -max_len=65536 \
    -artifact_prefix="$corpus/" -print_final_stats=1 "${dictionary[@]}" ${FUZZ_OPTIONS:-}
