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

    /// A mix-up a new user makes, as a usage error before anything is read: one mapping file
    /// where a folder of them is expected.
    func validate() throws {
        var isFolder: ObjCBool = false
        let mappingsExist = FileManager.default.fileExists(atPath: mappings, isDirectory: &isFolder)
        let mappingsName = URL(fileURLWithPath: mappings).lastPathComponent
        if mappingsExist, !isFolder.boolValue || mappingsName.lowercased().hasSuffix(".xcmappingmodel") {
            throw ValidationError(
                "--mappings takes the folder of an app's mapping files (and its versions.txt); \(mappings) is one mapping file. To migrate one step with one mapping file, use `molt migrate STORE --from MODEL --to MODEL --mapping \(mappings)`."
            )
        }
    }

    /// One `.xcdatamodel` version where every version is expected: a usage error, unless one
    /// version is all the run needs (an upgrade from the store's embedded model).
    func requireEveryVersion() throws {
        let modelsURL = URL(fileURLWithPath: models)
        guard modelsURL.pathExtension.lowercased() == "xcdatamodel" else { return }
        throw ValidationError(
            "--models takes every version the store may be at: a .xcdatamodeld bundle or a folder of .xcdatamodel versions; \(models) is one version. Give the bundle it is in (\(modelsURL.deletingLastPathComponent().path))."
        )
    }

    /// The versions, mapping files and order, read.
    func read(logger: Logger) throws -> UpgradeInputs {
        try UpgradeInputs(
            models: URL(fileURLWithPath: models), mappings: URL(fileURLWithPath: mappings), orderByName: orderByName,
            logger: logger)
    }
}
