internal import Foundation
internal import MoltCore
public import MoltModel
package import MoltSQLite

/// Inserts and updates objects and sets relationships, in Core Data's layout.
///
/// A writer works inside one transaction (``ObjectStore/write(_:)`` or store creation). It
/// hands out primary keys through `Z_PRIMARYKEY`, keeps both sides of every relationship
/// consistent (setting `book.publisher` is seen from `publisher.books`; a one-to-one moves its
/// partner), keeps ordered relationships' order columns, and checks every object and value it
/// is given against the model. Each failure names the entity, object and property.
///
/// ```swift
/// try store.write { writer in
///     let author = try writer.insert("Author", attributes: ["name": .string("Ann")])
///     let book = try writer.insert("Book", attributes: ["title": .string("Molt")])
///     try writer.setToMany(author, "books", to: [book])
/// }
/// ```
public final class ObjectWriter {
    public let layout: StoreLayout
    let connection: SQLiteConnection
    let path: String
    /// Where values of attributes with external storage go.
    public let externalData: ExternalDataFolder
    /// Objects this writer has inserted.
    package private(set) var insertedCount = 0
    /// Objects this writer has deleted (cascades included).
    package internal(set) var deletedCount = 0
    /// Statements this writer has run: a change since a reading of this count means the
    /// store may have changed.
    package private(set) var statementCount = 0
    /// The last key handed out per hierarchy root, loaded on first use.
    private var lastKeys: [String: Int64] = [:]
    private var statements: [String: SQLiteStatement] = [:]
    /// Statements of many rows (``writeRows(_:_:width:values:)``), by shape: their text is
    /// long, and making it again for each chunk cost more than the rest of the call.
    var chunkStatements: [ChunkShape: SQLiteStatement] = [:]
    private var insertPlans: [String: InsertPlan] = [:]
    /// ``targetEntities(of:)``'s answers, by destination entity.
    private var targetKinds: [String: Set<String>] = [:]
    /// The relationships ``checkLinks(_:_:to:existing:)`` checked last (``LinkCheckMemo``).
    var linkCheckMemos: [LinkCheckMemo] = []
    /// Statements of single-object reads (``object(_:)``), kept between reads.
    private let singleReads = StatementCache()

    package init(
        connection: SQLiteConnection, layout: StoreLayout, path: String, externalData: ExternalDataFolder? = nil
    ) throws {
        self.connection = connection
        self.layout = layout
        self.path = path
        self.externalData = externalData ?? ExternalDataFolder(store: URL(fileURLWithPath: path))
    }

    // MARK: Inserting and updating

    /// Inserts an object of `entity` and returns its ID.
    ///
    /// - Parameters:
    ///   - entity: the entity of the new object; it must not be abstract.
    ///   - attributes: values by attribute name; attributes not given are NULL, or take the
    ///     model's default value when `applyingDefaults` is true.
    ///   - primaryKey: the key to use (an error if it is taken); by default the next free one of
    ///     the hierarchy.
    ///   - preferredKey: a key to use when it is free in the hierarchy's table, else the next
    ///     free one. A migration passes the source object's key, so objects keep their keys
    ///     (and their URIs) whenever nothing else claimed them first.
    ///   - applyingDefaults: whether attributes not given take the model's default value
    ///     (true) or stay NULL.
    @discardableResult
    public func insert(
        _ entity: String, attributes: [String: AttributeValue] = [:], primaryKey: Int64? = nil,
        preferredKey: Int64? = nil, applyingDefaults: Bool = true
    ) throws -> ObjectID {
        let plan = try insertPlan(for: entity)
        let entityLayout = plan.layout
        guard !entityLayout.isAbstract else {
            throw MoltError(
                .validation, "the entity is abstract; insert objects of one of its sub-entities", entity: entity)
        }
        // Each column's value, in the table's order: given, else the model's default.
        var values: [AttributeValue?] = []
        values.reserveCapacity(entityLayout.attributes.count)
        var explicit: [Bool] = []
        explicit.reserveCapacity(entityLayout.attributes.count)
        for (index, column) in entityLayout.attributes.enumerated() {
            let value = attributes[column.attribute.name]
            explicit.append(value != nil)
            values.append(value ?? (applyingDefaults ? plan.defaults[index] : nil))
        }
        let given = explicit.lazy.filter { $0 }.count
        if given != attributes.count,
            let name = attributes.keys.sorted().first(where: { entityLayout.attribute(named: $0) == nil })
        {
            throw unknownProperty(name, in: entityLayout)
        }
        for (index, column) in entityLayout.attributes.enumerated() {
            if explicit[index], let value = values[index] {
                try check(value, fits: column.attribute, entity: entity)
            }
        }
        return try insertRow(plan, values, primaryKey: primaryKey, preferredKey: preferredKey)
    }

