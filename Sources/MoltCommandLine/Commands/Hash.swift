import ArgumentParser
import Foundation
import Molt

struct Hash: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a model's entity version hashes (hex), as Core Data records them in stores.",
        discussion: "For a .xcdatamodeld bundle, the current version's hashes, or every version's with --all-versions.")

    @Argument(help: "The model: .xcdatamodeld bundle, .xcdatamodel version or contents file.")
    var model: String

    @Option(name: .customLong("model-version"), help: "The version of a bundle to hash instead of its current one.")
    var modelVersion: String?

    @Flag(name: .customLong("all-versions"), help: "Hash every version of a bundle.")
    var allVersions = false

    @Flag(help: "Print JSON: the model and its versions, each with entity → hash and the version's digest.")
    var json = false

    @OptionGroup var global: GlobalOptions

    struct VersionHashes: Encodable {
        var version: String
        var entities: [String: String]
        var digest: String
    }

    /// `hash --json`: one object, as every command prints, so that keys can be added later
    /// without breaking a reader (an array could not grow one).
    struct HashJSON: Encodable {
        /// The model as given.
        var model: String
        /// Each version hashed: the one asked for (or the current one), or every version with
        /// --all-versions.
        var versions: [VersionHashes]
    }

    func run() throws {
        _ = global.bootstrap()
        try global.run(json: json) {
            let models =
                allVersions
                ? try ModelArguments.allModels(model) : [try ModelArguments.model(model, version: modelVersion)]
            let results = try models.map { model in
                let hashes = try model.entityVersionHashes()
                return VersionHashes(
                    version: model.name ?? "(model)", entities: hashes.mapValues(\.hexString),
                    digest: VersionHasher.digest(of: hashes))
            }
            if json {
                try Output.json(HashJSON(model: model, versions: results))
                return
            }
            for (offset, result) in results.enumerated() {
                if models.count > 1 {
                    if offset > 0 { Output.line() }
                    Output.line("\(result.version):")
                }
                let rows = result.entities.keys.sorted(by: NameOrder.precedes).map { [$0, result.entities[$0]!] }
                Output.table(rows, indent: models.count > 1 ? "  " : "").forEach { Output.line($0) }
            }
        }
    }
}
