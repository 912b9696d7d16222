import ArgumentParser
import Foundation
import Molt

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

            Several files are checked as the passes of one step (molt migrate --mapping A \
            --mapping B): each on its own, except that an entity one pass does not read is not \
            reported as discarded when another pass reads it.
            """)

    @Argument(
        help:
            "The mapping file (.xml), or an Xcode mapping model (.xcmappingmodel); several for the passes of one step."
    )
    var mappings: [String]

    @OptionGroup var models: ModelPairOptions

    @Flag(help: "Do not print warnings.")
    var quiet = false

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print the result as JSON on standard output (errors too, with their code).")
    var json = false

    func run() throws {
        _ = global.bootstrap()
        var failed = false
        try global.run(json: json) {
            var all: [Diagnostic] = []
            let read = try mappings.map { mapping in
                try MappingFile.readReportingAll(contentsOf: URL(fileURLWithPath: mapping), displayName: mapping)
            }
            // What any pass reads is not discarded by the step.
            let readByAPass = Set(
                read.compactMap(\.0).flatMap(\.entityMappings).filter {
                    $0.kind == .copy || $0.kind == .transform || $0.kind == .custom
                }.compactMap(\.sourceEntityName))
            for (mapping, (model, readProblems)) in zip(mappings, read) {
                var diagnostics = readProblems
                if let model {
                    let (source, destination) = try models.models(for: model, file: mapping)
                    diagnostics += MappingChecker(knownPolicies: Set(PolicyRegistry.names)).check(
                        model, source: source, destination: destination)
                }
                if mappings.count > 1 {
                    diagnostics.removeAll { diagnostic in
                        diagnostic.message.hasPrefix("no entity mapping reads")
                            && diagnostic.entity.map(readByAPass.contains) == true
                    }
                }
                if json {
                    all += diagnostics
                } else if Output.diagnostics(diagnostics, quiet: quiet, checked: mapping) {
                    failed = true
                }
            }
            if json {
                let report = CheckJSON(checked: mappings, diagnostics: all)
                try Output.json(report)
                failed = !report.passed
            }
        }
        if failed { throw ExitCode(ExitCodes.checkFailed) }
    }
}
