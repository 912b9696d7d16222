public import Foundation
public import Logging
public import MoltCore
internal import MoltModel
internal import MoltSQLite

/// Settings for a new store.
public struct StoreCreationOptions: Sendable {
    /// The store's UUID; a new random one by default.
    public var storeUUID: String = UUID().uuidString
    /// Recorded as `NSPersistenceFrameworkVersion`. Molt writes the layout of the Core Data
    /// release that wrote the reference store it was checked against (637); an app's Core Data
    /// records its own version when it next saves.
    public var frameworkVersion: Int64 = 637
    /// Extra metadata keys (an app's own).
    public var additionalMetadata: [String: PropertyList] = [:]
    /// Also record `NSStoreModelVersionHashesDigest`, as newer Core Data releases do.
    public var includesHashesDigest: Bool = false
    /// Whether the new store uses a write-ahead log (Core Data's default) or a rollback journal.
    public var usesWriteAheadLog: Bool = true
    /// Where values of attributes with external storage go; by default the new store's own
    /// `.<Name>_SUPPORT/_EXTERNAL_DATA`.
    public var externalData: ExternalDataFolder? = nil
    public var logger: Logger? = nil
    /// Called once the objects are written, before the store is committed: throwing (a
    /// cancellation, say) stops the creation, and the temporary file is removed. Once committed,
    /// the store is moved into place. A populate closure that runs long checks its own way
    /// (``ObjectsJSONImporter/checkCancelled``).
    public var checkCancelled: (@Sendable () throws -> Void)? = nil

    public init() {}
}

extension SQLiteStore {
    /// Creates a new store at `url` for `layout`'s model, fills it with `populate`, and only
    /// then moves it into place.
    ///
    /// The store is built in a temporary file beside `url` in one transaction, switched to WAL
    /// mode, closed (so no `-wal` is left), synced, and renamed to `url`. If anything fails or
    /// ``StoreCreationOptions/checkCancelled`` throws, the temporary file and its companions are
    /// removed and nothing appears at `url`. The file is locked while this runs, so that
    /// ``CreationLeftovers`` removes it only after a process killed outright (SIGKILL). An existing file at `url` is an
    /// error (516); Molt never overwrites a store here.
    public static func create(
        at url: URL, layout: StoreLayout, options: StoreCreationOptions = StoreCreationOptions(),
        populate: (ObjectWriter) throws -> Void = { _ in }
    ) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: url.path) {
            throw MoltError(
                .fileWriteFileExists, "a file already exists here; Molt does not overwrite stores",
                location: SourceLocation(file: url.path), recovery: "Choose a new path or remove the old file first.")
        }
        let folder = url.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw MoltError(
                .fileWriteUnknown, "the folder does not exist", location: SourceLocation(file: folder.path))
        }
        let creating = try CreatingFile.make(beside: url)
        // Removed (when not moved into place) before its lock is released: see CreatingFile.
        defer {
            creating.remove()
            creating.release()
        }
        let temporary = creating.url
        let path = temporary.path
        let externalData = options.externalData ?? ExternalDataFolder(store: url)
        let mark = externalData.writtenCount
        do {
            let connection = try SQLiteConnection(path: path, mode: .create, logger: options.logger)
            try connection.execute("PRAGMA page_size = 4096; PRAGMA auto_vacuum = 2;")
            try connection.transaction(.exclusive) {
                for statement in layout.schemaStatements {
                    try connection.execute(statement)
                }
                try writeBookkeeping(connection, layout: layout, options: options)
                let writer = try ObjectWriter(
                    connection: connection, layout: layout, path: url.path, externalData: externalData)
                try populate(writer)
                try writer.finish()
                try options.checkCancelled?()
            }
            try externalData.sync()
            externalData.removeRetired()
            let wanted = options.usesWriteAheadLog ? "wal" : "delete"
            let mode = try connection.scalar("PRAGMA journal_mode = \(wanted.uppercased())")?.textValue
            guard mode?.lowercased() == wanted else {
                throw MoltError(
                    .sqlite, "SQLite did not switch the new store to journal mode \(wanted)",
                    location: SourceLocation(file: url.path)
                )
            }
        } catch {
            externalData.keepRetired()
            externalData.removeWritten(since: mark)
            throw StoreErrors.wrap(error, path: url.path, doing: "creating the store")
        }
        // The connection is closed here (released), which removed its empty -wal and -shm.
        try FileSync.sync(path: path)
        do {
            try manager.moveItem(at: temporary, to: url)
        } catch {
            throw MoltError(
                .fileWriteUnknown, "the new store could not be moved into place: \(error.localizedDescription)",
                location: SourceLocation(file: url.path))
        }
        try FileSync.sync(path: folder.path)
        options.logger?.debug(
            "created store",
            metadata: [
                "molt.store": "\(url.path)", "molt.entities": "\(layout.entities.count)",
                "molt.uuid": "\(options.storeUUID)",
            ])
    }

    private static func writeBookkeeping(
        _ connection: SQLiteConnection, layout: StoreLayout, options: StoreCreationOptions
    )
        throws
    {
        let insert = try connection.prepare(
            "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)")
        for entity in layout.entities {
            try insert.bind([.integer(Int64(entity.number)), .text(entity.name), .integer(Int64(entity.superNumber))])
            try insert.run()
        }
        let hashes = try layout.model.entityVersionHashes()
        // The model's own checksum, whatever the extra keys carried (a migration passes on the
        // old store's keys, whose checksum is the old model's).
        var additional = options.additionalMetadata
        additional[StoreMetadata.modelChecksumKey] = .string(VersionHasher.checksum(of: hashes))
        let metadata = StoreMetadata(
            storeUUID: options.storeUUID,
            entityVersionHashes: hashes,
            versionHashesVersion: 3,
            versionIdentifiers: layout.model.versionIdentifiers,
            frameworkVersion: options.frameworkVersion,
            autoVacuumLevel: "2",
            versionHashesDigest: options.includesHashesDigest ? VersionHasher.digest(of: hashes) : nil,
            additionalEntries: additional)
        try connection.run(
            "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
            [.text(metadata.storeUUID), .blob(BinaryPropertyListWriter().write(metadata.propertyList))])
    }
}
