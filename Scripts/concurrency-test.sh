#!/usr/bin/env bash
# Concurrency test: in each round, 2 to 8 `molt` processes race to write one store (migrations
# with and without --wait, dry runs, recovery) while readers (`molt inspect`, `molt dump` and a
# plain SQLite reader in Python) read it in a loop. After each round it checks that exactly one
# process migrated the store; that every other one either found it already migrated (exit 0)
# or was told "another migration of this store is running" (exit 75); that no process reported
# a damaged store; that every read saw one complete version (the old one, the new one, or for an
# upgrade a version on the way), never an error or a mixture; that the store passes SQLite's
# integrity_check and dumps as the new version; and that no temporary file is left.
#
#   Scripts/concurrency-test.sh [--rounds N] [--seed S] [--objects N] [--jobs N] [--molt PATH]
#                               [--scenarios inplace,copy,policy,upgrade] [--app-writer] [--keep]
#
# With --app-writer, each round runs one migration beside an app that writes to the store
# without knowing Molt's lock (Scripts/lib/app-writer.py: every 5 ms it opens the store, asks
# for WAL mode unless the store is on a rollback journal, inserts a Person, commits, closes),
# and checks that every insert whose commit returned is in the store at the path when the
# migration ends (the new store if it swapped, the old one if it refused), that the store is
# whole and at the new version after exit 0 (at the old one, or for an upgrade one on the way,
# after "in use", exit 74), and that nothing is left beside it. Scenarios: copy, policy and
# upgrade (the migrations that replace the file).
#
# Scenarios (each on WAL and rollback-journal stores), on the Contacts example model
# (MappingModels/Examples/Contacts.xcdatamodeld) with generated data:
#   inplace  `molt migrate` Contacts 3 → Contacts 4 without a mapping (in place);
#   copy     `molt migrate` Contacts 3 → Contacts 4 with the inferred mapping as a file (a copy
#            and a swap);
#   policy   `molt migrate` Contacts → Contacts 2 with a policy (object by object, then a swap);
#   upgrade  `molt upgrade` Contacts → Contacts 4 (heavy, heavy, in place).
# Without --molt, a release `molt` is built. Needs python3 (the plain reader, journal modes,
# integrity_check). Exits 1 if any check failed.
set -euo pipefail

rounds=500
seed=$RANDOM
objects=300
jobs=$(nproc 2>/dev/null || echo 2)
molt=""
scenarios="inplace,copy,policy,upgrade"
keep=0
app_writer=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --objects) objects=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --molt) molt=$2; shift 2 ;;
    --scenarios) scenarios=$2; shift 2 ;;
    --app-writer) app_writer=1; shift ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "concurrency-test: unknown option $1" >&2; exit 64 ;;
  esac
done

