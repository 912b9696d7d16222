import ArgumentParser
import Foundation
import Molt

struct CheckModel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-model",
        abstract: "Check a model for errors (and warnings), listing every problem with file and line.",
        discussion: """
            Checks every version of a .xcdatamodeld bundle. Errors: duplicate names, unknown or \
            cyclic parent entities, relationships to unknown entities, missing or mismatched \
            inverses, bad counts, unstorable attributes, constraints and indexes naming unknown \
            properties. Warnings: relationships without an inverse, default values that do not \
            read as their type. Exits with 1 when there are errors; warnings do not fail.
            """)

    @Argument(help: "The model: .xcdatamodeld bundle, .xcdatamodel version or contents file.")
    var model: String

    @Flag(help: "Do not print warnings.")
    var quiet = false

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print the result as JSON on standard output (errors too, with their code).")
    var json = false

    func run() throws {
        _ = global.bootstrap()
        var failed = false
        try global.run(json: json) {
            let models = try ModelArguments.allModels(model)
            let diagnostics = models.flatMap { ModelChecker().check($0) }
            let versions = models.count == 1 ? "1 model" : "\(models.count) model versions"
            if json {
                let report = CheckJSON(checked: [model], diagnostics: diagnostics)
                try Output.json(report)
                failed = !report.passed
            } else {
                failed = Output.diagnostics(diagnostics, quiet: quiet, checked: versions)
            }
        }
        if failed { throw ExitCode(ExitCodes.checkFailed) }
    }
}
