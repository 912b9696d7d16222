#!/usr/bin/env bash
# Compares an in-place lightweight migration with the heavyweight engine running the same
# inferred mapping, on one generated store, in one run (this machine is noisy: compare the
# ratio, not the seconds). Two changes are measured:
#   add    — a new optional attribute on every table (ALTER TABLE … ADD COLUMN);
#   retype — Integer 32 → String and a rename (tables rebuilt with INSERT … SELECT).
# Both results are dumped and compared: the two engines must give the same objects.
#
#   Scripts/bench-lightweight.sh [OBJECTS]      (default 100000 books, OBJECTS/10 authors)
set -euo pipefail
objects=${1:-100000}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/molt-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$root"
swift build -c release --product molt >/dev/null
molt="$root/.build/release/molt"

model() { # name, extra Book attributes, pages type, title attribute
  mkdir -p "$work/Library.xcdatamodeld/$1.xcdatamodel"
  cat > "$work/Library.xcdatamodeld/$1.xcdatamodel/contents" <<XML
<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
    <entity name="Author" representedClassName="Author" syncable="YES">
        <attribute name="name" attributeType="String"/>
        <attribute name="born" optional="YES" attributeType="Date" usesScalarValueType="NO"/>$2
        <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
    </entity>
    <entity name="Book" representedClassName="Book" syncable="YES">
        $4
        <attribute name="pages" optional="YES" attributeType="$3" usesScalarValueType="YES"/>
        <attribute name="price" optional="YES" attributeType="Double" usesScalarValueType="YES"/>$2
        <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
    </entity>
</model>
XML
}
title='<attribute name="title" attributeType="String"/>'
model V1 "" "Integer 32" "$title"
model V2 '
        <attribute name="note" optional="YES" attributeType="String"/>' "Integer 32" "$title"
model V3 "" "String" '<attribute name="heading" attributeType="String" elementID="title"/>'

python3 - "$objects" > "$work/seed.json" <<'PY'
import json, sys
n = int(sys.argv[1]); authors = max(1, n // 10)
out = {"entities": {
  "Author": [{"@id": f"a{i}", "name": f"Author {i}", "born": "1970-01-01T00:00:00Z" if i % 3 else None} for i in range(authors)],
  "Book": [{"@id": f"b{i}", "title": f"Book {i}", "pages": i % 900, "price": i / 7, "author": f"a{i % authors}"} for i in range(n)]}}
json.dump(out, sys.stdout)
PY
"$molt" create "$work/base.sqlite" --model "$work/Library.xcdatamodeld" --model-version V1 --seed "$work/seed.json" >/dev/null

run() { # label, to-version
  "$molt" infer --from "$work/Library.xcdatamodeld" --from-version V1 --to "$work/Library.xcdatamodeld" --to-version "$2" -o "$work/$2.xml" >/dev/null
  cp "$work/base.sqlite" "$work/heavy.sqlite"; cp "$work/base.sqlite" "$work/light.sqlite"
  local t0 t1 t2
  t0=$(date +%s.%N)
  "$molt" migrate "$work/heavy.sqlite" --from "$work/Library.xcdatamodeld" --to "$work/Library.xcdatamodeld" --to-version "$2" --mapping "$work/$2.xml" >/dev/null
  t1=$(date +%s.%N)
  "$molt" migrate "$work/light.sqlite" --from "$work/Library.xcdatamodeld" --to "$work/Library.xcdatamodeld" --to-version "$2" >/dev/null
  t2=$(date +%s.%N)
  "$molt" dump "$work/heavy.sqlite" --model "$work/Library.xcdatamodeld" --json -o "$work/heavy.json"
  "$molt" dump "$work/light.sqlite" --model "$work/Library.xcdatamodeld" --json -o "$work/light.json"
  local same=no
  cmp -s "$work/heavy.json" "$work/light.json" && same=yes
  python3 -c "h=$t1-$t0; l=$t2-$t1; print(f'$1: {$objects + $objects // 10} objects  heavyweight {h:.2f} s  in place {l:.2f} s  ratio {h/l:.1f}x  same dump: $same')"
}
run add V2
run retype V3
