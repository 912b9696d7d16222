#!/usr/bin/env bash
# Crash test: runs migrations in a child process and kills it (SIGKILL, as `kill -9` or a power
# cut would) at chosen instants, then checks that the store opens as the complete old store or
# the complete new one (never an error, never a mixture), that `molt recover` and the next run
# finish the job, and that no temporary file is left. Then runs migrations out of disk space
# (a file-size limit, and a small tmpfs when mounting is allowed) and checks for a clean error
# with the source store unchanged, or, when the run completed, for a whole store at the new
# version: never exit 0 with a damaged store. --disk-sweep sweeps the space in small steps
# (file-size limits from 10% to 250% of the store, tmpfs sizes from 100% to 300%).
#
#   Scripts/crash-test.sh [--kills N] [--seed S] [--objects N] [--jobs N] [--molt PATH]
#                         [--scenarios split,copy,inplace,upgrade] [--no-disk | --disk-quick | --disk-sweep]
#                         [--keep]
#
# Scenarios (each in WAL and rollback-journal stores, some runs with --backup), on the
# Contacts example model (MappingModels/Examples/Contacts.xcdatamodeld) with generated data:
#   split    heavyweight, Contacts → Contacts 2 with a policy (every object through a policy);
#   copy     heavyweight, Contacts 3 → Contacts 4 with the inferred mapping as a file (no policy);
#   inplace  lightweight, Contacts 3 → Contacts 4 in place (`molt migrate` without --mapping);
#   upgrade  `molt upgrade` Contacts → Contacts 4: heavy, heavy, in place (each complete
#            version on the way is an allowed state).
# Instants: half the kills at a fault point (MOLT_FAULT_POINT=name:N, see
# Sources/MoltCore/Support/FaultPoint.swift), chosen among the points a traced run reaches;
# half at a random time within the run's measured duration. After some kills, `molt recover`
# is itself killed at one of the recovery points. Kills are counted by the state they left and
# by instant. Without --molt, a release `molt` is built. Exits 1 if any check failed.
set -euo pipefail

kills=200
seed=$RANDOM
objects=2000
jobs=$(nproc 2>/dev/null || echo 2)
molt=""
scenarios="split,copy,inplace,upgrade"
disk=1
keep=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kills) kills=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --objects) objects=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --molt) molt=$2; shift 2 ;;
    --scenarios) scenarios=$2; shift 2 ;;
    --no-disk) disk=0; shift ;;
    --disk-quick) disk=2; shift ;;
    --disk-sweep) disk=3; shift ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "crash-test: unknown option $1" >&2; exit 64 ;;
  esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/contacts-stores.sh
source "$root/Scripts/lib/contacts-stores.sh"
molt=$(molt_binary "$molt")
work=$(mktemp -d "${TMPDIR:-/tmp}/molt-crash.XXXXXX")
cleanup() { if [[ $keep == 1 ]]; then echo "crash-test: files kept in $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
started=$(date +%s)

say() { echo "crash-test: $*"; }
die() { echo "crash-test: error: $*" >&2; exit 1; }

# MARK: Data

# A Contacts (version 1) seed, and one store at each version with its dump.
contacts_seed "$objects" "$seed" >"$work/seed.json"
contacts_versions "$work" || die "the four versions could not be made"

# The command of each scenario, its base store, and its allowed states (dumps), first = old.
command_of() { # scenario store backup
  local b=""
  [[ $3 == 1 ]] && b="--backup"
  case "$1" in
    split) echo "migrate $2 --from $C --to $C --mapping $M/Contacts-to-Contacts2.xml $b" ;;
    copy) echo "migrate $2 --from $C --to $C --mapping $work/3to4.xml $b" ;;
    inplace) echo "migrate $2 --from $C --to $C $b" ;;
    upgrade) echo "upgrade $2 --models $C --mappings $M $b" ;;
  esac
}
base_of() { case "$1" in split | upgrade) echo 1 ;; copy | inplace) echo 3 ;; esac; }
states_of() { case "$1" in split) echo "1 2" ;; copy | inplace) echo "3 4" ;; upgrade) echo "1 2 3 4" ;; esac; }