    /// Inserts an object of `entity` whose attribute values are given in its layout's column
    /// order (nil: NULL; no defaults are applied), each checked against its attribute's type.
    package func insert(_ entity: String, columnValues: [AttributeValue?], preferredKey: Int64?) throws -> ObjectID {
        try insert(entity, columnValues: columnValues, preferredKey: preferredKey, linkColumns: [], linkValues: [])
    }

    /// ``insert(_:columnValues:preferredKey:)`` with to-one links written in the same row:
    /// `linkValues[i]` goes in the foreign-key (or entity) column `linkColumns[i]` of the
    /// entity's table. The caller vouches for the links (the row is written as given); the
    /// other side of each is the same column, so nothing else changes.
    package func insert(
        _ entity: String, columnValues: [AttributeValue?], preferredKey: Int64?, linkColumns: [String],
        linkValues: [SQLiteValue]
    ) throws -> ObjectID {
        precondition(linkColumns.count == linkValues.count, "one value per link column")
        return try insert(
            try insertPlan(for: entity, linkColumns: linkColumns), columnValues: columnValues,
            preferredKey: preferredKey,
            linkValues: linkValues)
    }

    /// ``insert(_:columnValues:preferredKey:linkColumns:linkValues:)`` with the plan
    /// ``insertPlan(for:linkColumns:)`` gave (kept by the caller, so not looked up by name).
    package func insert(
        _ plan: InsertPlan, columnValues: [AttributeValue?], preferredKey: Int64?, linkValues: [SQLiteValue]
    ) throws -> ObjectID {
        let entityLayout = plan.layout
        let entity = entityLayout.name
        guard !entityLayout.isAbstract else {
            throw MoltError(
                .validation, "the entity is abstract; insert objects of one of its sub-entities", entity: entity)
        }
        precondition(columnValues.count == plan.attributes.count, "one value per column")
        for index in columnValues.indices {
            guard let value = columnValues[index] else { continue }
            // The common case from the column's type alone; the attribute (copied) names a failure.
            if value.fits(plan.types[index]), !value.isNaN { continue }
            try check(value, fits: plan.attributes[index], entity: entity)
        }
        return try insertRow(plan, columnValues, primaryKey: nil, preferredKey: preferredKey, links: linkValues)
    }

    /// Claims a key and inserts the row of checked values (then `links`, the plan's link
    /// columns' values).
    private func insertRow(
        _ plan: InsertPlan, _ values: [AttributeValue?], primaryKey: Int64?, preferredKey: Int64?,
        links: [SQLiteValue] = []
    ) throws -> ObjectID {
        let entityLayout = plan.layout
        let entity = entityLayout.name
        let key = try claimKey(primaryKey, preferring: preferredKey, for: entityLayout)
        let statement = plan.statement
        do {
            // Bound one by one, in the statement's order: the key, entity, version, the
            // attributes, then the links (the plan's statement names exactly these).
            try statement.reset()
            try statement.bind(.integer(key), at: 1)
            try statement.bind(.integer(Int64(entityLayout.number)), at: 2)
            try statement.bind(.integer(1), at: 3)
            for index in values.indices {
                let value =
                    plan.external[index]
                    ? try stored(values[index], for: plan.attributes[index], entity: entity)
                    : values[index]?.sqliteValue ?? .null
                try statement.bind(value, at: Int32(4 + index))
            }
            for (offset, link) in links.enumerated() {
                try statement.bind(link, at: Int32(4 + values.count + offset))
            }
            try statement.run()
            statementCount += 1
        } catch let error as SQLiteError where error.code.primary == .constraint {
            throw MoltError(
                .validation, "the primary key \(key) is already used in \(entityLayout.table)", entity: entity,
                underlying: error)
        }
        insertedCount += 1
        return ObjectID(entity: entity, primaryKey: key)
    }

