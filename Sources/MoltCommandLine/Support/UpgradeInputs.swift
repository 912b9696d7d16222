import Foundation
import Logging
import Molt

/// What `upgrade` and `verify` read before they run: the model versions, the mapping files of
/// a folder, and the version order (`versions.txt` in that folder, or `--order-by-name`).
struct UpgradeInputs {
    let versions: UpgradeVersions
    let mappingFiles: [UpgradeMappingFile]
    let order: VersionOrder

    init(models: String, mappings: String, orderByName: Bool, logger: Logger) throws {
        let folder = URL(fileURLWithPath: mappings)
        let orderFile = folder.appendingPathComponent(VersionOrder.fileName)
        let hasOrderFile = FileManager.default.fileExists(atPath: orderFile.path)
        if hasOrderFile {
            order = try VersionOrder.read(contentsOf: orderFile)
            if orderByName { Output.note("\(orderFile.path) gives the version order; --order-by-name is ignored") }
        } else {
            order = orderByName ? .byName : .automatic
        }
        versions = try UpgradeVersions(contentsOf: URL(fileURLWithPath: models))
        var files = try UpgradeMappingFile.readFolder(folder, logger: logger)
        if hasOrderFile {
            files = try PassOrder.apply(try PassOrder.read(contentsOf: orderFile), to: files)
        }
        mappingFiles = files
    }
}
