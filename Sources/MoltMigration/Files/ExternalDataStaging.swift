import Foundation
import Logging
import MoltCore
import MoltStore

/// The support folder a heavyweight migration builds for the new store when either model has
/// attributes with external storage (`.Store_SUPPORT.molt-new`), swapped in with the store
/// (``StoreSwap``).
///
/// It starts as the old folder without its `_EXTERNAL_DATA` (anything else Core Data or the
/// app keeps there is linked as it is); the new store's writer then fills `_EXTERNAL_DATA`
/// with the files its rows refer to: links to the old store's files for values carried
/// unchanged, new files for new values. Files the old store referred to that the new one does
/// not (values a mapping dropped or changed) are left behind with the old folder, which the
/// swap removes (a `--backup` keeps them).
enum ExternalDataStaging {
    /// Makes an empty staging folder at `staging` and returns the external-data folder the
    /// new store writes to.
    static func prepare(_ staging: String, from support: String, logger: Logger) throws -> ExternalDataFolder {
        try FileOperations.removeTree(staging)
        let manager = FileManager.default
        do {
            try manager.createDirectory(atPath: staging, withIntermediateDirectories: false)
            if FileOperations.exists(support) {
                for name in try manager.contentsOfDirectory(atPath: support) where name != "_EXTERNAL_DATA" {
                    var isFolder: ObjCBool = false
                    _ = manager.fileExists(atPath: support + "/" + name, isDirectory: &isFolder)
                    if isFolder.boolValue {
                        try FileOperations.linkOrCopyTree(support + "/" + name, to: staging + "/" + name)
                    } else {
                        try FileOperations.linkOrCopy(support + "/" + name, to: staging + "/" + name)
                    }
                }
            }
        } catch let error as MoltError {
            throw error
        } catch {
            throw MoltError(
                .fileWriteUnknown, "cannot prepare the new store's support folder: \(error.localizedDescription)",
                location: SourceLocation(file: staging))
        }
        logger.debug("new support folder", metadata: ["molt.folder": "\(staging)"])
        return ExternalDataFolder(supportFolder: URL(fileURLWithPath: staging, isDirectory: true))
    }

    /// Makes the staging folder durable, or removes it when it holds nothing and the old store
    /// had no support folder (no swap of folders is needed then). Returns how many files the
    /// new `_EXTERNAL_DATA` holds.
    static func finish(_ staging: String, from support: String) throws -> Int {
        let manager = FileManager.default
        let entries = (try? manager.contentsOfDirectory(atPath: staging)) ?? []
        let files = (try? manager.contentsOfDirectory(atPath: staging + "/_EXTERNAL_DATA"))?.count ?? 0
        if entries.isEmpty && !FileOperations.exists(support) {
            try FileOperations.removeTree(staging)
            return 0
        }
        try FileSync.sync(path: staging)
        try FileOperations.syncFolder(of: staging)
        return files
    }
}