    /// The model's default value of each attribute of `entity`, in its layout's order (nil for
    /// none).
    package func defaultValues(of entity: String) throws -> [AttributeValue?] {
        try insertPlan(for: entity).defaults
    }

    /// What inserting an object of `entity` needs, made on first use: its layout, the
    /// compiled `INSERT`, the attributes in column order and their default values.
    package func insertPlan(for entity: String) throws -> InsertPlan {
        try insertPlan(for: entity, linkColumns: [])
    }

    /// ``insertPlan(for:)`` whose statement also fills `linkColumns`, after the attributes.
    package func insertPlan(for entity: String, linkColumns: [String]) throws -> InsertPlan {
        let name = linkColumns.isEmpty ? entity : ([entity] + linkColumns).joined(separator: "\u{1F}")
        if let known = insertPlans[name] { return known }
        let entityLayout = try layout.requireEntity(entity)
        let columns = entityLayout.attributes.map(\.column) + linkColumns
        let statement = try connection.prepare(
            "INSERT INTO \(SQL.identifier(entityLayout.table)) (\(SQL.identifiers(["Z_PK", "Z_ENT", "Z_OPT"] + columns))) VALUES (\(SQL.placeholders(3 + columns.count)))"
        )
        let plan = InsertPlan(
            layout: entityLayout, statement: statement,
            defaults: entityLayout.attributes.map { AttributeValue(defaultOf: $0.attribute) })
        insertPlans[name] = plan
        return plan
    }