modes="wal"
cp "$work/v1.sqlite" "$work/probe.sqlite"
if set_journal "$work/probe.sqlite" DELETE; then modes="wal delete"; else say "no sqlite3 or python3: WAL stores only"; fi
rm -f "$work/probe.sqlite"
for v in 1 3; do
  cp "$work/v$v.sqlite" "$work/base-wal-v$v.sqlite"
  if [[ $modes == *delete* ]]; then
    cp "$work/v$v.sqlite" "$work/base-delete-v$v.sqlite"
    set_journal "$work/base-delete-v$v.sqlite" DELETE
  fi
done

# MARK: Traced runs: the points each scenario reaches (and how often), and its duration.

IFS=, read -r -a scenario_list <<<"$scenarios"
declare -A duration
for scenario in "${scenario_list[@]}"; do
  for mode in $modes; do
    dir="$work/trace-$scenario-$mode"
    mkdir -p "$dir"
    cp "$work/base-$mode-v$(base_of "$scenario").sqlite" "$dir/Contacts.sqlite"
    # shellcheck disable=SC2046
    MOLT_FAULT_TRACE=1 "$molt" $(command_of "$scenario" "$dir/Contacts.sqlite" 1) 2>"$dir/trace" >/dev/null ||
      die "the traced $scenario run failed: $(grep -v molt-fault-point "$dir/trace" | head -3)"
    sed -n 's/^molt-fault-point: //p' "$dir/trace" | sort | uniq -c | awk '{print $2, $1}' >"$work/points-$scenario-$mode"
    # The shortest of three timed runs: one run slowed by a busy machine would put random
    # instants past the end of the later runs, which then finish instead of being killed.
    best=0
    for _ in 1 2 3; do
      cp "$work/base-$mode-v$(base_of "$scenario").sqlite" "$dir/Contacts.sqlite"
      rm -f "$dir"/*.molt-backup-* "$dir/Contacts.sqlite-wal" "$dir/Contacts.sqlite-shm"
      t0=$(date +%s%N)
      # shellcheck disable=SC2046
      "$molt" $(command_of "$scenario" "$dir/Contacts.sqlite" 0) >/dev/null
      took=$((($(date +%s%N) - t0) / 1000000))
      if ((best == 0 || took < best)); then best=$took; fi
    done
    duration[$scenario-$mode]=$best
    say "$scenario ($mode): $(wc -l <"$work/points-$scenario-$mode") fault points, $(awk '{s += $2} END {print s}' "$work/points-$scenario-$mode") reached, ${duration[$scenario-$mode]} ms"
  done
done

# MARK: One kill

# Which allowed state a dump file is: its version number, or "mixed".
state_of() { # dump-file scenario
  local v
  for v in $(states_of "$2"); do
    if cmp -s "$1" "$work/v$v.json"; then echo "$v"; return; fi
  done
  echo mixed
}

# The files of a store's folder that must not be there: Molt's temporaries (and, with
# `strict`, SQLite's companions too), other than backups.
leftovers() { # folder strict
  (cd "$1" && for f in * .[!.]*; do
    [[ -e $f ]] || continue
    case "$f" in
      Contacts.sqlite | Contacts.molt-backup-*.sqlite) ;;
      Contacts.sqlite-wal | Contacts.sqlite-shm | Contacts.sqlite-journal) [[ $2 == strict ]] && echo "$f" ;;
      *) echo "$f" ;;
    esac
  done) | tr '\n' ' '
}

recovery_points="recover.start recover.removing-new recover.companions-removed swap.before-log-removal swap.log-removed swap.before-rename swap.renamed swap.folder-synced swap.record-removed"

# Runs kill number $1 and prints one line: scenario mode instant outcome [failure...].
one_kill() {
  local n=$1 RANDOM_STATE
  RANDOM=$((seed * 7919 + n))
  local scenario=${scenario_list[$((RANDOM % ${#scenario_list[@]}))]}
  local mode_list=($modes)
  local mode=${mode_list[$((RANDOM % ${#mode_list[@]}))]}
  local backup=$((RANDOM % 4 == 0 ? 1 : 0))
  local dir="$work/run-$n"
  local store="$dir/store/Contacts.sqlite"
  local states old new
  states=$(states_of "$scenario")
  old=${states%% *}
  new=${states##* }
  rm -rf "$dir"
  mkdir -p "$dir/store"
  cp "$work/base-$mode-v$(base_of "$scenario").sqlite" "$store"
  local args instant status
  args=$(command_of "$scenario" "$store" "$backup")
  fail() {
    echo "$scenario $mode $instant ${outcome:-?} FAIL $*"
    mkdir -p "$work/failures"
    rm -rf "$work/failures/$n"
    mv "$dir" "$work/failures/$n"
    echo "$scenario $mode $instant backup=$backup: $*" >"$work/failures/$n/why"
  }
  local outcome=""
  if ((RANDOM % 2 == 0)); then
    # A fault point: uniformly among the points this run reaches, then the Nth time.
    local points point count
    mapfile -t points <"$work/points-$scenario-$mode"
    read -r point count <<<"${points[$((RANDOM % ${#points[@]}))]}"
    local nth=$((RANDOM % count + 1))
    instant="$point"
    set +e
    # shellcheck disable=SC2086
    MOLT_FAULT_POINT="$point:$nth" "$molt" $args >/dev/null 2>"$dir/stderr"
    status=$?
    set -e
  else
    local ms=$((RANDOM * 32768 + RANDOM))
    ms=$((ms % (${duration[$scenario-$mode]} + 1)))
    instant="random"
    # shellcheck disable=SC2086
    "$molt" $args >/dev/null 2>"$dir/stderr" &
    local pid=$!
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
    kill -9 "$pid" 2>/dev/null || true
    set +e
    wait "$pid"
    status=$?
    set -e
  fi
  if [[ $status != 137 && $status != 0 ]]; then
    fail "the run ended with status $status (neither killed nor done): $(head -c 300 "$dir/stderr")"
    return
  fi
  [[ $status == 0 ]] && instant="$instant(finished)"
  rm -f "$dir/stderr"

  # The store as it is after the kill must open as one complete version.
  if ! "$molt" dump "$store" --model "$C" --json -o "$dir/after-kill.json" 2>"$dir/dump.err"; then
    fail "dump after the kill failed: $(head -c 300 "$dir/dump.err")"
    return
  fi
  outcome=$(state_of "$dir/after-kill.json" "$scenario")
  [[ $outcome == mixed ]] && { fail "the store after the kill is neither version"; return; }
  local first=$outcome
  rm -f "$dir/after-kill.json" "$dir/dump.err"

  # Recovery: sometimes killed itself at a recovery point first, then done; or left to the
  # next run (which must recover by itself).
  local how=$((RANDOM % 3))
  if [[ $how == 0 ]]; then
    local rpoints=($recovery_points)
    local rpoint=${rpoints[$((RANDOM % ${#rpoints[@]}))]}
    set +e
    MOLT_FAULT_POINT="$rpoint" "$molt" recover "$store" >/dev/null 2>"$dir/recover.err"
    status=$?
    set -e
    if [[ $status == 137 ]]; then
      instant="$instant+$rpoint"
    elif [[ $status != 0 ]]; then
      fail "recover ended with status $status: $(head -c 300 "$dir/recover.err")"
      return
    fi
    if ! "$molt" dump "$store" --model "$C" --json -o "$dir/after-recover-kill.json" 2>"$dir/dump.err"; then
      fail "dump after a killed recovery failed: $(head -c 300 "$dir/dump.err")"
      return
    fi
    local again
    again=$(state_of "$dir/after-recover-kill.json" "$scenario")
    [[ $again == mixed ]] && { fail "the store after a killed recovery is neither version"; return; }
    ((again < outcome)) && { fail "the store went back from version $outcome to $again"; return; }
    outcome=$again
  fi
  if [[ $how != 2 ]]; then
    if ! "$molt" recover "$store" >/dev/null 2>"$dir/recover.err"; then
      fail "recover failed: $(head -c 300 "$dir/recover.err")"
      return
    fi
    local extra
    extra=$(leftovers "$dir/store" loose)
    [[ -n $extra ]] && { fail "recover left: $extra"; return; }
    if ! "$molt" dump "$store" --model "$C" --json -o "$dir/after-recover.json" 2>"$dir/dump.err"; then
      fail "dump after recover failed: $(head -c 300 "$dir/dump.err")"
      return
    fi
    local recovered
    recovered=$(state_of "$dir/after-recover.json" "$scenario")
    [[ $recovered == mixed ]] && { fail "the store after recover is neither version"; return; }
    ((recovered < outcome)) && { fail "recover took the store back from version $outcome to $recovered"; return; }
    outcome=$recovered
  fi

  # The next run finishes the job (a store already migrated is left alone).
  if [[ $outcome != "$new" || $how == 2 ]]; then
    local rerun
    # shellcheck disable=SC2086
    rerun=$(command_of "$scenario" "$store" 0)
    set +e
    "$molt" $rerun >/dev/null 2>"$dir/rerun.err"
    status=$?
    set -e
    # A migration (not an upgrade) of a store that its own recovery found migrated is refused
    # as not matching the source model (exit 3); anything else must succeed.
    if [[ $status != 0 && ($status != 3 || $scenario == upgrade) ]]; then
      fail "the next run failed (exit $status): $(head -c 300 "$dir/rerun.err")"
      return
    fi
  fi
  if ! "$molt" dump "$store" --model "$C" --json -o "$dir/final.json" 2>"$dir/dump.err"; then
    fail "dump after the next run failed: $(head -c 300 "$dir/dump.err")"
    return
  fi
  [[ $(state_of "$dir/final.json" "$scenario") == "$new" ]] || { fail "the next run did not reach the new version"; return; }
  local extra
  extra=$(leftovers "$dir/store" strict)
  [[ -n $extra ]] && { fail "left after the next run: $extra"; return; }
  # A backup, when there is one, is the complete old store.
  local backup_file
  for backup_file in "$dir"/store/Contacts.molt-backup-*.sqlite; do
    [[ -e $backup_file ]] || continue
    "$molt" dump "$backup_file" --model "$C" --json -o "$dir/backup.json" 2>/dev/null || { fail "the backup does not open"; return; }
    [[ $(state_of "$dir/backup.json" "$scenario") == "$old" ]] || { fail "the backup is not the old store"; return; }
  done
  name_of() { if [[ $1 == "$old" ]]; then echo old; elif [[ $1 == "$new" ]]; then echo new; else echo "v$1"; fi; }
  echo "$scenario $mode $instant $(name_of "$outcome") $(name_of "$first") ok"
  rm -rf "$dir"
}

say "seed $seed, $objects people, $kills kills, $jobs jobs, stores: $modes"
: >"$work/results"
n=0
while ((n < kills)); do
  batch=0
  while ((batch < jobs && n < kills)); do
    one_kill "$n" >>"$work/results" 2>>"$work/shell.log" &
    n=$((n + 1))
    batch=$((batch + 1))
  done
  wait
done

# MARK: Full disk and I/O errors

disk_failures=0
# The bytes of a store and its log, but the header's change counter and the counters beside it
# (bytes 24-27 and 92-99): a migration into a new file takes a WAL store out of WAL mode while
# it runs and puts it back when it fails, which SQLite counts as changes of the file.
store_sum() {
  python3 - "$1" <<'PY'
import hashlib, sys
digest = hashlib.sha256()
for suffix in ("", "-wal", "-journal"):
    try:
        data = bytearray(open(sys.argv[1] + suffix, "rb").read())
    except OSError:
        continue
    if suffix == "" and len(data) >= 100:
        data[24:28] = bytes(4)
        data[92:100] = bytes(8)
    digest.update(suffix.encode() + bytes(data))
print(digest.hexdigest())
PY
}
integrity() { python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute('PRAGMA integrity_check').fetchone()[0]); c.close()" "$1" 2>&1 | tail -1 || true; }
disk_cases=0
disk_completed=0
disk_check() { # label scenario dir status stderr-file store-sum-before
  local label=$1 scenario=$2 dir=$3 status=$4 err=$5 before=$6
  disk_cases=$((disk_cases + 1))
  local problem=""
  if [[ $status == 0 ]]; then
    # The limit was not reached: the run must have succeeded, and said so truly: the store at
    # the path whole and the new version, nothing of the run left.
    disk_completed=$((disk_completed + 1))
    local check state="?" states
    check=$(integrity "$dir/Contacts.sqlite")
    [[ $check == ok ]] || problem="exit 0, but integrity_check: $check"
    local made
    made=$(leftovers "$dir" loose)
    [[ -z $made ]] || problem="$problem; exit 0, but left: $made"
    states=$(states_of "$scenario")
    if "$molt" dump "$dir/Contacts.sqlite" --model "$C" --json -o "$work/disk.json" 2>"$work/disk-dump.err"; then
      state=$(state_of "$work/disk.json" "$scenario")
      [[ $state == "${states##* }" ]] || problem="$problem; exit 0, but the store is not the new version (state $state)"
    else
      problem="$problem; exit 0, but the store does not open ($(head -c 200 "$work/disk-dump.err"))"
    fi
    if [[ -n $problem ]]; then
      disk_failures=$((disk_failures + 1))
      echo "  $label: FAIL ${problem#; }"
    else
      echo "  $label: completed within the limit, the new version, whole"
    fi
    return
  fi
  if ((status >= 128)); then problem="killed by a signal ($status)"; fi
  grep -q "^molt: error: " "$err" || problem="$problem; no 'molt: error:' line"
  # A failed run removes what it made (no recovery needed).
  local made
  made=$(leftovers "$dir" loose)
  if [[ -n $made ]]; then problem="$problem; the failed run left: $made"; fi
  "$molt" recover "$dir/Contacts.sqlite" >/dev/null 2>&1 || problem="$problem; recover failed"
  local extra
  extra=$(leftovers "$dir" loose)
  if [[ -n $extra ]]; then problem="$problem; left: $extra"; fi
  local state="?" states
  states=$(states_of "$scenario")
  if "$molt" dump "$dir/Contacts.sqlite" --model "$C" --json -o "$work/disk.json" 2>"$work/disk-dump.err"; then
    state=$(state_of "$work/disk.json" "$scenario")
    # An upgrade may stop at a complete version on the way; a migration leaves the old store.
    if [[ $state == mixed || ($scenario != upgrade && $state != "${states%% *}") ]]; then
      problem="$problem; the store is not the old one (state $state)"
    fi
  else
    problem="$problem; the store does not open ($(head -c 200 "$work/disk-dump.err"))"
  fi
  # A heavyweight migration never writes the old file. SQLite's rollback of an in-place
  # transaction restores every page that held data; pages that were free may differ.
  local bytes="same bytes"
  if [[ $(store_sum "$dir/Contacts.sqlite") != "$before" ]]; then
    bytes="same objects, other bytes (free pages)"
    if [[ $scenario == split || $scenario == copy ]]; then problem="$problem; the store's bytes changed"; fi
  fi
  if [[ -n $problem ]]; then
    disk_failures=$((disk_failures + 1))
    echo "  $label: FAIL (exit $status) ${problem#; }: $(head -c 300 "$err")"
  else
    echo "  $label: exit $status, v$state, $bytes: $(head -1 "$err" | sed 's|/[^ ]*/||' | cut -c1-110)"
  fi
}

