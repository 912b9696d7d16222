internal import MoltCore
public import MoltModel

/// Core Data's SQLite layout for a model: entity numbers, tables, columns, join tables and
/// indexes. Built once per model; everything that reads or writes rows goes through it.
///
/// - Entities are numbered from 1 in name order, each entity's sub-entities (by name) right
///   after it.
/// - One table per inheritance root (`Z` + uppercased name) holds the rows of the whole
///   hierarchy, told apart by `Z_ENT`; columns are `Z_PK`, `Z_ENT`, `Z_OPT`, then the
///   hierarchy's properties grouped by column type (INTEGER, then TIMESTAMP/FLOAT, then
///   VARCHAR, then BLOB), attributes before relationship columns, each by name.
/// - A to-one is a key column (with an index, and an entity column when the destination has
///   sub-entities); a to-many whose inverse is a to-one is stored by that inverse; other
///   to-manys get a join table.
///
/// See `ColumnNaming` for the names and which of them are checked against real stores.
public struct StoreLayout: Sendable {
    public let model: ObjectModel
    /// Every entity, in entity-number order.
    public let entities: [EntityLayout]
    /// Entity tables, in the order of their roots' numbers.
    public let tables: [TableLayout]
    public let joinTables: [JoinTableLayout]
    private let indexByName: [String: Int]
    /// Each entity's number and its root's, by name (for lookups that need no more).
    private let numbersByName: [String: (number: Int, root: Int)]

    /// Lays out `model`. Throws ``/MoltCore/MoltError`` (``/MoltCore/MoltError/Code-swift.struct/invalidModel``) when
    /// the model fails its consistency check.
    public init(model: ObjectModel) throws {
        try ModelChecker().validate(model)
        self.model = model
        var builder = LayoutBuilder(model: model)
        builder.build()
        entities = builder.entityLayouts
        tables = builder.tableLayouts
        joinTables = builder.joinTableLayouts
        indexByName = Dictionary(uniqueKeysWithValues: entities.enumerated().map { ($1.name, $0) })
        let numbers = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.number) })
        numbersByName = Dictionary(
            uniqueKeysWithValues: entities.map { ($0.name, ($0.number, numbers[$0.rootName] ?? $0.number)) })
    }

    /// The layout of the entity called `name`.
    public func entity(named name: String) -> EntityLayout? {
        indexByName[name].map { entities[$0] }
    }

    /// Whether every entity whose rows `table` holds is among `kinds` (abstract entities have
    /// no rows of their own).
    public func holdsOnly(_ kinds: [Int], in table: String) -> Bool {
        entities.allSatisfy { $0.table != table || $0.isAbstract || kinds.contains($0.number) }
    }

    /// The number of the entity called `name` and its hierarchy root's number.
    public func numbers(ofEntity name: String) -> (number: Int, root: Int)? {
        numbersByName[name]
    }

    /// The name of the entity numbered `number`.
    public func entityName(number: Int) -> String? {
        number >= 1 && number <= entities.count ? entities[number - 1].name : nil
    }

    /// The layout of the entity numbered `number`.
    public func entity(number: Int) -> EntityLayout? {
        number >= 1 && number <= entities.count ? entities[number - 1] : nil
    }

    /// The entity layout for `name`, or an error naming the entity.
    public func requireEntity(_ name: String) throws -> EntityLayout {
        guard let layout = entity(named: name) else {
            throw MoltError(
                .fileReadCorruptFile, "the model has no entity called \"\(name)\"", entity: name,
                recovery: "Entities: \(entities.map(\.name).joined(separator: ", ")).")
        }
        return layout
    }
}
