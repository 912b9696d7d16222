#!/usr/bin/env bash
# Builds every Swift block of the README, Policies/README.md and the DocC articles in a package
# that depends on Molt by path (.build/doc-snippets), so the documentation's Swift compiles as
# shown. A block marks itself `// Fragment: …` (not built) or `// Given: name: Type, …` (what
# earlier text set up); see Scripts/DocSnippets/extract.swift.
#
#     Scripts/check-doc-snippets.sh [scratch path]
#
# The scratch path defaults to the package's own; CI passes Examples/LibraryApp/.build, which
# has Molt built already for the same sources.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
out="$root/.build/doc-snippets"
scratch="${1:-$out/.build}"
case "$scratch" in /*) ;; *) scratch="$root/$scratch" ;; esac

mkdir -p "$out"
swift "$root/Scripts/DocSnippets/extract.swift" "$root" "$out"
swift build --package-path "$out" --scratch-path "$scratch"
echo "doc snippets: every block builds"