say() { echo "concurrency-test: $*"; }
die() { echo "concurrency-test: error: $*" >&2; exit 1; }
command -v python3 >/dev/null || die "python3 is needed (the plain SQLite reader)"

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/contacts-stores.sh
source "$root/Scripts/lib/contacts-stores.sh"
molt=$(molt_binary "$molt")
work=$(mktemp -d "${TMPDIR:-/tmp}/molt-concurrency.XXXXXX")
cleanup() { if [[ $keep == 1 ]]; then say "files kept in $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
started=$(date +%s)

# MARK: Data: the four versions of one generated store, their dumps and what readers see of them

contacts_seed "$objects" "$seed" >"$work/seed.json"
contacts_versions "$work" || die "the four versions could not be made"

# The plain reader: one read transaction (what SQLite promises a reader), a signature of the
# schema and the row counts. A missing store or an SQLite error is printed as an error.
cat >"$work/reader.py" <<'PY'
import hashlib, sqlite3, sys
try:
    db = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
    db.execute("BEGIN")
    tables = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall()
    parts = ["%s|%s|%d" % (name, sql, db.execute('SELECT count(*) FROM "%s"' % name.replace('"', '""')).fetchone()[0])
             for name, sql in tables]
    db.execute("COMMIT")
    db.close()
    print(hashlib.sha256("\n".join(parts).encode()).hexdigest())
except Exception as error:
    print("ERROR %s" % error)
PY
integrity() { python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute('PRAGMA integrity_check').fetchone()[0]); c.close()" "$1"; }

for v in 1 2 3 4; do
  python3 "$work/reader.py" "$work/v$v.sqlite" >"$work/v$v.plain"
  grep -q ERROR "$work/v$v.plain" && die "the plain reader cannot read version $v: $(cat "$work/v$v.plain")"
done
for mode in wal delete; do
  for v in 1 3; do
    cp "$work/v$v.sqlite" "$work/base-$mode-v$v.sqlite"
    [[ $mode == delete ]] && set_journal "$work/base-$mode-v$v.sqlite" DELETE
  done
done

# The command of each scenario, its base version and target, and the versions a reader may see.
command_of() { # scenario store
  case "$1" in
    inplace) echo "migrate $2 --from $C --to $C" ;;
    copy) echo "migrate $2 --from $C --to $C --mapping $work/3to4.xml" ;;
    policy) echo "migrate $2 --from $C --to $C --mapping $M/Contacts-to-Contacts2.xml" ;;
    upgrade) echo "upgrade $2 --models $C --mappings $M" ;;
  esac
}
base_of() { case "$1" in policy | upgrade) echo 1 ;; *) echo 3 ;; esac; }
target_of() { case "$1" in policy) echo 2 ;; *) echo 4 ;; esac; }
states_of() { case "$1" in policy) echo "1 2" ;; upgrade) echo "1 2 3 4" ;; *) echo "3 4" ;; esac; }
version_name() { if [[ $1 == 1 ]]; then echo Contacts; else echo "Contacts $1"; fi; }

# MARK: One round

# A reader loop: runs `kind` against the store until the file `stop` exists, one line per read:
# the version it saw, or what went wrong.
reader_loop() { # kind store stop out scenario
  local kind=$1 store=$2 stop=$3 out=$4 scenario=$5 v seen
  : >"$out"
  while [[ ! -e $stop ]]; do
    case "$kind" in
      inspect)
        if seen=$("$molt" inspect "$store" --model "$C" 2>"$out.err"); then
          seen=$(sed -n 's/^Matching: *//p' <<<"$seen" | sed 's/ (.*//')
          v="?"
          for candidate in $(states_of "$scenario"); do
            [[ $seen == "$(version_name "$candidate")" ]] && v=$candidate
          done
          echo "$v $seen" >>"$out"
        else
          echo "ERROR inspect: $(tr '\n' ' ' <"$out.err" | head -c 400)" >>"$out"
        fi ;;
      dump)
        if "$molt" dump "$store" --model "$C" --json -o "$out.json" 2>"$out.err"; then
          v="?"
          for candidate in $(states_of "$scenario"); do
            cmp -s "$out.json" "$work/v$candidate.json" && v=$candidate
          done
          echo "$v" >>"$out"
        else
          echo "ERROR dump: $(tr '\n' ' ' <"$out.err" | head -c 400)" >>"$out"
        fi ;;
      plain)
        seen=$(python3 "$work/reader.py" "$store")
        v="?"
        for candidate in $(states_of "$scenario"); do
          [[ $seen == "$(cat "$work/v$candidate.plain")" ]] && v=$candidate
        done
        [[ $seen == ERROR* ]] && v="ERROR plain: $seen"
        echo "$v" >>"$out" ;;
    esac
  done
}

# The files in a store's folder other than the store and its -wal and -shm, on one line.
left_beside() { # folder
  (cd "$1" && for f in * .[!.]*; do
    [[ -e $f ]] || continue
    case "$f" in Contacts.sqlite | Contacts.sqlite-wal | Contacts.sqlite-shm) ;; *) echo "$f" ;; esac
  done) | tr '\n' ' '
}

