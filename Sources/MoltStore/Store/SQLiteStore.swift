public import Foundation
public import Logging
internal import MoltCore
public import MoltModel
public import MoltSQLite

/// A Core Data SQLite store file, opened without a model: its metadata, its entity table
/// (`Z_PRIMARYKEY`), row counts, journal mode and companion files. Bind it to a model with
/// ``ObjectStore`` to read and write objects.
///
/// Opening checks, in order, that the file exists, starts with SQLite's header, opens as a
/// database, has Core Data's `Z_METADATA` and `Z_PRIMARYKEY` tables, and holds readable
/// metadata; each failure is a ``/MoltCore/MoltError`` that names the file. A read-only store is never
/// written (except that a rollback journal left by a crash is rolled back first, as SQLite
/// requires before anyone reads; see ``rollBackInterruptedWrite(at:logger:)``); rows that only
/// live in its `-wal` file are read.
///
/// ```swift
/// let store = try SQLiteStore(at: url)                  // read-only
/// print(store.metadata.entityVersionHashes.keys)
/// print(store.compatibility(with: model))             // compatible / incompatible: …
/// ```
public final class SQLiteStore {
    /// One row of `Z_PRIMARYKEY`.
    public struct EntityRecord: Sendable, Hashable {
        public var number: Int
        public var name: String
        public var superNumber: Int
        /// The last primary key handed out (kept on hierarchy roots).
        public var maximumKey: Int64
    }

    public let url: URL
    public let isReadOnly: Bool
    public let connection: SQLiteConnection
    /// The companion files as they were before this store was opened (a connection reading a
    /// WAL store makes its `-wal` and `-shm` while open, and removes them when it closes).
    public let companionsBeforeOpening: CompanionFiles
    public private(set) var metadata: StoreMetadata
    /// The rows of `Z_PRIMARYKEY`, by entity number.
    public let entityRecords: [EntityRecord]

    var path: String { url.path }

    // MARK: Opening

    /// Opens the store at `url`, read-only unless `readOnly` is false.
    ///
    /// A read-only store is read through SQLite's locks, so it never shows what another
    /// connection has not committed (see `readMode(of:)`). With `snapshot`, everything read
    /// through this store (its metadata, its objects) comes from one read transaction, begun
    /// before the first read and held until the connection closes: one consistent version of
    /// the store, even while another process commits.
    ///
    /// `unchanging` says the caller knows nobody changes the file while it is open (a fixture
    /// shipped with a package, say): it is then read as immutable, without locks, and nothing
    /// is created beside it even by a connection that is never closed.
    public init(
        at url: URL, readOnly: Bool = true, snapshot: Bool = false, unchanging: Bool = false, logger: Logger? = nil
    ) throws {
        self.url = url
        self.isReadOnly = readOnly
        let path = url.path
        try Self.checkIsSQLiteFile(at: url)
        // A log from another store is refused before SQLite sees it (``StoreLog``).
        if !(unchanging && CompanionFiles(of: url).all.isEmpty) { try StoreLog.requireOwn(url) }
        if readOnly, !unchanging, CompanionFiles(of: url).journal != nil {
            Self.rollBackInterruptedWrite(at: url, logger: logger)
        }
        companionsBeforeOpening = CompanionFiles(of: url)
        let mode: SQLiteConnection.OpenMode =
            readOnly
            ? (unchanging && CompanionFiles(of: url).all.isEmpty ? .immutable : Self.readMode(of: url)) : .readWrite
        let connection = try StoreErrors.sqlite(path, "opening the store") {
            let connection = try SQLiteConnection(path: path, mode: mode, logger: logger)
            // A read-only store opened read-write (to tidy what it creates) never writes.
            if readOnly, mode == .readWrite { try connection.execute("PRAGMA query_only = ON") }
            if readOnly, snapshot, mode != .immutable { try connection.execute("BEGIN") }
            return connection
        }
        self.connection = connection
        let tables = try StoreErrors.sqlite(path, "reading the schema") {
            Set(
                try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap {
                    $0[0].textValue
                })
        }
        for required in ["Z_METADATA", "Z_PRIMARYKEY"] where !tables.contains(required) {
            throw MoltError(
                .persistentStoreInvalidType,
                "the file is an SQLite database but not a Core Data store: it has no \(required) table",
                location: SourceLocation(file: path), recovery: "Check that this is the app's store file.")
        }
        metadata = try Self.readMetadata(connection, path: path)
        entityRecords = try StoreErrors.sqlite(path, "reading Z_PRIMARYKEY") {
            try connection.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { row in
                EntityRecord(
                    number: Int(row[0].integerValue ?? 0), name: row[1].textValue ?? "",
                    superNumber: Int(row[2].integerValue ?? 0), maximumKey: row[3].integerValue ?? 0)
            }
        }
        connection.logger.debug(
            "opened store",
            metadata: [
                "molt.store": "\(path)", "molt.mode": "\(mode)", "molt.entities": "\(entityRecords.count)",
                "molt.uuid": "\(metadata.storeUUID)",
            ])
    }

