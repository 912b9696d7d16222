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

            CloudKit: a version marked "Used with CloudKit" in Xcode (the model, or a \
            configuration), every version with --cloudkit, and every version after \
            --production-version is checked against CloudKit's rules: no uniqueness \
            constraints, no Undefined or ObjectID attributes, every attribute optional or with a \
            default value, every relationship optional, with an inverse, not ordered and not \
            Deny, and no relationship from a configuration used with CloudKit to an entity \
            outside it.

            --production-version V names the version whose schema is deployed to CloudKit's \
            Production environment, where record types and fields can only be added: every \
            later version (versions in the bundle's order, names with numbers read as numbers: \
            Model, Model 2, …, Model 10) must only add entities and properties. Removing or \
            renaming an entity or property (a renaming identifier too), changing an \
            attribute's type or optionality, or a relationship's destination, to-many-ness, \
            inverse, order, counts or optionality, is an error naming both versions and what an \
            older app version would see. Move V forward each time a version's schema is \
            deployed to Production.
            """)

    @Argument(help: "The model: .xcdatamodeld bundle, .xcdatamodel version or contents file.")
    var model: String

    @Flag(help: "Check CloudKit's rules in every version, marked \"Used with CloudKit\" or not.")
    var cloudkit = false

    @Option(
        name: .customLong("production-version"),
        help: ArgumentHelp(
            "The version of the bundle whose schema is in CloudKit's Production environment: later versions may only add to it.",
            valueName: "version"))
    var productionVersion: String?

    @Flag(help: "Do not print warnings.")
    var quiet = false

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print the result as JSON on standard output (errors too, with their code).")
    var json = false

    func run() throws {
        _ = global.bootstrap()
        var failed = false
        try global.run(json: json) {
            let source = try ModelArguments.source(model)
            let models = try source.candidateModels()
            let check = try ModelCheckRun(
                models: models, source: source, path: model, cloudKit: cloudkit, productionVersion: productionVersion)
            if json {
                let report = CheckJSON(checked: [model], diagnostics: check.diagnostics, cloudKit: check.cloudKitJSON)
                try Output.json(report)
                failed = !report.passed
            } else {
                failed = Output.diagnostics(check.diagnostics, quiet: quiet, checked: check.summary)
            }
        }
        if failed { throw ExitCode(ExitCodes.checkFailed) }
    }
}
