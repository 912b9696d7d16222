import Foundation
import MoltCore
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport

/// The schema of an SQLite file as SQLite reports it: tables with their columns (name, declared
/// type, primary-key position) and indexes with their table and columns. What a layout test
/// compares; independent of how the CREATE statements were spelled.
struct SchemaSnapshot: Equatable, CustomStringConvertible {
    struct Column: Equatable { var name: String; var type: String; var primaryKey: Int }
    struct Index: Equatable { var table: String; var columns: [String]; var unique: Bool }

    var tables: [String: [Column]] = [:]
    var indexes: [String: Index] = [:]

    init(path: String) throws {
        let db = try SQLiteConnection(path: path, mode: .immutable)
        for row in try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'") {
            let table = row[0].textValue!
            tables[table] = try db.rows("PRAGMA table_info(\(SQL.identifier(table)))").map {
                Column(name: $0[1].textValue!, type: $0[2].textValue!, primaryKey: Int($0[5].integerValue!))
            }
            for index in try db.rows("PRAGMA index_list(\(SQL.identifier(table)))") {
                let name = index[1].textValue!
                let columns = try db.rows("PRAGMA index_info(\(SQL.identifier(name)))").map { $0[2].textValue ?? "" }
                indexes[name] = Index(table: table, columns: columns, unique: index[2].integerValue == 1)
            }
        }
    }

    var description: String {
        let tableText = tables.keys.sorted().map { name in
            "\(name)(\(tables[name]!.map { "\($0.name) \($0.type)\($0.primaryKey > 0 ? " PK\($0.primaryKey)" : "")" }.joined(separator: ", ")))"
        }
        let indexText = indexes.keys.sorted().map {
            "\($0) ON \(indexes[$0]!.table)(\(indexes[$0]!.columns.joined(separator: ", ")))"
        }
        return (tableText + indexText).joined(separator: "\n")
    }
}

enum TestStores {
    static let blogBundle = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld")

    static func blogModel() throws -> ObjectModel {
        try Examples.model("Blog")
    }

    static func model(_ body: String, name: String = "Test") throws -> ObjectModel {
        try XcodeModelReader().read(Data(ModelXML.document(body).utf8), file: "contents", name: name)
    }

    /// A new empty store for `model` in `folder`.
    static func create(
        _ model: ObjectModel, in folder: TemporaryDirectory, name: String = "store.sqlite",
        populate: (ObjectWriter) throws -> Void = { _ in }
    ) throws -> ObjectStore {
        try ObjectStore.create(at: folder.path(name), model: model, populate: populate)
    }

    /// The files in `folder`, sorted.
    static func files(in folder: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }
}
