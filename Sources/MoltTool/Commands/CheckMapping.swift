import ArgumentParser
import Foundation
import Molt
import MoltPolicies

struct CheckMapping: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-mapping",
        abstract: "Check a mapping file against its source and destination models, listing every problem.",
        discussion: """
            The file is validated against Molt's schema (MappingModels/mapping.xsd), its \
            expressions and filters are parsed, and every entity mapping is checked against the \
            models: entities, properties, value kinds, relationships, variables, policies. Each \
            problem is printed as FILE:LINE:COLUMN: error|warning: Mapping.property: message. \
            Exits with 1 when there are errors; warnings do not fail.

            With a .xcdatamodeld bundle, the version is --from-version/--to-version, else the \
            version the mapping file names (source-model/destination-model), else (for --to) the \
            bundle's current version.
            """)

    @Argument(help: "The mapping file (.xml).")
    var mapping: String

    @Option(help: "The source model: .xcdatamodeld bundle, .xcdatamodel version or contents file.")
    var from: String

    @Option(help: "The destination model: .xcdatamodeld bundle, .xcdatamodel version or contents file.")
    var to: String

    @Option(name: .customLong("from-version"), help: "The source version of a bundle.")
    var fromVersion: String?

    @Option(name: .customLong("to-version"), help: "The destination version of a bundle.")
    var toVersion: String?

    @Flag(help: "Do not print warnings.")
    var quiet = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        _ = global.bootstrap()
        var failed = false
        try global.run {
            let (model, readProblems) = try MappingReader().readReportingAll(
                contentsOf: URL(fileURLWithPath: mapping), displayName: mapping)
            var diagnostics = readProblems
            if let model {
                let source = try Self.model(
                    from, version: fromVersion ?? model.sourceModelName, side: "source", useCurrent: false)
                let destination = try Self.model(
                    to, version: toVersion ?? model.destinationModelName, side: "destination", useCurrent: true)
                diagnostics += MappingChecker(knownPolicies: Set(CompiledPolicies.names)).check(
                    model, source: source, destination: destination)
            }
            let shown = diagnostics.filter { !quiet || $0.severity == .error }
            for diagnostic in shown {
                Output.line(diagnostic.description)
            }
            let errors = diagnostics.errors.count
            let warnings = diagnostics.warnings.count
            Output.line(
                "Checked \(mapping): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
            )
            failed = errors > 0
        }
        if failed { throw ExitCode(ExitCodes.checkFailed) }
    }

    /// A model from a path; for a bundle, the named version (the mapping's, or the option's),
    /// else for the destination the current version.
    static func model(_ path: String, version: String?, side: String, useCurrent: Bool) throws -> ObjectModel {
        switch try ModelArguments.source(path) {
        case .model(let model):
            return model
        case .bundle(let bundle):
            if let version, bundle.version(named: version) != nil {
                return try bundle.model(named: version)
            }
            if let version {
                throw MoltError(
                    .fileReadNoSuchFile, "the bundle has no version \"\(version)\" for the \(side) model",
                    location: SourceLocation(file: path),
                    recovery:
                        "Versions: \(bundle.versions.map(\.name).joined(separator: ", ")). Name one with --\(side == "source" ? "from" : "to")-version."
                )
            }
            if useCurrent { return try bundle.currentModel() }
            throw MoltError(
                .fileReadNoSuchFile, "the mapping file names no source model version, and the bundle has several",
                location: SourceLocation(file: path), recovery: "Name the version with --from-version.")
        }
    }
}
