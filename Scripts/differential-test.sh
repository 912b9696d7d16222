#!/usr/bin/env bash
# Differential test: runs the seeded differential suite (Tests/MoltMigrationTests/DifferentialTests.swift),
# which generates model pairs, mapping files and stores from a seed and checks that every
# route of the migration engine (relationships in batches, in SQL, the whole step as SQL over
# a copy, a lightweight migration in place) gives the store, the failure and the report counts
# of the object-by-object route, and that the copy on worker threads ("+on threads") writes the
# very file, byte for byte, that the same run on one thread does. Diverging cases are shrunk and written to
# .build/differential-failures/seed-<S>/ (or $MOLT_DIFFERENTIAL_OUT).
#
#   Scripts/differential-test.sh [--cases N] [--seed S] [--workers N] [--out DIR] [--exclude L]
#                                [--no-build]
#
#   --cases N     how many cases (seeds S, S+1, …; default 300)
#   --seed S      the first seed (default 1)
#   --workers N   threads running cases (default: one per core)
#   --out DIR     where diverging cases are written
#   --no-build    use the test build as it is (default: build the tests first, which does
#                 nothing when they are up to date)
#   --exclude L   leave out generator features (comma-separated names, or `all`; see
#                 Tests/MoltTestSupport/Differential/DifferentialExclusion.swift)
#
# The cases' scratch stores go to $TMPDIR; when it is not set and /dev/shm is writable, there
# (the migrations sync their files, which on a disk takes most of the time).
#
# Ends with the suite's line `N passed, M failed` (`, K skipped` when attempts were invalid);
# exits 1 when any case failed or the suite did not finish.
set -euo pipefail

cases=300
seed=1
workers=""
out=""
exclude=""
build=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --cases) cases=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --exclude) exclude=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "differential-test: unknown option $1" >&2; exit 64 ;;
  esac
done
[[ $cases =~ ^[0-9]+$ && $seed =~ ^[0-9]+$ ]] || { echo "differential-test: --cases and --seed take numbers" >&2; exit 64; }

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
say() { echo "differential-test: $*"; }

if [[ $build == 1 ]]; then
  say "building the tests"
  swift build --build-tests >/dev/null 2>"${TMPDIR:-/tmp}/differential-build.$$" || {
    tail -20 "${TMPDIR:-/tmp}/differential-build.$$" >&2
    rm -f "${TMPDIR:-/tmp}/differential-build.$$"
    echo "differential-test: the build failed" >&2
    exit 1
  }
  rm -f "${TMPDIR:-/tmp}/differential-build.$$"
fi

log=$(mktemp "${TMPDIR:-/tmp}/molt-differential.XXXXXX")
trap 'rm -f "$log"' EXIT
say "$cases cases from seed $seed"
export MOLT_DIFFERENTIAL_CASES=$cases MOLT_DIFFERENTIAL_SEED=$seed
[[ -n $workers ]] && export MOLT_DIFFERENTIAL_WORKERS=$workers
[[ -n $out ]] && export MOLT_DIFFERENTIAL_OUT=$out
[[ -n $exclude ]] && export MOLT_DIFFERENTIAL_EXCLUDE=$exclude
if [[ -z ${TMPDIR:-} && -d /dev/shm && -w /dev/shm ]]; then export TMPDIR=/dev/shm; fi
started=$(date +%s)
set +e
swift test --skip-build --filter DifferentialTests >"$log" 2>&1
status=$?
set -e
# The suite's own lines, and the recorded issues (one per failing case).
grep -E '^differential: ' "$log" | sed 's/^/  /' || true
grep -E 'seed [0-9]+: .* differ;' "$log" | sed 's/^.*\(seed [0-9]*:\)/  \1/' | sort -u -k2,2n || true
grep -E 'written to /' "$log" | sed 's/^.*written to/  written to/' | sort -u -V || true
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1 || true)
if [[ -z $line ]]; then
  tail -30 "$log" >&2
  echo "differential-test: the suite did not finish (exit $status)" >&2
  exit 1
fi
say "$(($(date +%s) - started)) s"
echo "$line"
[[ $status == 0 && $line == *" 0 failed"* ]]
