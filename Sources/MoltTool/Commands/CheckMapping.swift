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

    @Argument(help: "The mapping file (.xml), or an Xcode mapping model (.xcmappingmodel).")
    var mapping: String

    @OptionGroup var models: ModelPairOptions

    @Flag(help: "Do not print warnings.")
    var quiet = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        _ = global.bootstrap()
        var failed = false
        try global.run {
            let (model, readProblems) = try MappingFile.readReportingAll(
                contentsOf: URL(fileURLWithPath: mapping), displayName: mapping)
            var diagnostics = readProblems
            if let model {
                let (source, destination) = try models.models(for: model)
                diagnostics += MappingChecker(knownPolicies: Set(CompiledPolicies.names)).check(
                    model, source: source, destination: destination)
            }
            failed = Output.diagnostics(diagnostics, quiet: quiet, checked: mapping)
        }
        if failed { throw ExitCode(ExitCodes.checkFailed) }
    }
}
