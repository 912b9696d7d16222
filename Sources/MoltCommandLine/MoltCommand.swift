import ArgumentParser
import Foundation
import Molt

/// `molt`: the command-line tool, with the policies and transformers its build registered.
struct MoltCommand: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "molt",
        abstract: "Migrate, inspect, create, dump and check Core Data SQLite stores, models and mapping files.",
        discussion: """
            Molt reads Xcode models (.xcdatamodeld bundles, .xcdatamodel versions, or their \
            contents files) and stores in Core Data's own SQLite layout.

            \(ExitCodes.helpText())
            """,
        version:
            "molt \(version) (policies compiled in: \(list(PolicyRegistry.names)); value transformers compiled in: \(list(ValueTransformerRegistry.names)))",
        subcommands: [
            Migrate.self, Upgrade.self, Verify.self, Recover.self, Infer.self, Inspect.self, Create.self, Dump.self,
            Hash.self,
            CheckModel.self, CheckMapping.self, StampMapping.self, ConvertMapping.self, ExtractModel.self,
        ]
    )

    /// `molt` alone: the help, on standard error, and the usage exit code (a script that
    /// forgot its subcommand fails instead of passing).
    func run() throws {
        FileHandle.standardError.write(Data((Self.helpMessage() + "\n").utf8))
        throw ExitCode(ExitCodes.usage)
    }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.joined(separator: ", ")
    }
}
