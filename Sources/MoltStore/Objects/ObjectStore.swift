public import Foundation
public import Logging
internal import MoltCore
public import MoltModel
internal import MoltSQLite

/// A store bound to the model it was made with: read objects, count them, write them.
///
/// Binding checks the store's entity hashes against the model (Core Data's 134100 when they
/// differ). Given a bundle of model versions, ``open(at:models:readOnly:snapshot:logger:)`` finds the
/// version the store was made with.
///
/// ```swift
/// let store = try ObjectStore.open(at: storeURL, models: .bundle(try ModelBundle(url: bundleURL)))
/// print(try store.count(of: "Author"))
/// ```
public final class ObjectStore {
    public let store: SQLiteStore
    public let model: ObjectModel
    public let layout: StoreLayout
    /// Where the values of attributes with external storage are kept: the store's own
    /// `.<Name>_SUPPORT/_EXTERNAL_DATA` unless another folder was given.
    public let externalData: ExternalDataFolder
    /// Statements of single-object reads (``object(_:)``), kept between reads.
    private let singleReads = StatementCache()

    /// Binds an open store to `model`, checking that they match. `externalData` is the folder
    /// of external values when it is not the store's own (a migration's new store fills one
    /// that is swapped in with it).
    public init(store: SQLiteStore, model: ObjectModel, externalData: ExternalDataFolder? = nil) throws {
        if let error = try store.compatibility(with: model).error(store: store.url.path, model: model.name) {
            throw error
        }
        self.store = store
        self.model = model
        self.layout = try StoreLayout(model: model)
        self.externalData = externalData ?? ExternalDataFolder(store: store.url)
    }

    /// Opens the store at `url` with the model (or the bundle version) it was made with. With
    /// `snapshot` (read-only), everything read comes from one read transaction: one consistent
    /// version of the store while others commit (see ``SQLiteStore/init(at:readOnly:snapshot:unchanging:logger:)``).
    public static func open(
        at url: URL, models: ModelSource, readOnly: Bool = true, snapshot: Bool = false, logger: Logger? = nil
    ) throws -> ObjectStore {
        let store = try SQLiteStore(at: url, readOnly: readOnly, snapshot: snapshot, logger: logger)
        let model = try store.matchingModel(from: models)
        return try ObjectStore(store: store, model: model)
    }

    /// Creates a new store at `url` for `model`, filled by `populate`, and opens it.
    /// See ``SQLiteStore/create(at:layout:options:populate:)``.
    public static func create(
        at url: URL, model: ObjectModel, options: StoreCreationOptions = StoreCreationOptions(),
        populate: (ObjectWriter) throws -> Void = { _ in }
    ) throws -> ObjectStore {
        let layout = try StoreLayout(model: model)
        try SQLiteStore.create(at: url, layout: layout, options: options, populate: populate)
        return try ObjectStore(
            store: SQLiteStore(at: url, readOnly: false, logger: options.logger), model: model,
            externalData: options.externalData)
    }

    // MARK: Reading

    /// A cursor over the objects of `entity` (and by default its sub-entities) in key order;
    /// with a `condition`, only the rows that meet it are read.
    public func objects(
        of entity: String, includingSubentities: Bool = true, batchSize: Int = 500, where condition: SQLCondition? = nil
    ) throws -> ObjectCursor {
        try objects(
            of: entity, includingSubentities: includingSubentities, batchSize: batchSize, where: condition,
            readingToMany: true)
    }

    /// ``objects(of:includingSubentities:batchSize:where:)``; without `readingToMany`, each
    /// object's `relationships` hold only its to-ones (read with its row), and a to-many is read
    /// when something asks for it (``toMany(_:of:)``).
    package func objects(
        of entity: String, includingSubentities: Bool = true, batchSize: Int = 500, where condition: SQLCondition?,
        readingToMany: Bool
    ) throws -> ObjectCursor {
        try ObjectCursor(
            layout: layout, connection: store.connection, path: store.url.path, externalData: externalData,
            entity: try layout.requireEntity(entity),
            includingSubentities: includingSubentities, batchSize: batchSize, condition: condition,
            readsToMany: readingToMany)
    }

    /// A cursor over the objects of `entity` itself (not its sub-entities) whose primary keys
    /// lie in `keys`, in key order.
    public func objects(of entity: String, keys: ClosedRange<Int64>, batchSize: Int = 500) throws -> ObjectCursor {
        try ObjectCursor(
            layout: layout, connection: store.connection, path: store.url.path, externalData: externalData,
            entity: try layout.requireEntity(entity), includingSubentities: false, batchSize: batchSize, keys: keys)
    }

    /// A cursor over the objects of `entity` itself whose primary keys lie in `keys`, giving
    /// each object's relationships only (no attribute is read): those `named`, or all of them.
    ///
    /// Without `checkingLinkTargets`, a to-many held in a join table whose destination has no
    /// sub-entities also gives the links whose target has no row (a damaged store's), for a
    /// reader that maps each target through what was made from it, which for such a key is
    /// nothing: it is then read without a look-up per link.
    package func relationships(
        of entity: String, keys: ClosedRange<Int64>, named: Set<String>? = nil, checkingLinkTargets: Bool = true
    ) throws -> ObjectCursor {
        try ObjectCursor(
            layout: layout, connection: store.connection, path: store.url.path, externalData: externalData,
            entity: try layout.requireEntity(entity), includingSubentities: false,
            batchSize: Int(clamping: keys.upperBound - keys.lowerBound + 1), keys: keys, readsAttributes: false,
            relationshipNames: named, checksLinkTargets: checkingLinkTargets)
    }

