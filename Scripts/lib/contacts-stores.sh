# Shared by Scripts/crash-test.sh and Scripts/concurrency-test.sh (sourced, not run): the molt
# binary they test, and the generated Contacts stores they race or kill migrations on.
#
# After `source`, with $root set to the repository:
#   molt_binary PATH        prints the absolute path of PATH, or of a release molt built now
#   contacts_seed N SEED    prints a Contacts (version 1) seed of N people
#   contacts_versions DIR   makes DIR/v1.sqlite … v4.sqlite (one store at each version of the
#                           Contacts example, from DIR/seed.json), their dumps DIR/vN.json, and
#                           DIR/3to4.xml (the inferred Contacts 3 → 4 mapping as a file)
#   set_journal STORE MODE  sets a store's journal mode (sqlite3 or python3; fails without both)

C="$root/MappingModels/Examples/Contacts.xcdatamodeld"
M="$root/MappingModels/Contacts"

molt_binary() {
  local path=$1
  if [[ -z "$path" ]]; then
    (cd "$root" && swift build -c release --product molt >/dev/null)
    path="$root/.build/release/molt"
  fi
  echo "$(cd "$(dirname "$path")" && pwd)/$(basename "$path")"
}

# People (one in seven shares an e-mail address with an earlier one, differently spelt, so the
# merge policy merges), with phones and addresses, in groups.
contacts_seed() {
  awk -v n="$1" -v s="$2" 'BEGIN {
    srand(s); groups = int(n / 40) + 1
    printf "{\"entities\": {\"Group\": [\n"
    for (g = 0; g < groups; g++) {
      printf "%s{\"@id\": \"g%d\", \"name\": \"Group %d\", \"members\": [", (g ? ",\n" : ""), g, g
      for (k = 0; k < 12 && k < n; k++) printf "%s\"p%d\"", (k ? ", " : ""), (g * 12 + k) % n
      printf "]}"
    }
    printf "\n], \"Person\": [\n"
    for (i = 0; i < n; i++) {
      email = "null"
      if (i % 7 == 3 && i > 10) email = sprintf("\" PERSON%d@Example.com\"", i - 10)
      else if (i % 5 != 0) email = sprintf("\"person%d@example.com\"", i)
      phone = (i % 3 == 0) ? "null" : sprintf("\"+44 20 %04d %04d\"", int(rand() * 10000), i % 10000)
      street = (i % 4 == 0) ? "null" : sprintf("\"%d High St\"", i)
      printf "%s{\"@id\": \"p%d\", \"name\": \"Person %d\", \"email\": %s, \"phone\": %s, \"street\": %s, \"city\": \"City %d\", \"postcode\": \"PC%d\", \"createdAt\": \"2020-01-01T00:00:%02dZ\"}", (i ? ",\n" : ""), i, i, email, phone, street, i % 97, i % 1000, i % 60
    }
    printf "\n]}, \"format\": \"molt-objects\", \"version\": 1}\n"
  }'
}

contacts_versions() {
  local dir=$1 a b v
  "$molt" create "$dir/v1.sqlite" --model "$C" --model-version Contacts --seed "$dir/seed.json" >/dev/null
  cp "$dir/v1.sqlite" "$dir/v2.sqlite"
  "$molt" migrate "$dir/v2.sqlite" --from "$C" --to "$C" --mapping "$M/Contacts-to-Contacts2.xml" >/dev/null
  cp "$dir/v2.sqlite" "$dir/v3.sqlite"
  "$molt" migrate "$dir/v3.sqlite" --from "$C" --to "$C" --mapping "$M/Contacts2-to-Contacts3.xml" >/dev/null
  cp "$dir/v3.sqlite" "$dir/v4.sqlite"
  "$molt" migrate "$dir/v4.sqlite" --from "$C" --to "$C" >/dev/null
  "$molt" infer --from "$C" --from-version "Contacts 3" --to "$C" --to-version "Contacts 4" -o "$dir/3to4.xml" >/dev/null
  for v in 1 2 3 4; do "$molt" dump "$dir/v$v.sqlite" --model "$C" --json -o "$dir/v$v.json"; done
  for a in 1 2 3 4; do for b in 1 2 3 4; do
    if [[ $a != "$b" ]] && cmp -s "$dir/v$a.json" "$dir/v$b.json"; then
      echo "error: versions $a and $b dump the same" >&2
      return 1
    fi
  done; done
}

set_journal() { # store mode
  if command -v sqlite3 >/dev/null; then
    sqlite3 "$1" "PRAGMA journal_mode=$2;" >/dev/null
  elif command -v python3 >/dev/null; then
    python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA journal_mode=$2'); c.close()" "$1"
  else
    return 1
  fi
}
