#!/usr/bin/env bash
# Instruction counts of benchmark jobs, per thread: the measure to compare two builds with on a
# busy machine, where wall and CPU seconds move by 20% from one run to the next and
# instruction counts by less than 0.1%. Each job runs once under callgrind with
# --separate-threads; the report gives the writing thread (the one that ran the job, which
# alone writes the new store: the part no other thread can take) and every thread together
# (what two cores must share). On a 2-core machine the job cannot take less than the larger of
# the writing thread's count and half of the total, in the time those take. Valgrind runs one
# thread at a time, and the copy pass's writing thread runs batches itself whenever the next
# one is not ready: under valgrind it runs more of them than on two cores, so compare the
# totals of two builds, and the writing thread's count only for jobs without copy workers.
#
#   Scripts/bench-instructions.sh [--objects N] [--bench PATH] [--store-dir DIR] JOB [JOB …]
#
#   --objects N     Records of the generated store (plus a Tag per ten Records; default 100000)
#   --bench PATH    the molt-bench binary to measure (default: build Benchmarks in release)
#   --store-dir D   a folder `molt-bench --keep` left (base.sqlite, Bench.xcdatamodeld): reused
#                   instead of generating one, so two builds are measured on the same store
#
# Jobs: molt-bench's (`molt-bench --help`), e.g. molt-copy-objects, molt-transform, raw-copy.
# Valgrind 3.19 cannot read the DWARF 5 debug information Swift writes, so a copy of the
# binary without it is measured (symbols stay). Runs take about 70 times the job's time.
set -euo pipefail

objects=100000
bench=""
store_dir=""
jobs=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --objects) objects=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    --store-dir) store_dir=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    -*) echo "bench-instructions: unknown option $1" >&2; exit 2 ;;
    *) jobs+=("$1"); shift ;;
  esac
done
[[ ${#jobs[@]} -gt 0 ]] || { echo "bench-instructions: name at least one job" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "bench-instructions: valgrind is not installed" >&2; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z "$bench" ]]; then
  swift build -c release --package-path "$root/Benchmarks" >&2
  bench="$root/Benchmarks/.build/release/molt-bench"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/molt-instructions.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [[ -z "$store_dir" ]]; then
  # A cheap job, only for the store it generates and keeps.
  "$bench" --objects "$objects" --jobs raw-copy --keep >"$work/generate.out" 2>&1
  store_dir=$(grep -o '/[^ ]*molt-bench-[^ ]*' "$work/generate.out" | head -1)
  [[ -f "$store_dir/base.sqlite" ]] || { cat "$work/generate.out" >&2; echo "bench-instructions: no store generated" >&2; exit 1; }
  trap 'rm -rf "$work" "$store_dir"' EXIT
fi
strip --strip-debug -o "$work/molt-bench" "$bench"

for job in "${jobs[@]}"; do
  cp "$store_dir/base.sqlite" "$work/store.sqlite"
  rm -f "$work"/store.sqlite-* "$work"/out.* "$work"/raw-target.sqlite*
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$work/out.%p" \
    "$work/molt-bench" job "$job" --store "$work/store.sqlite" --models "$store_dir/Bench.xcdatamodeld" \
    --sql "$work/log.sql" >"$work/job.out" 2>"$work/valgrind.err" \
    || { cat "$work/valgrind.err" >&2; echo "bench-instructions: $job failed" >&2; exit 1; }
  writer=$(grep -h '^summary' "$work"/out.*-01 | awk '{print $2}')
  total=$(cat "$work"/out.*-* | awk '/^summary/ {s += $2} END {print s}')
  awk -v job="$job" -v w="$writer" -v t="$total" \
    'BEGIN { printf "%-32s writing thread %7.3f G instructions, all threads %7.3f G\n", job, w / 1e9, t / 1e9 }'
done