    /// Sets attribute values of an existing object (nil values make the attribute NULL) and
    /// increments its optimistic-lock version (`Z_OPT`).
    public func update(_ id: ObjectID, attributes: [String: AttributeValue?]) throws {
        let entityLayout = try requireObject(id)
        var assignments: [String] = []
        var bindings: [SQLiteValue] = []
        // The files the row names once updated.
        var kept: Set<String> = []
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            guard let column = entityLayout.attribute(named: name) else {
                throw unknownProperty(name, in: entityLayout)
            }
            if let value { try check(value, fits: column.attribute, entity: id.entity) }
            assignments.append("\(SQL.identifier(column.column)) = ?")
            let bound = try stored(value, for: column.attribute, entity: id.entity)
            if column.attribute.usesExternalStorage, case .blob(let bytes) = bound,
                case .file(let file)? = try? ExternalBinaryColumn.decode(bytes)
            {
                kept.insert(file)
            }
            bindings.append(bound)
        }
        let replaced = try storedFileNames(of: id, in: entityLayout, attributes: Array(attributes.keys))
        assignments.append("\"Z_OPT\" = \"Z_OPT\" + 1")
        try run(
            "UPDATE \(SQL.identifier(entityLayout.table)) SET \(assignments.joined(separator: ", ")) WHERE \"Z_PK\" = ?",
            bindings + [.integer(id.primaryKey)])
        for name in replaced.subtracting(kept) { externalData.retire(name) }
    }

    /// The external-data files the object's row refers to for `attributes`.
    func storedFileNames(of id: ObjectID, in entity: EntityLayout, attributes: [String]) throws -> Set<String> {
        let columns = attributes.compactMap { entity.attribute(named: $0) }.filter(\.attribute.usesExternalStorage)
        guard !columns.isEmpty else { return [] }
        let row =
            try rows(
                "SELECT \(SQL.identifiers(columns.map(\.column))) FROM \(SQL.identifier(entity.table)) WHERE \"Z_PK\" = ?",
                [.integer(id.primaryKey)]
            ).first ?? []
        var names: Set<String> = []
        for value in row {
            if case .blob(let bytes) = value, case .file(let name)? = try? ExternalBinaryColumn.decode(bytes) {
                names.insert(name)
            }
        }
        return names
    }

    // MARK: Reading back

    /// The object with `id` as this writer's transaction sees it, or nil.
    public func object(_ id: ObjectID) throws -> StoredObject? {
        let entity = try layout.requireEntity(id.entity)
        let cursor = try ObjectCursor(
            layout: layout, connection: connection, path: path, externalData: externalData, entity: entity,
            includingSubentities: false, batchSize: 1, keys: id.primaryKey...id.primaryKey, statements: singleReads)
        return try cursor.nextBatch()?.first
    }

    /// Sets `columns` of `entity`'s table to NULL in the row of each key `rows` gives (link
    /// columns a migration wrote with new rows and takes back; nothing else changes).
    package func clearColumns(
        _ columns: [String], of entity: String, rows: ((Int64) throws -> Void) throws -> Void
    )
        throws
    {
        guard !columns.isEmpty else { return }
        let table = try layout.requireEntity(entity).table
        let assignments = columns.map { "\(SQL.identifier($0)) = NULL" }.joined(separator: ", ")
        let sql = "UPDATE \(SQL.identifier(table)) SET \(assignments) WHERE \"Z_PK\" = ?"
        try rows { key in try run(sql, [.integer(key)]) }
    }

    // MARK: Finishing

    /// Records the last primary key of each hierarchy in `Z_PRIMARYKEY.Z_MAX`, in the order of
    /// the entities' numbers: the order rows of a page are rewritten in decides where its free
    /// space falls, so a dictionary's order (which changes from process to process) would make
    /// two runs of the same migration differ in their bytes.
    package func finish() throws {
        let roots = lastKeys.compactMap { root, last in layout.entity(named: root).map { ($0.number, last) } }
        for (number, last) in roots.sorted(by: { $0.0 < $1.0 }) {
            try run(
                "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(last), .integer(Int64(number))],
                counting: false)
        }
    }

    // MARK: Helpers

    /// The SQLite value stored for `value` (a reference to a file for a long value of an
    /// attribute with external storage).
    private func stored(_ value: AttributeValue?, for attribute: Attribute, entity: String) throws -> SQLiteValue {
        guard let value else { return .null }
        guard attribute.usesExternalStorage else { return value.sqliteValue }
        do {
            return try externalData.storedValue(for: value)
        } catch let error as MoltError {
            throw error.about(entity: entity, property: attribute.name)
        }
    }

    private func claimKey(_ requested: Int64?, preferring preferred: Int64?, for entity: EntityLayout) throws -> Int64 {
        let root = entity.rootName
        // One lookup by name; the key is then read and written in place.
        let slot = lastKeys.index(forKey: root)
        var last: Int64
        if let slot {
            last = lastKeys.values[slot]
        } else {
            let rootNumber = layout.entity(named: root)?.number ?? entity.number
            let recorded =
                try scalar(
                    "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(Int64(rootNumber))])?.integerValue ?? 0
            let used =
                try scalar("SELECT MAX(\"Z_PK\") FROM \(SQL.identifier(entity.table))")?.integerValue ?? 0
            last = max(recorded, used)
        }
        let key: Int64
        if let requested {
            guard requested >= 1 else {
                throw MoltError(.validation, "primary keys start at 1, not \(requested)", entity: entity.name)
            }
            key = requested
            last = max(last, requested)
        } else if let preferred, preferred >= 1, preferred > last {
            // Above every key handed out: free without asking.
            key = preferred
            last = preferred
        } else if let preferred, preferred >= 1,
            try scalar("SELECT 1 FROM \(SQL.identifier(entity.table)) WHERE \"Z_PK\" = ?", [.integer(preferred)]) == nil
        {
            // Below: free unless a row has it.
            key = preferred
        } else {
            last += 1
            key = last
        }
        if let slot {
            lastKeys.values[slot] = last
        } else {
            lastKeys[root] = last
        }
        return key
    }

    /// The layout of `id`'s entity, after checking that the object exists and is of that entity.
    func requireObject(_ id: ObjectID) throws -> EntityLayout {
        let entityLayout = try layout.requireEntity(id.entity)
        let stored = try scalar(
            "SELECT \"Z_ENT\" FROM \(SQL.identifier(entityLayout.table)) WHERE \"Z_PK\" = ?", [.integer(id.primaryKey)])
        guard let number = stored?.integerValue else {
            throw MoltError(.validation, "the object \(id) does not exist", entity: id.entity)
        }
        guard Int(number) == entityLayout.number else {
            let actual = layout.entity(number: Int(number))?.name ?? "entity \(number)"
            throw MoltError(
                .validation, "the object with key \(id.primaryKey) is a \(actual), not a \(id.entity)",
                entity: id.entity)
        }
        return entityLayout
    }

    func requireRelationship(_ name: String, of entity: EntityLayout) throws -> RelationshipLayout {
        guard let link = entity.relationship(named: name) else { throw unknownProperty(name, in: entity) }
        return link
    }

    /// Checks that `target` may be a destination of `link` (its table and entity), and unless
    /// `rowExists`, that its row exists with that entity.
    func checkTarget(_ target: ObjectID, of link: RelationshipLayout, from id: ObjectID, rowExists: Bool = false) throws
    {
        // The common case answered from the entities the relationship may lead to.
        if rowExists, targetEntities(of: link).contains(target.entity) { return }
        let targetLayout = try rowExists ? layout.requireEntity(target.entity) : requireObject(target)
        guard targetLayout.table == link.destinationTable,
            layout.model.entity(named: target.entity).map({
                layout.model.entity($0, isKindOf: link.relationship.destinationEntityName)
            }) == true
        else {
            throw MoltError(
                .validation,
                "\(target) is a \(target.entity), but the relationship leads to \(link.relationship.destinationEntityName)",
                entity: id.entity, property: link.relationship.name)
        }
    }

    /// The entities whose objects `link` may lead to (its destination and sub-entities, in its
    /// table), known after the first question.
    func targetEntities(of link: RelationshipLayout) -> Set<String> {
        let destination = link.relationship.destinationEntityName
        if let known = targetKinds[destination] { return known }
        let kinds = Set(
            layout.entities.filter { entity in
                entity.table == link.destinationTable
                    && layout.model.entity(named: entity.name).map {
                        layout.model.entity($0, isKindOf: destination)
                    } == true
            }.map(\.name))
        targetKinds[destination] = kinds
        return kinds
    }

    func check(_ value: AttributeValue, fits attribute: Attribute, entity: String) throws {
        if case .double(let number) = value, number.isNaN {
            throw MoltError(
                .validation, "NaN cannot be stored: SQLite turns it into NULL", entity: entity, property: attribute.name
            )
        }
        guard value.fits(attribute.type) else {
            throw MoltError(
                .validation, "the value \(value) does not fit the attribute's type \(attribute.type.rawValue)",
                entity: entity, property: attribute.name)
        }
    }

    func unknownProperty(_ name: String, in entity: EntityLayout) -> MoltError {
        let known = (entity.attributes.map(\.attribute.name) + entity.relationships.map(\.relationship.name)).sorted()
        return MoltError(
            .validation, "the entity has no stored property \"\(name)\"", entity: entity.name,
            recovery: "Its properties: \(known.joined(separator: ", ")).")
    }

    /// `"A" = NULL, "B" = NULL` for the columns that exist.
    func clearing(_ columns: [String?]) -> String {
        columns.compactMap { $0 }.map { "\(SQL.identifier($0)) = NULL" }.joined(separator: ", ")
    }

    /// Updates the given columns (those that exist) of one row.
    func assign(in table: String, row key: Int64, _ assignments: [(String?, SQLiteValue)]) throws {
        let present = assignments.compactMap { column, value in column.map { ($0, value) } }
        guard !present.isEmpty else { return }
        try run(
            "UPDATE \(SQL.identifier(table)) SET \(present.map { "\(SQL.identifier($0.0)) = ?" }.joined(separator: ", ")) WHERE \"Z_PK\" = ?",
            present.map(\.1) + [.integer(key)])
    }

    /// Counts a statement run without ``run(_:_:counting:)``.
    func countStatement() { statementCount += 1 }

    /// The compiled form of `sql`, kept for the next time.
    func prepared(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let statement = try connection.prepare(sql)
        statements[sql] = statement
        return statement
    }

    /// The first column of a query's first row (nil when there is none), with a kept statement.
    func scalar(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> SQLiteValue? {
        let statement = try prepared(sql)
        defer { try? statement.reset() }
        try statement.bind(bindings)
        guard try statement.step() else { return nil }
        return statement.value(at: 0)
    }

    /// Every row of a query, with a kept statement.
    func rows(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        let statement = try prepared(sql)
        defer { try? statement.reset() }
        try statement.bind(bindings)
        var rows: [[SQLiteValue]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { statement.value(at: $0) })
        }
        return rows
    }

    /// Runs a statement, reusing its compiled form.
    func run(_ sql: String, _ bindings: [SQLiteValue], counting: Bool = true) throws {
        let statement = try prepared(sql)
        try statement.bind(bindings)
        try statement.run()
        if counting { statementCount += 1 }
    }
}

