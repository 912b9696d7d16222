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

            Exit codes:
              0   success
              1   the check found errors (check-model, check-mapping)
              3   the store does not match the model (Core Data error 134100/134130), a step of an
                  upgrade has no mapping (134140), or the store is newer than the destination (134530)
              4   the mapping cannot be inferred (infer; migrate without --mapping: 134190)
              64  bad command-line usage
              65  bad input data: malformed XML or JSON, an invalid model, a file that is not a store
              66  an input file does not exist
              70  internal error
              73  the output file already exists
              74  I/O or SQLite error (disk full, locked store, damaged file), or a store file with
                  several names (hard links) that a migration would replace
              75  another migration of the store is running (134090): run again, or use --wait
              77  permission denied
              130 cancelled by Ctrl-C (143 SIGTERM, 129 SIGHUP); the store is unchanged
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