    /// The object with `id`, or nil when there is none.
    public func object(_ id: ObjectID) throws -> StoredObject? {
        try object(id, readingToMany: true)
    }

    /// The object with `id`, or nil when there is none. Without `readingToMany`, its
    /// `relationships` hold only its to-ones (read with its row); each to-many is a query of its
    /// own, made by ``toMany(_:of:)`` when a value needs it. A to-many target shared by many
    /// objects (a tag of thousands of posts) is then read for what is asked of it, never for
    /// its own links.
    package func object(_ id: ObjectID, readingToMany: Bool) throws -> StoredObject? {
        let entity = try layout.requireEntity(id.entity)
        let cursor = try ObjectCursor(
            layout: layout, connection: store.connection, path: store.url.path, externalData: externalData,
            entity: entity, includingSubentities: false, batchSize: 1, keys: id.primaryKey...id.primaryKey,
            statements: singleReads, readsToMany: readingToMany)
        return try cursor.nextBatch()?.first
    }

    /// The objects one to-many relationship of the object `id` leads to: in order when the
    /// relationship is ordered, by ID otherwise (as ``object(_:)`` gives them).
    package func toMany(_ relationship: String, of id: ObjectID) throws -> [ObjectID] {
        let entity = try layout.requireEntity(id.entity)
        guard let link = entity.relationship(named: relationship), link.relationship.isToMany else {
            throw MoltError(.migration, "\(id.entity) has no to-many relationship \"\(relationship)\"")
        }
        return try StoreErrors.sqlite(store.url.path, "reading \(id.entity).\(relationship)") {
            let statement = try singleReads.statement(ObjectCursor.toManySQL(link), on: store.connection)
            try statement.bind([.integer(id.primaryKey), .integer(id.primaryKey)])
            var links: [(id: ObjectID, position: Int64)] = []
            while try statement.step() {
                let name =
                    layout.entityName(number: Int(statement.int64(at: 2))) ?? link.relationship.destinationEntityName
                let position = statement.columnCount > 3 ? statement.int64(at: 3) : 0
                links.append((ObjectID(entity: name, primaryKey: statement.int64(at: 1)), position))
            }
            return link.relationship.isOrdered
                ? links.sorted { ($0.position, $0.id) < ($1.position, $1.id) }.map(\.id)
                : links.map(\.id).sorted()
        }
    }

    /// How many objects `entity` (and by default its sub-entities) has; with a `condition`,
    /// how many of them meet it.
    ///
    /// `rowsAreWellFormed`: every row of the store's entity tables has an entity number the
    /// layout gives its table, as in a store Molt wrote itself. A table that holds no entity
    /// but those counted is then counted whole (`count(*)` without a condition, which SQLite
    /// answers from the smallest index or the tree's pages, without reading each row: at a
    /// million Records 8–11 ms against 93–217 ms). A store from elsewhere is counted by
    /// entity number, so that a row of a foreign number is not counted.
    public func count(
        of entity: String, includingSubentities: Bool = true, where condition: SQLCondition? = nil,
        rowsAreWellFormed: Bool = false
    ) throws -> Int {
        let entityLayout = try layout.requireEntity(entity)
        let kinds = includingSubentities ? entityLayout.kindNumbers : [entityLayout.number]
        let count = layout.countStatement(
            of: kinds, in: entityLayout.table, rowsAreWellFormed: rowsAreWellFormed && condition == nil)
        let extra = condition.map { " AND (\($0.sql))" } ?? ""
        return try StoreErrors.sqlite(store.url.path, "counting \(entity) objects") {
            Int(try store.connection.scalar(count + extra, condition?.bindings ?? [])?.integerValue ?? 0)
        }
    }

    // MARK: Writing

    /// Runs `body` with a writer in one transaction: all of its changes are saved, or none.
    ///
    /// The writer checks each value's type and keeps both sides of every relationship; the
    /// model's rules about whole objects (required values, ranges, relationship counts,
    /// uniqueness constraints), which Core Data checks when it saves, are ``validate()``'s.
    @discardableResult
    public func write<T>(_ body: (ObjectWriter) throws -> T) throws -> T {
        guard !store.isReadOnly else {
            throw MoltError(
                .persistentStoreOpen, "the store is open read-only", location: SourceLocation(file: store.url.path))
        }
        let mark = externalData.writtenCount
        do {
            let result = try store.connection.transaction(.immediate) {
                let writer = try ObjectWriter(
                    connection: store.connection, layout: layout, path: store.url.path, externalData: externalData)
                let result = try body(writer)
                try writer.finish()
                // The files the rows refer to are durable before the rows are.
                try externalData.sync()
                return result
            }
            externalData.removeRetired()
            return result
        } catch let error as MoltError {
            externalData.keepRetired()
            externalData.removeWritten(since: mark)
            throw error.located(SourceLocation(file: store.url.path))
        } catch {
            externalData.keepRetired()
            externalData.removeWritten(since: mark)
            throw StoreErrors.wrap(error, path: store.url.path, doing: "writing objects")
        }
    }
}
