internal import Foundation
internal import MoltCore
internal import MoltSQLite

/// One change of a store's persistent history (a row of `ACHANGE`), decoded with the store's
/// model: the object it is about, and for an update the properties it changed.
public struct HistoryChange: Sendable, Hashable, CustomStringConvertible {
    /// What happened to the object (`ZCHANGETYPE`).
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        case insert, update, delete
        /// A value Core Data does not write (0 insert, 1 update, 2 delete are the known ones).
        case other(Int64)

        init(_ code: Int64) {
            switch code {
            case 0: self = .insert
            case 1: self = .update
            case 2: self = .delete
            default: self = .other(code)
            }
        }

        public var description: String {
            switch self {
            case .insert: "insert"
            case .update: "update"
            case .delete: "delete"
            case .other(let code): "type \(code)"
            }
        }
    }

    /// The change's key (`ACHANGE.Z_PK`).
    public let change: Int64
    /// Its transaction's key (`ZTRANSACTIONID`, an `ATRANSACTION` row).
    public let transaction: Int64
    public let kind: Kind
    /// The object: its entity (`ZENTITY`, by the model's numbers; `#<number>` for a number
    /// the model does not have) and primary key (`ZENTITYPK`). A deleted object's key names no
    /// object of the store.
    public let object: ObjectID
    /// For an update, the properties its mask names (``HistoryColumnMask``), by name; empty
    /// for inserts and deletes, and for an update whose mask is missing or does not fit the
    /// entity (``isMaskReadable``).
    public let properties: [String]
    /// False for an update whose mask is missing or shorter than its entity's columns need
    /// (Core Data reports no changed properties for it); true otherwise.
    public let isMaskReadable: Bool

    public init(
        change: Int64, transaction: Int64, kind: Kind, object: ObjectID, properties: [String],
        isMaskReadable: Bool = true
    ) {
        self.change = change
        self.transaction = transaction
        self.kind = kind
        self.object = object
        self.properties = properties
        self.isMaskReadable = isMaskReadable
    }

    /// `change 12  transaction 7  update  Item/3  name, tags`.
    public var description: String {
        var text = "change \(change)  transaction \(transaction)  \(kind)  \(object)"
        if kind == .update {
            text += isMaskReadable ? "  \(properties.joined(separator: ", "))" : "  (mask does not fit the entity)"
        }
        return text
    }
}

extension ObjectStore {
    /// The store's persistent history, change by change in key order, decoded with the
    /// store's model; nil when the store keeps none (it has no `ACHANGE` table).
    ///
    /// ```swift
    /// for change in try store.historyChanges() ?? [] { print(change) }
    /// // change 3  transaction 3  update  Item/2  name
    /// ```
    public func historyChanges() throws -> [HistoryChange]? {
        let connection = store.connection
        let table = PersistentHistory.changeTable
        let exists = try connection.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)])
        guard exists?.integerValue ?? 0 > 0 else { return nil }
        var masks: [Int: HistoryColumnMask] = [:]
        let rows = try connection.rows(
            """
            SELECT "Z_PK", "ZTRANSACTIONID", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZCOLUMNS"
            FROM \(SQL.identifier(table)) ORDER BY "Z_PK"
            """)
        return rows.map { row in
            let number = Int(row[3].integerValue ?? 0)
            let entity = layout.entity(number: number)
            let kind = HistoryChange.Kind(row[2].integerValue ?? -1)
            var properties: [String] = []
            var readable = true
            if kind == .update {
                if let entity, case .blob(let bytes) = row[5] {
                    if masks[number] == nil { masks[number] = HistoryColumnMask(entity, model: model) }
                    let names = masks[number]?.properties(in: bytes)
                    properties = names ?? []
                    readable = names != nil
                } else {
                    readable = false
                }
            }
            return HistoryChange(
                change: row[0].integerValue ?? 0, transaction: row[1].integerValue ?? 0, kind: kind,
                object: ObjectID(entity: entity?.name ?? "#\(number)", primaryKey: row[4].integerValue ?? 0),
                properties: properties, isMaskReadable: readable)
        }
    }
}