if [[ $disk != 0 ]] && ! command -v python3 >/dev/null; then
  say "full disk: skipped (python3 is needed to compare the store and check its integrity)"
  disk=0
fi
if [[ $disk != 0 ]]; then
  # Limits around the new store's growth: the passes, the log moved into the file, the swap.
  percents="5 50 90 110 150"
  [[ $disk == 2 ]] && percents="50 100 140"
  [[ $disk == 3 ]] && percents=$(seq 10 10 250)
  say "full disk (file-size limit, EFBIG):"
  for scenario in "${scenario_list[@]}"; do
    for mode in $modes; do
      base=$(base_of "$scenario")
      size=$(($(stat -c %s "$work/base-$mode-v$base.sqlite") / 1024))
      for percent in $percents; do
        limit=$((size * percent / 100 + 1))
        dir="$work/disk-$scenario-$mode-$percent"
        mkdir -p "$dir"
        cp "$work/base-$mode-v$base.sqlite" "$dir/Contacts.sqlite"
        before=$(store_sum "$dir/Contacts.sqlite")
        set +e
        # shellcheck disable=SC2046
        (trap '' XFSZ; ulimit -f "$limit"; exec "$molt" $(command_of "$scenario" "$dir/Contacts.sqlite" 0)) \
          >/dev/null 2>"$dir.err"
        status=$?
        set -e
        disk_check "$scenario $mode, limit $limit KB ($percent%)" "$scenario" "$dir" "$status" "$dir.err" "$before"
      done
    done
  done
  mountpoint="$work/tmpfs"
  mkdir -p "$mountpoint"
  if [[ ($disk == 1 || $disk == 3) && $(id -u) == 0 ]] && mount -t tmpfs -o size=1m tmpfs "$mountpoint" 2>/dev/null; then
    umount "$mountpoint"
    say "full disk (a small tmpfs, ENOSPC):"
    for scenario in "${scenario_list[@]}"; do
      base=$(base_of "$scenario")
      size=$(($(stat -c %s "$work/base-wal-v$base.sqlite") / 1024))
      tmpfs_percents="120 160"
      [[ $disk == 3 ]] && tmpfs_percents=$(seq 100 5 300)
      for percent in $tmpfs_percents; do
        mount -t tmpfs -o size=$((size * percent / 100 + 64))k tmpfs "$mountpoint"
        cp "$work/base-wal-v$base.sqlite" "$mountpoint/Contacts.sqlite"
        before=$(store_sum "$mountpoint/Contacts.sqlite")
        set +e
        # shellcheck disable=SC2046
        "$molt" $(command_of "$scenario" "$mountpoint/Contacts.sqlite" 0) >/dev/null 2>"$work/tmpfs.err"
        status=$?
        set -e
        disk_check "$scenario on a tmpfs of $percent% of the store" "$scenario" "$mountpoint" "$status" "$work/tmpfs.err" "$before"
        umount "$mountpoint"
      done
    done
  else
    say "full disk on a tmpfs: skipped (mounting is not allowed here)"
  fi