/// An entity's layout, compiled `INSERT`, attributes in column order and default values
/// (``ObjectWriter/insert(_:attributes:primaryKey:preferredKey:applyingDefaults:)``), held once
/// so inserting reads arrays by column instead of copying the layout's descriptions.
package final class InsertPlan {
    let layout: EntityLayout
    let statement: SQLiteStatement
    /// The model's default of each column (nil for none).
    package let defaults: [AttributeValue?]
    /// Each column's attribute.
    package let attributes: [Attribute]
    /// Each attribute's column, by name.
    package let columnIndex: [String: Int]
    /// Whether each column's attribute has external storage.
    let external: [Bool]
    /// Each column's attribute type.
    package let types: [AttributeType]

    init(layout: EntityLayout, statement: SQLiteStatement, defaults: [AttributeValue?]) {
        self.layout = layout
        self.statement = statement
        self.defaults = defaults
        attributes = layout.attributes.map(\.attribute)
        columnIndex = Dictionary(
            layout.attributes.enumerated().map { ($1.attribute.name, $0) }, uniquingKeysWith: { first, _ in first })
        external = layout.attributes.map(\.attribute.usesExternalStorage)
        types = layout.attributes.map(\.attribute.type)
    }
}

extension AttributeValue {
    /// The model's default value for `attribute`, when it has one that reads as its type.
    public init?(defaultOf attribute: Attribute) {
        guard let text = attribute.defaultValue,
            let scalar = DefaultValueReading.value(text, for: attribute.type)
        else { return nil }
        switch scalar {
        case .integer(let number): self = .integer(number)
        case .double(let number): self = .double(number)
        case .decimal(let number): self = .decimal(number)
        case .bool(let flag): self = .bool(flag)
        case .string(let string): self = .string(string)
        case .date(let seconds): self = .date(ReferenceDate.date(fromStoredSeconds: seconds))
        case .uuid(let uuid): self = .uuid(uuid)
        case .uri(let uri): self = .uri(uri)
        }
    }
}
