internal import Foundation
internal import MoltCore
internal import MoltSQLite

extension ObjectStore {
    /// The names of the external-data files the store's rows refer to.
    public func externalFileNames() throws -> Set<String> {
        var names: Set<String> = []
        var seenColumns: Set<String> = []
        for entity in layout.entities {
            for column in entity.attributes where column.attribute.usesExternalStorage {
                // Sub-entities share their root's table and its columns.
                guard seenColumns.insert("\(entity.table).\(column.column)").inserted else { continue }
                let sql = """
                    SELECT \(SQL.identifier(column.column)) FROM \(SQL.identifier(entity.table)) \
                    WHERE substr(\(SQL.identifier(column.column)), 1, 1) = X'02'
                    """
                let rows = try StoreErrors.sqlite(store.url.path, "listing external-data references") {
                    try store.connection.rows(sql)
                }
                for row in rows {
                    guard case .blob(let bytes) = row[0] else { continue }
                    do {
                        if case .file(let name) = try ExternalBinaryColumn.decode(bytes) { names.insert(name) }
                    } catch let error as MoltError {
                        throw error.about(entity: entity.name, property: column.attribute.name)
                            .located(SourceLocation(file: store.url.path))
                    }
                }
            }
        }
        return names
    }
}
