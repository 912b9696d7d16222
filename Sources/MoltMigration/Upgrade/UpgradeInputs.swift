public import Foundation
public import Logging
internal import MoltCore

/// What an upgrade is given, read from where a team keeps it: the model versions (a
/// `.xcdatamodeld` bundle or a folder of `.xcdatamodel` versions) and a folder of mapping files
/// with, optionally, its `versions.txt` (the version order, and `passes:` lines ordering the
/// passes of a step; see ``VersionOrder`` and `PassOrder`).
///
/// ```swift
/// let inputs = try UpgradeInputs(models: bundleURL, mappings: mappingsURL)
/// let upgrade = StoreUpgrade(store: storeURL, inputs: inputs)
/// ```
public struct UpgradeInputs: Sendable {
    public let versions: UpgradeVersions
    /// The folder's mapping files, passes of one step in the order they run.
    public let mappingFiles: [UpgradeMappingFile]
    /// The folder's files that could not be read as mappings: an error only for an upgrade
    /// that may need them (see ``UnreadableMappingFile``).
    public let unreadableMappingFiles: [UnreadableMappingFile]
    /// The folder's files `versions.txt` says never to use (`skip:` lines, `SkippedFiles`).
    public let skippedMappingFiles: [UpgradeMappingFile]
    /// The version order: `versions.txt` when the folder has one, else by name when
    /// `orderByName`, else worked out (``VersionOrder/automatic``).
    public let order: VersionOrder

    /// Reads the versions and the folder. `orderByName` applies only when the folder has no
    /// `versions.txt` (a notice is logged when both are there).
    public init(
        models: URL, mappings: URL, orderByName: Bool = false, logger: Logger = LibraryLogger.make("molt.upgrade")
    ) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: mappings.path, isDirectory: &isFolder),
            !isFolder.boolValue || mappings.pathExtension.lowercased() == "xcmappingmodel"
        {
            throw MoltError(
                .fileReadCorruptFile,
                "an upgrade takes the folder of an app's mapping files; this is one mapping file",
                location: SourceLocation(file: mappings.path),
                recovery:
                    "Give the folder it is in, or migrate one step with it (HeavyweightMigration, `molt migrate --mapping`)."
            )
        }
        let orderFile = mappings.appendingPathComponent(VersionOrder.fileName)
        let hasOrderFile = FileManager.default.fileExists(atPath: orderFile.path)
        if hasOrderFile {
            order = try VersionOrder.read(contentsOf: orderFile)
            if orderByName {
                logger.notice("\(orderFile.path) gives the version order; --order-by-name is ignored")
            }
        } else {
            order = orderByName ? .byName : .automatic
        }
        versions = try UpgradeVersions(contentsOf: models)
        var (files, unreadable) = try UpgradeMappingFile.readFolderKeepingUnreadable(mappings, logger: logger)
        unreadableMappingFiles = unreadable
        var skipped: [UpgradeMappingFile] = []
        if hasOrderFile {
            (files, skipped) = try SkippedFiles.apply(try SkippedFiles.read(contentsOf: orderFile), to: files)
            files = try PassOrder.apply(try PassOrder.read(contentsOf: orderFile), to: files)
        }
        mappingFiles = files
        skippedMappingFiles = skipped
    }
}
