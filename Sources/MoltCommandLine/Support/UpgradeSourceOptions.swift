import ArgumentParser
import Foundation
import Logging
import Molt

/// What `upgrade` and `verify` upgrade with: the model versions, the mapping files, the
/// destination and how versions are ordered.
struct UpgradeSourceOptions: ParsableArguments {
    @Option(help: "The model versions: a .xcdatamodeld bundle or a folder of .xcdatamodel versions.")
    var models: String

    @Option(help: "The folder of mapping files (*.xml, *.xcmappingmodel), and optionally versions.txt.")
    var mappings: String

    @Option(help: "The destination version (default: the bundle's current version).")
    var to: String?

    @Flag(
        name: .customLong("order-by-name"),
        help: "Order versions by name, numbers read as numbers (used only when there is no versions.txt).")
    var orderByName = false

    /// The versions, mapping files and order, read.
    func read(logger: Logger) throws -> UpgradeInputs {
        try UpgradeInputs(
            models: URL(fileURLWithPath: models), mappings: URL(fileURLWithPath: mappings), orderByName: orderByName,
            logger: logger)
    }
}
