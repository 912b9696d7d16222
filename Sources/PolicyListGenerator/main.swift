// Writes `CompiledPolicies` for the PolicyList plugin: every subclass of EntityMigrationPolicy
// in the given Swift files, with the hooks its code overrides, and every type that conforms to
// AttributeValueTransformer. Any target that uses the plugin gets the enum.
//
// A policy method that looks like a hook but does not override one (a misspelling without
// `override`, or an old spelling) would never be called: it is reported as a build error, with
// its file and line, and nothing is written.
//
// Usage: PolicyListGenerator OUTPUT.swift INPUT.swift…
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: PolicyListGenerator OUTPUT.swift INPUT.swift…\n".utf8))
    exit(64)
}

var declarations: [TypeDeclaration] = []
for path in arguments.dropFirst() {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
    declarations += TypeDeclaration.all(in: SwiftSource(path: path, text: text))
}
let catalog = PolicyCatalog(declarations)
if !catalog.problems.isEmpty {
    for problem in catalog.problems { FileHandle.standardError.write(Data("\(problem)\n".utf8)) }
    exit(1)
}
let text = GeneratedList(catalog).text
// Rewrite only when the list changed, so an unchanged list does not rebuild the target.
if (try? String(contentsOfFile: output, encoding: .utf8)) != text {
    try text.write(toFile: output, atomically: true, encoding: .utf8)
}