# Runs round $1 and prints one line: scenario mode writers outcome [failure...].
one_round() {
  local n=$1
  RANDOM=$((seed * 7919 + n))
  local scenario=${scenario_list[$((RANDOM % ${#scenario_list[@]}))]}
  local mode_list=(wal delete)
  local mode=${mode_list[$((RANDOM % 2))]}
  local writers=$((2 + RANDOM % 7))
  local dir="$work/round-$n"
  local store="$dir/store/Contacts.sqlite"
  rm -rf "$dir"
  mkdir -p "$dir/store"
  cp "$work/base-$mode-v$(base_of "$scenario").sqlite" "$store"
  local base_command
  base_command=$(command_of "$scenario" "$store")
  fail() {
    echo "$scenario $mode $writers FAIL $(tr '\n' ' ' <<<"$*")"
    mkdir -p "$work/failures"
    rm -rf "$work/failures/$n"
    mv "$dir" "$work/failures/$n"
    echo "$scenario $mode writers=$writers: $*" >"$work/failures/$n/why"
  }

  # Readers first, so they read before, during and after the writers.
  local kind
  for kind in inspect dump plain; do
    reader_loop "$kind" "$store" "$dir/stop" "$dir/read-$kind" "$scenario" &
  done
  # Writer 0 always waits, so one run migrates; the others are a random mix.
  local w kinds=() pids=()
  for ((w = 0; w < writers; w++)); do
    local what=wait
    if ((w > 0)); then
      case $((RANDOM % 5)) in
        0 | 1) what=nowait ;;
        2) what=wait ;;
        3) what=dryrun ;;
        4) what=recover ;;
      esac
    fi
    kinds+=("$what")
    local args
    case "$what" in
      wait) args="$base_command --wait 300" ;;
      nowait) args="$base_command" ;;
      dryrun) args="$base_command --dry-run" ;;
      recover) args="recover $store" ;;
    esac
    sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
    (
      set +e
      # shellcheck disable=SC2086
      "$molt" $args >"$dir/w$w.out" 2>"$dir/w$w.err"
      echo $? >"$dir/w$w.status"
    ) &
    pids+=($!)
  done
  for w in "${pids[@]}"; do wait "$w"; done
  touch "$dir/stop"
  wait

  # Writers: one migration, the others nothing to do or told to come back; never "damaged".
  local migrated=0 already=0 busy=0 dry=0 recovered=0 status out err
  for ((w = 0; w < writers; w++)); do
    status=$(cat "$dir/w$w.status")
    out=$(cat "$dir/w$w.out")
    err=$(cat "$dir/w$w.err")
    if grep -qiE "malformed|corrupt|damaged|not a database" <<<"$err$out"; then
      fail "writer $w (${kinds[$w]}) reported damage: $(head -c 300 <<<"$err")"
      return
    fi
    if [[ $status == 75 ]]; then
      if [[ ${kinds[$w]} == wait ]]; then fail "writer $w waited but was refused: $err"; return; fi
      grep -q "another migration of this store is running (process [0-9]*)" <<<"$err" ||
        { fail "writer $w: exit 75 without the message: $err"; return; }
      busy=$((busy + 1))
      continue
    fi
    [[ $status == 0 ]] || { fail "writer $w (${kinds[$w]}) exit $status: $(head -c 300 <<<"$err")"; return; }
    case "${kinds[$w]}" in
      recover) recovered=$((recovered + 1)) ;;
      dryrun)
        grep -qE "^Dry run|already at" <<<"$out" || { fail "writer $w dry run: $out"; return; }
        dry=$((dry + 1)) ;;
      *)
        if grep -qE "^(Migrated|Upgraded) " <<<"$out"; then
          migrated=$((migrated + 1))
        elif grep -qF "is already at $(version_name "$(target_of "$scenario")"): nothing to migrate" <<<"$out"; then
          already=$((already + 1))
        else
          fail "writer $w (${kinds[$w]}): unexpected output: $(head -c 300 <<<"$out")"
          return
        fi ;;
    esac
  done
  ((migrated == 1)) || { fail "$migrated runs migrated the store (one expected)"; return; }

  # Readers: every read one complete version.
  local reads=0 line counts=""
  for kind in inspect dump plain; do
    while read -r line; do
      reads=$((reads + 1))
      case "$line" in
        [1-4] | [1-4]\ *) ;;
        *) fail "a $kind read saw: $line"; return ;;
      esac
    done <"$dir/read-$kind"
    counts="$counts $kind=$(awk '{print $1}' "$dir/read-$kind" | sort | uniq -c | awk '{printf "%s%s:%s", (NR > 1 ? "," : ""), $2, $1}')"
  done

  # The store: whole, the new version, nothing of the migration left.
  local check
  check=$(integrity "$store")
  [[ $check == ok ]] || { fail "integrity_check: $check"; return; }
  "$molt" dump "$store" --model "$C" --json -o "$dir/final.json" 2>"$dir/final.err" ||
    { fail "the final dump failed: $(head -c 300 "$dir/final.err")"; return; }
  cmp -s "$dir/final.json" "$work/v$(target_of "$scenario").json" || { fail "the store is not the new version"; return; }
  local extra
  extra=$(left_beside "$dir/store")
  [[ -z $extra ]] || { fail "left beside the store: $extra"; return; }
  echo "$scenario $mode $writers ok migrated=1 already=$already busy=$busy dry=$dry recover=$recovered reads=$reads$counts"
  rm -rf "$dir"
}