fi

# MARK: Summary

total=$(wc -l <"$work/results")
failed=$(grep -c ' FAIL ' "$work/results" || true)
say "kills by scenario and journal mode: the state the store opened in right after the kill, then after recovery"
say "(old, new, or for an upgrade a complete version on the way):"
summary() { # key-expression
  awk "!/ FAIL / {k = $1; n[k]++; a[k, \$5]++; b[k, \$4]++}
    END {for (k in n) printf \"  %-30s %5d   after the kill: old %4d new %4d other %4d   after recovery: old %4d new %4d other %4d\\n\", k, n[k],
      a[k, \"old\"], a[k, \"new\"], n[k] - a[k, \"old\"] - a[k, \"new\"], b[k, \"old\"], b[k, \"new\"], n[k] - b[k, \"old\"] - b[k, \"new\"]}" "$work/results" | sort
}
summary '$1 " " $2'
say "kills by instant (fault point, or random; '(finished)': the run ended before the point or the kill):"
summary 'substr($3, 1, index($3 "+", "+") - 1)'
recovery_kills=$(grep -c '+' "$work/results" || true)
say "kills inside recovery: $recovery_kills"
if ((failed > 0)); then
  say "FAILURES ($failed):"
  grep ' FAIL ' "$work/results" | sed 's/^/  /'
  keep=1
fi
finished=$(grep -c '(finished)' "$work/results" || true)
kills_total=$((total - finished + recovery_kills))
say "$total runs, $((total - finished)) killed ($finished finished before their instant), $recovery_kills more kills inside recovery: $kills_total kills, $failed failed; disk cases $disk_cases ($disk_completed completed within their limit), $disk_failures failed; $(($(date +%s) - started)) s"
((failed == 0 && disk_failures == 0 && total == kills))
