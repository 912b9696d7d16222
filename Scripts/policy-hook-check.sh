#!/usr/bin/env bash
# Checks that a policy hook written wrong never builds: in a scratch package that depends on
# Molt by path, each target holds one policy with one mistake, and each must fail to build with
# the error that names it (from the compiler, or from the PolicyList plugin with the file and
# line). A correct policy must build, and the plugin must list exactly the hooks it overrides.
# Exits 0 only when every mistake is caught.
#
#     Scripts/policy-hook-check.sh [scratch path]
#
# The scratch path defaults to the package's own; CI passes Examples/LibraryApp/.build, which
# has Molt built already for the same sources.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
out="$root/.build/policy-hook-check"
scratch="${1:-$out/.build}"
case "$scratch" in /*) ;; *) scratch="$root/$scratch" ;; esac
rm -rf "$out/Sources"
mkdir -p "$out/Sources"

# name|the policy's body|what the build must print
cases=(
  "MissingLetter|override func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {}
    func createDestinationInstance(forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager) throws {}|Policy.swift:5:5: error: MissingLetterPolicy.createDestinationInstance(forSource:in:manager:) is not a hook of EntityMigrationPolicy"
  "OldLabels|func createRelationships(
        forDestination destination: DestinationObject, mapping: EntityMapping, manager: MigrationManager
    ) throws {}|Policy.swift:4:5: error: OldLabelsPolicy.createRelationships(forDestination:mapping:manager:) is not a hook of EntityMigrationPolicy"
  "NoOverride|func end(_ mapping: EntityMapping, manager: MigrationManager) throws {}|Policy.swift:4:5: error: NoOverridePolicy.end(_:manager:) has a hook's name but no 'override'"
  "LetterCase|func performcustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}|error: LetterCasePolicy.performcustomValidation(forMapping:manager:) is not a hook of EntityMigrationPolicy"
  "OverrideTypo|override func endInstanceCreaton(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}|error: method does not override any method from its superclass"
  "WrongType|override func createDestinationInstances(forSource source: DestinationObject, in mapping: EntityMapping, manager: MigrationManager) throws {}|error: method does not override any method from its superclass"
)

targets=""
for entry in "${cases[@]}"; do
  name="${entry%%|*}"
  rest="${entry#*|}"
  body="${rest%|*}"
  mkdir -p "$out/Sources/$name"
  printf 'import Molt\n\nfinal class %sPolicy: EntityMigrationPolicy {\n    %s\n}\n' "$name" "$body" > "$out/Sources/$name/Policy.swift"
  targets+="        .target(name: \"$name\", dependencies: [.product(name: \"Molt\", package: \"Molt\")], plugins: [.plugin(name: \"PolicyListPlugin\", package: \"Molt\")]),
"
done

# The control: a correct policy, and a program that prints what the plugin listed.
mkdir -p "$out/Sources/Correct" "$out/Sources/show-hooks"
cat > "$out/Sources/Correct/Policy.swift" <<'SWIFT'
import Molt

public final class CorrectPolicy: EntityMigrationPolicy {
    private var seen = 0

    // A helper whose name is far from every hook's.
    func normalized(_ text: String) -> String { text.lowercased() }

    // Braces and quotes inside literals and comments do not end the class: /* } { */
    let note = "a { brace, \("an \"inner\" } string") and an escaped \\"
    let block = """
        } still text {
        """
    let raw = #"a raw } string with "quotes""#

    public override func createRelationships(
        forDestination destination: DestinationObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try super.createRelationships(forDestination: destination, in: mapping, manager: manager)
    }

    public override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        seen += 1
        try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
    }

    @available(*, deprecated, message: "attributes before the keyword are read too")
    public override func end(_ mapping: EntityMapping, manager: MigrationManager) throws {}
}

/// A policy that inherits a hook from its superclass and adds one.
public final class InheritingPolicy: BasePolicy {
    public override func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {}
}

public class BasePolicy: EntityMigrationPolicy {
    public override func createRelationships(
        forDestination destination: DestinationObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {}
}
SWIFT
cat > "$out/Sources/show-hooks/main.swift" <<'SWIFT'
import Correct
import Molt

for registration in CompiledPolicies.registrations {
    print("\(registration.type.policyName): \(registration.hooks)")
}
SWIFT
cat > "$out/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PolicyHookCheck",
    dependencies: [.package(name: "Molt", path: "$root")],
    targets: [
$targets        .target(name: "Correct", dependencies: [.product(name: "Molt", package: "Molt")], plugins: [.plugin(name: "PolicyListPlugin", package: "Molt")]),
        .executableTarget(name: "show-hooks", dependencies: ["Correct", .product(name: "Molt", package: "Molt")]),
    ]
)
SWIFT

failed=0
swift build --package-path "$out" --scratch-path "$scratch" --product show-hooks > "$out/correct.log" 2>&1 || {
  cat "$out/correct.log"
  echo "policy hook check: the correct policy did not build" >&2
  exit 1
}
listed="$("$scratch/debug/show-hooks")"
expected="BasePolicy: createRelationships
CorrectPolicy: createDestinationInstances, createRelationships, end
InheritingPolicy: begin, createRelationships"
if [ "$listed" != "$expected" ]; then
  printf 'policy hook check: the plugin listed\n%s\ninstead of\n%s\n' "$listed" "$expected" >&2
  failed=1
else
  echo "caught: nothing, as it should (the correct policies build; hooks listed: $(echo "$listed" | tr '\n' ';'))"
fi

for entry in "${cases[@]}"; do
  name="${entry%%|*}"
  expected="${entry##*|}"
  if swift build --package-path "$out" --scratch-path "$scratch" --target "$name" > "$out/$name.log" 2>&1; then
    echo "NOT CAUGHT: $name built, though its policy has a hook written wrong" >&2
    failed=1
  elif grep -qF -- "$expected" "$out/$name.log"; then
    echo "caught: $name ($expected)"
  else
    echo "NOT CAUGHT as expected: $name failed to build, but without \"$expected\":" >&2
    grep -i "error" "$out/$name.log" | head -5 >&2
    failed=1
  fi
done

if [ "$failed" -ne 0 ]; then
  echo "policy hook check: FAILED" >&2
  exit 1
fi
echo "policy hook check: every hook written wrong was refused"