    /// How a read-only store is opened so that it is read through SQLite's locks (never a page
    /// another connection is changing), leaves no file behind that was not there, and writes
    /// nothing:
    ///
    /// - a store in rollback-journal mode: read-only (SQLite's shared lock; nothing is created);
    /// - a store in WAL mode with its `-wal` or `-shm` present: read-only, through them (rows
    ///   that live only in the log included);
    /// - a store in WAL mode without them: read-write with `query_only` on. SQLite needs the
    ///   two files to read a WAL store; opened this way it removes the ones it made when the
    ///   last connection closes (a read-only connection would leave them), and the store's
    ///   content is not changed;
    /// - a store this process may not write, or in a folder it may not write, which it could
    ///   not tidy after: immutable (no lock; its owner alone can change it).
    static func readMode(of url: URL) -> SQLiteConnection.OpenMode {
        let companions = CompanionFiles(of: url)
        guard Self.headerSaysWAL(url) else { return .readOnly }
        if companions.wal != nil || companions.sharedMemory != nil { return .readOnly }
        let folder = url.deletingLastPathComponent().path
        guard access(url.path, W_OK) == 0, access(folder, W_OK) == 0 else { return .immutable }
        return .readWrite
    }

    /// The journal mode the file's header records: "wal" when bytes 18 and 19 are 2 (WAL
    /// mode), otherwise "delete" (a rollback journal). Read without opening the database.
    public static func journalMode(ofFile url: URL) -> String {
        headerSaysWAL(url) ? "wal" : "delete"
    }

    /// Whether the file's header says WAL mode (bytes 18 and 19 are 2).
    static func headerSaysWAL(_ url: URL) -> Bool {
        guard let header = try? DatabaseFileAccess.read(url.path, count: 20) else { return false }
        return header.count == 20 && header[18] == 2 && header[19] == 2
    }

    /// Rolls back what a rollback journal (`Store.sqlite-journal`) left by a crash holds, by
    /// opening the store read-write once and reading it: SQLite rolls back such a "hot"
    /// journal before anyone may read, and a read-only connection cannot (it fails with
    /// "attempt to write a readonly database"). A journal of a transaction that another process
    /// is running is left alone (SQLite sees its lock). Failures are ignored: the read that
    /// follows reports them.
    public static func rollBackInterruptedWrite(at url: URL, logger: Logger? = nil) {
        guard FileManager.default.fileExists(atPath: url.path + "-journal"),
            let connection = try? SQLiteConnection(path: url.path, mode: .readWrite, busyTimeout: 2000, logger: logger)
        else { return }
        defer { connection.close() }
        if (try? connection.scalar("SELECT count(*) FROM sqlite_master")) != nil,
            !FileManager.default.fileExists(atPath: url.path + "-journal")
        {
            connection.logger.notice(
                "rolled back the journal of an interrupted write", metadata: ["molt.store": "\(url.path)"])
        }
    }

