/// Everything a store holds besides its objects' rows, each thing classed by what it is to
/// Core Data (``StoreSurvey`` reads it): the tables of the model, Core Data's own bookkeeping,
/// persistent history, CloudKit mirroring, and what neither the model nor Core Data explains.
/// A migration carries each class its own way and names in its report what it did not carry.
public struct StoreContents: Sendable, Hashable {
    /// What a table is to Core Data.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An entity table or join table of the model the store was read with.
        case model
        /// `Z_PRIMARYKEY`, `Z_METADATA`, `Z_MODELCACHE`.
        case bookkeeping
        /// Persistent history: `ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`.
        case history
        /// `NSPersistentCloudKitContainer`'s mirroring tables (`ANSCK…`).
        case cloudKit
        /// SQLite's own (`sqlite_sequence`, `sqlite_stat1`, …).
        case sqlite
        /// Neither the model's nor Core Data's: an app's or a tool's own table.
        case unknown
    }

    /// One table, its kind and its rows.
    public struct Table: Sendable, Hashable {
        public var name: String
        public var kind: Kind
        /// Its rows; nil for the model's tables and SQLite's own, which are not counted (a
        /// migration counts the objects).
        public var rows: Int?
    }

    /// Every table, in name order.
    public var tables: [Table]
    /// `Z_PRIMARYKEY` rows of Core Data's own entities (numbered above 16000: history's
    /// `CHANGE`, `TRANSACTION`, `TRANSACTIONSTRING`, CloudKit's), with their key counters.
    public var privateEntities: [SQLiteStore.EntityRecord]
    /// `Z_PRIMARYKEY` rows that name no entity of the model and none of Core Data's own.
    public var strayEntityRecords: [SQLiteStore.EntityRecord]
    /// Triggers and views, by name.
    public var triggers: [String]
    public var views: [String]
    /// Indexes on tables that are not the model's (Core Data's history indexes, an app's own).
    public var otherIndexes: [Index]
    /// Whether `Z_MODELCACHE` holds a model.
    public var hasModelCache: Bool
    /// The metadata's keys besides those Core Data's layout defines (``StoreMetadata/additionalEntries``).
    public var metadataKeys: [String]

    /// An index and the table it is on.
    public struct Index: Sendable, Hashable {
        public var name: String
        public var table: String
    }

    /// The tables of one kind.
    public func tables(_ kind: Kind) -> [Table] {
        tables.filter { $0.kind == kind }
    }

    /// The table called `name`, if the store has it.
    public func table(_ name: String) -> Table? {
        tables.first { $0.name == name }
    }

    /// Whether the store has persistent history (an `ACHANGE` table).
    public var hasHistory: Bool { table(PersistentHistory.changeTable) != nil }

    /// Whether the store has CloudKit mirroring tables.
    public var hasCloudKitMirroring: Bool { !tables(.cloudKit).isEmpty }
}