# MARK: One round beside an app that writes

# Runs round $1 with an app writing beside the migration and prints one line:
# scenario mode outcome commits [failure...].
app_round() {
  local n=$1
  RANDOM=$((seed * 7919 + n))
  local scenario=${scenario_list[$((RANDOM % ${#scenario_list[@]}))]}
  local mode_list=(wal delete)
  local mode=${mode_list[$((RANDOM % 2))]}
  local dir="$work/app-$n"
  local store="$dir/store/Contacts.sqlite"
  rm -rf "$dir"
  mkdir -p "$dir/store"
  cp "$work/base-$mode-v$(base_of "$scenario").sqlite" "$store"
  fail() {
    echo "$scenario $mode FAIL $(tr '\n' ' ' <<<"$*")"
    mkdir -p "$work/failures"
    rm -rf "$work/failures/app-$n"
    mv "$dir" "$work/failures/app-$n"
    echo "$scenario $mode: $*" >"$work/failures/app-$n/why"
  }
  local keep_mode=""
  [[ $mode == delete ]] && keep_mode="--keep-mode"
  python3 "$root/Scripts/lib/app-writer.py" "$store" "$dir/commits" "$dir/stop" $keep_mode >"$dir/writer.out" 2>&1 &
  local writer=$!
  sleep "0.$((2 + RANDOM % 4))"
  local status
  set +e
  # shellcheck disable=SC2046
  "$molt" $(command_of "$scenario" "$store") >"$dir/molt.out" 2>"$dir/molt.err"
  status=$?
  set -e
  sleep 0.3
  touch "$dir/stop"
  wait "$writer"
  local outcome
  case $status in
    0) outcome=migrated ;;
    74)
      grep -q "another process has the store open" "$dir/molt.err" ||
        { fail "exit 74 without 'in use': $(head -c 300 "$dir/molt.err")"; return; }
      outcome=refused ;;
    *) fail "molt exit $status: $(head -c 300 "$dir/molt.err")"; return ;;
  esac
  local check
  check=$(python3 - "$store" "$dir/commits" <<'PY'
import sqlite3, sys
names = [line.strip() for line in open(sys.argv[2]) if line.strip()]
db = sqlite3.connect(sys.argv[1])
integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
have = {}
for (name,) in db.execute("SELECT ZNAME FROM ZPERSON WHERE ZNAME LIKE 'app-%'"):
    have[name] = have.get(name, 0) + 1
missing = [name for name in names if have.get(name, 0) != 1]
print("%s %d %d %s" % (integrity.replace(" ", "_"), len(names), len(missing), ",".join(missing[:5])))
PY
  ) || { fail "the store cannot be read: $check"; return; }
  local integrity commits lost
  read -r integrity commits lost _ <<<"$check"
  [[ $integrity == ok ]] || { fail "integrity_check: $integrity"; return; }
  ((lost == 0)) || { fail "$lost of $commits committed inserts are not in the store: $check"; return; }
  local seen
  seen=$("$molt" inspect "$store" --model "$C" 2>&1 | sed -n 's/^Matching: *//p' | sed 's/ (.*//')
  local states target
  states=$(states_of "$scenario")
  target=$(version_name "${states##* }")
  if [[ $outcome == migrated && $seen != "$target" ]]; then fail "exit 0 but the store is $seen"; return; fi
  if [[ $outcome == refused && $seen == "$target" ]]; then fail "refused but the store is $seen"; return; fi
  local extra
  extra=$(left_beside "$dir/store")
  [[ -z $extra ]] || { fail "left beside the store: $extra"; return; }
  echo "$scenario $mode ok $outcome commits=$commits $(sed 's/^app-writer: [0-9]* commits; //; s/ /_/g' "$dir/writer.out")"
  rm -rf "$dir"
}

# Runs the rounds with `$1` (a function printing one line per round), $jobs at a time, into
# $work/results; sets `total` and `failed`.
run_rounds() {
  : >"$work/results"
  local n=0 batch
  while ((n < rounds)); do
    batch=0
    while ((batch < jobs && n < rounds)); do
      "$1" "$n" >>"$work/results" 2>>"$work/shell.log" &
      n=$((n + 1))
      batch=$((batch + 1))
    done
    wait
  done
  total=$(wc -l <"$work/results")
  failed=$(grep -c ' FAIL ' "$work/results" || true)
}

# Prints the failed rounds, if any (their files are kept).
print_failures() {
  ((failed > 0)) || return 0
  say "FAILURES ($failed):"
  grep ' FAIL ' "$work/results" | sed 's/^/  /'
  keep=1
}

IFS=, read -r -a scenario_list <<<"$scenarios"
if [[ $app_writer == 1 ]]; then
  [[ $scenarios == "inplace,copy,policy,upgrade" ]] && scenario_list=(copy policy upgrade)
  say "seed $seed, $objects people, $rounds rounds beside an app writing, $jobs jobs"
  run_rounds app_round
  say "rounds by scenario and journal mode: migrated (swapped) or refused (in use), and the app's commits:"
  awk '!/ FAIL / { k = $1 " " $2; n[k]++; o[k, $4]++; split($5, kv, "="); c[k] += kv[2] }
    END { for (k in n) printf "  %-15s %4d rounds: %4d migrated, %4d refused; %6d commits, every one in the store\n",
      k, n[k], o[k, "migrated"], o[k, "refused"], c[k] }' "$work/results" | sort
  print_failures
  commits=$(awk '!/ FAIL / {split($5, kv, "="); s += kv[2]} END {print s + 0}' "$work/results")
  say "$total rounds beside an app, $failed failed, $commits commits kept; $(($(date +%s) - started)) s"
  ((failed == 0 && total == rounds))
  exit
fi
say "seed $seed, $objects people, $rounds rounds, $jobs jobs"
run_rounds one_round

# MARK: Summary

say "rounds by scenario and journal mode: the writers racing (one migrated in each round; the others"
say "found nothing to do, were told another migration runs, dry-ran or recovered), and the reads by"
say "the version they saw (the old one first):"
awk '!/ FAIL / {
    k = $1 " " $2; n[k]++; w[k] += $3
    for (i = 4; i <= NF; i++) {
      split($i, kv, "=")
      if (kv[1] ~ /^(already|busy|dry|recover|reads)$/) s[k, kv[1]] += kv[2]
      if (kv[1] ~ /^(inspect|dump|plain)$/) {
        m = split(kv[2], pairs, ",")
        for (j = 1; j <= m; j++) { split(pairs[j], vc, ":"); seen[k, vc[1]] += vc[2]; versions[vc[1]] = 1 }
      }
    }
  }
  END { for (k in n) {
      line = ""
      for (v = 1; v <= 4; v++) if (seen[k, v] > 0) line = line sprintf(" v%d %d", v, seen[k, v])
      printf "  %-15s %4d rounds, %4d writers: %4d nothing to do, %4d told another runs, %3d dry runs, %3d recoveries; %6d reads:%s\n",
        k, n[k], w[k], s[k, "already"], s[k, "busy"], s[k, "dry"], s[k, "recover"], s[k, "reads"], line
    } }' "$work/results" | sort
print_failures
reads=$(awk '!/ FAIL / {for (i = 4; i <= NF; i++) if ($i ~ /^reads=/) {split($i, kv, "="); s += kv[2]}} END {print s + 0}' "$work/results")
say "$total rounds, $failed failed, $reads reads; $(($(date +%s) - started)) s"
((failed == 0 && total == rounds))
