internal import Foundation
internal import MoltCore
internal import MoltSQLite

/// Reads what a store holds besides its objects (``StoreContents``): every table with its
/// rows, `Z_PRIMARYKEY` rows the model does not explain, triggers, views and other indexes.
/// Tables are classed against `layout`, the model the store is read with.
///
/// ```swift
/// let contents = try StoreSurvey(store: sqlite, layout: try StoreLayout(model: model)).contents()
/// for table in contents.tables(.unknown) { print(table.name, table.rows ?? 0) }
/// ```
public struct StoreSurvey {
    let store: SQLiteStore
    /// The model the store is read with; nil to class its tables by Core Data's naming alone
    /// (entity tables named after `Z_PRIMARYKEY`'s rows, join tables `Z_<number><NAME>`).
    let layout: StoreLayout?

    public init(store: SQLiteStore, layout: StoreLayout?) {
        self.store = store
        self.layout = layout
    }

    public func contents() throws -> StoreContents {
        let path = store.url.path
        let schema = try StoreErrors.sqlite(path, "reading the schema") {
            try store.connection.rows("SELECT type, name, tbl_name FROM sqlite_master ORDER BY name").map {
                (type: $0[0].textValue ?? "", name: $0[1].textValue ?? "", table: $0[2].textValue ?? "")
            }
        }
        let modelTables: Set<String>
        let modelNumbers: Set<Int>
        if let layout {
            modelTables = Set(layout.tables.map(\.name) + layout.joinTables.map(\.name))
            modelNumbers = Set(layout.entities.map(\.number))
        } else {
            let records = store.entityRecords.filter { $0.number <= PersistentHistory.privateEntityFloor }
            modelNumbers = Set(records.map(\.number))
            modelTables = Set(records.map { "Z" + $0.name.uppercased() })
                .union(schema.map(\.name).filter(Self.isJoinTableName))
        }
        var privateEntities: [SQLiteStore.EntityRecord] = []
        var stray: [SQLiteStore.EntityRecord] = []
        for record in store.entityRecords where !modelNumbers.contains(record.number) {
            if record.number > PersistentHistory.privateEntityFloor {
                privateEntities.append(record)
            } else if layout?.entity(named: record.name) == nil {
                stray.append(record)
            }
        }
        let privateTables = Set(privateEntities.map { PersistentHistory.table(ofPrivateEntity: $0.name) })
        var tables: [StoreContents.Table] = []
        for entry in schema where entry.type == "table" {
            let kind = kind(of: entry.name, modelTables: modelTables, privateTables: privateTables)
            let rows =
                [.sqlite, .model].contains(kind)
                ? nil
                : try StoreErrors.sqlite(path, "counting the rows of \(entry.name)") {
                    Int(
                        try store.connection.scalar("SELECT count(*) FROM \(SQL.identifier(entry.name))")?.integerValue
                            ?? 0)
                }
            tables.append(StoreContents.Table(name: entry.name, kind: kind, rows: rows))
        }
        let indexes = schema.filter { $0.type == "index" && !modelTables.contains($0.table) }
            .filter { !$0.name.hasPrefix("sqlite_autoindex_") }
            .map { StoreContents.Index(name: $0.name, table: $0.table) }
        return StoreContents(
            tables: tables, privateEntities: privateEntities, strayEntityRecords: stray,
            triggers: schema.filter { $0.type == "trigger" }.map(\.name),
            views: schema.filter { $0.type == "view" }.map(\.name),
            otherIndexes: indexes,
            hasModelCache: try store.hasModelCache(),
            metadataKeys: store.metadata.additionalEntries.keys.sorted())
    }

    /// `Z_12TAGS`: Core Data's name for a many-to-many relationship's table.
    static func isJoinTableName(_ name: String) -> Bool {
        guard name.hasPrefix("Z_") else { return false }
        let rest = name.dropFirst(2)
        let digits = rest.prefix { $0.isNumber }
        return !digits.isEmpty && rest.count > digits.count
    }

    private func kind(of table: String, modelTables: Set<String>, privateTables: Set<String>) -> StoreContents.Kind {
        if modelTables.contains(table) { return .model }
        if ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains(table) { return .bookkeeping }
        if table.lowercased().hasPrefix("sqlite_") { return .sqlite }
        if PersistentHistory.tables.contains(table) { return .history }
        if table.hasPrefix(CloudKitMirroring.tablePrefix) { return .cloudKit }
        if privateTables.contains(table) { return .bookkeeping }
        return .unknown
    }
}