    /// SQLite's files start with these 16 bytes; checking them first gives a clear error for
    /// a file that is not a database at all.
    /// (Read through ``DatabaseFileAccess``: this process may hold SQLite's locks on the file.)
    static func checkIsSQLiteFile(at url: URL) throws {
        // A folder is not a store, whichever command is given one (the same error and exit
        // code as `migrate` gives).
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            throw MoltError(
                .persistentStoreInvalidType, "the store's path is not a file (it is a folder)",
                location: SourceLocation(file: url.path),
                recovery: "Give the store file inside it (often *.sqlite or default.store).")
        }
        let header: Data
        do {
            header = Data(try DatabaseFileAccess.read(url.path, count: 16))
        } catch {
            throw FileErrors.readFailed(url.path, underlying: error)
        }
        guard header.isEmpty || header == Data("SQLite format 3\0".utf8) else {
            throw MoltError(
                .persistentStoreInvalidType,
                "the file is not an SQLite database (it does not start with SQLite's header)",
                location: SourceLocation(file: url.path),
                recovery: "Check that this is the store file (often *.sqlite).")
        }
        if header.isEmpty {
            throw MoltError(
                .persistentStoreInvalidType, "the file is empty, not a store", location: SourceLocation(file: url.path))
        }
    }

    static func readMetadata(_ connection: SQLiteConnection, path: String) throws -> StoreMetadata {
        let rows = try StoreErrors.sqlite(path, "reading Z_METADATA") {
            try connection.rows("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
        }
        guard let row = rows.first else {
            throw MoltError(
                .persistentStoreInvalidType, "the store's Z_METADATA table is empty",
                location: SourceLocation(file: path))
        }
        guard case .blob(let plistData) = row[1] else {
            throw MoltError(
                .persistentStoreInvalidType, "the store's Z_METADATA.Z_PLIST is not a binary property list",
                location: SourceLocation(file: path))
        }
        do {
            let plist = try BinaryPropertyListReader().read(plistData, name: "Z_METADATA.Z_PLIST")
            return try StoreMetadata(propertyList: plist, storeUUID: row[0].textValue ?? "")
        } catch let error as MoltError {
            throw error.located(SourceLocation(file: path))
        }
    }

    // MARK: Comparing with models

    /// Whether the store's hashes equal `model`'s.
    public func compatibility(with model: ObjectModel) throws -> StoreCompatibility {
        StoreCompatibility(storeHashes: metadata.entityVersionHashes, modelHashes: try model.entityVersionHashes())
    }

    /// The first of `models` whose hashes equal the store's.
    public func firstCompatibleModel(in models: [ObjectModel]) throws -> ObjectModel? {
        try models.first { try compatibility(with: $0).isCompatible }
    }

    /// The model the store was made with: `source` itself, or the version of a bundle whose
    /// hashes match. Throws 134100 (naming what differs from the closest candidate) otherwise.
    public func matchingModel(from source: ModelSource) throws -> ObjectModel {
        let candidates = try source.candidateModels()
        if let match = try firstCompatibleModel(in: candidates) { return match }
        // Report the difference from the candidate that differs least (a bundle's current
        // version on ties), so the message points at the likely culprit.
        var best: (model: ObjectModel, distance: Int, compatibility: StoreCompatibility)?
        for candidate in candidates {
            let compatibility = try compatibility(with: candidate)
            guard case .incompatible(let a, let b, let c) = compatibility else { continue }
            let distance = a.count + b.count + c.count
            if best == nil || distance < best!.distance { best = (candidate, distance, compatibility) }
        }
        guard let best, var error = best.compatibility.error(store: path, model: best.model.name) else {
            throw MoltError(
                .incompatibleVersionHash, "no model to compare the store with", location: SourceLocation(file: path))
        }
        if candidates.count > 1 {
            error.message =
                "no version of the bundle matches the store; closest is \"\(best.model.name ?? "?")\": \(best.compatibility)"
            error.code = .missingSourceModel
            error.details = try candidates.map { "\($0.name ?? "?"): \(try compatibility(with: $0))" }
        }
        throw error
    }

    // MARK: Facts about the file

    /// The entity record called `name`.
    public func entityRecord(named name: String) -> EntityRecord? {
        entityRecords.first { $0.name == name }
    }

    /// Object counts per entity, read with Core Data's table naming and no model: each
    /// entity's rows are those of its hierarchy root's table with its `Z_ENT`; Core Data's own
    /// entities (persistent history's, CloudKit's: numbered above 16000) have a table each,
    /// named `A` and the entity name.
    public func objectCounts() throws -> [(entity: String, count: Int)] {
        let byNumber = Dictionary(entityRecords.map { ($0.number, $0) }, uniquingKeysWith: { a, _ in a })
        func root(of record: EntityRecord) -> EntityRecord {
            var current = record
            var steps = 0
            while current.superNumber != 0, let parent = byNumber[current.superNumber], steps < entityRecords.count {
                current = parent
                steps += 1
            }
            return current
        }
        let tables = try StoreErrors.sqlite(path, "reading the schema") {
            Set(
                try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap {
                    $0[0].textValue
                })
        }
        var counts: [Int: Int] = [:]
        for record in entityRecords where record.number > PersistentHistory.privateEntityFloor {
            let table = PersistentHistory.table(ofPrivateEntity: record.name)
            guard tables.contains(table) else { continue }
            counts[record.number] = try StoreErrors.sqlite(path, "counting rows of \(table)") {
                Int(try connection.scalar("SELECT count(*) FROM \(SQL.identifier(table))")?.integerValue ?? 0)
            }
        }
        let rootTables = Set(
            entityRecords.filter { $0.number <= PersistentHistory.privateEntityFloor }.map {
                "Z" + root(of: $0).name.uppercased()
            })
        for table in rootTables.sorted() where tables.contains(table) {
            let rows = try StoreErrors.sqlite(path, "counting rows of \(table)") {
                try connection.rows("SELECT Z_ENT, count(*) FROM \(SQL.identifier(table)) GROUP BY Z_ENT")
            }
            for row in rows {
                counts[Int(row[0].integerValue ?? 0), default: 0] += Int(row[1].integerValue ?? 0)
            }
        }
        return entityRecords.map { ($0.name, counts[$0.number] ?? 0) }
    }

    /// The file's journal mode: `wal`, or `rollback` (delete, truncate or persist, which are
    /// per-connection settings and not recorded). Read from the database header (bytes 18 and
    /// 19 are 2 in WAL mode), which is what the file says whoever opens it.
    public func journalMode() throws -> String {
        let header: [UInt8]
        do {
            header = try DatabaseFileAccess.read(path, count: 20)
        } catch {
            throw FileErrors.readFailed(path, underlying: error)
        }
        guard header.count == 20 else { return "unknown" }
        return header[18] == 2 && header[19] == 2 ? "wal" : "rollback"
    }

    /// Page size, page count and auto-vacuum mode (0 none, 1 full, 2 incremental).
    public func fileFacts() throws -> (pageSize: Int, pageCount: Int, autoVacuum: Int) {
        try StoreErrors.sqlite(path, "reading file settings") {
            (
                Int(try connection.scalar("PRAGMA page_size")?.integerValue ?? 0),
                Int(try connection.scalar("PRAGMA page_count")?.integerValue ?? 0),
                Int(try connection.scalar("PRAGMA auto_vacuum")?.integerValue ?? 0)
            )
        }
    }

    /// The store's `-wal`, `-shm` and external-data companions.
    public var companionFiles: CompanionFiles { CompanionFiles(of: url) }

    /// Whether the store carries an embedded model (`Z_MODELCACHE` with content).
    public func hasModelCache() throws -> Bool {
        let exists = try StoreErrors.sqlite(path, "reading the schema") {
            try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_MODELCACHE'")?
                .integerValue ?? 0
        }
        guard exists > 0 else { return false }
        return try StoreErrors.sqlite(path, "reading Z_MODELCACHE") {
            (try connection.scalar("SELECT count(*) FROM Z_MODELCACHE WHERE length(Z_CONTENT) > 0")?.integerValue ?? 0)
                > 0
        }
    }

    // MARK: Writing metadata

    /// Replaces the store's metadata (in its own transaction unless one is open).
    public func writeMetadata(_ newMetadata: StoreMetadata) throws {
        guard !isReadOnly else {
            throw MoltError(.persistentStoreOpen, "the store is open read-only", location: SourceLocation(file: path))
        }
        let plist = BinaryPropertyListWriter().write(newMetadata.propertyList)
        try StoreErrors.sqlite(path, "writing Z_METADATA") {
            try connection.run(
                "UPDATE Z_METADATA SET Z_UUID = ?, Z_PLIST = ? WHERE Z_VERSION = 1",
                [.text(newMetadata.storeUUID), .blob(plist)])
        }
        metadata = newMetadata
    }
}
