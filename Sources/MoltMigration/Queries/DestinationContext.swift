internal import MoltCore
public import MoltMapping
public import MoltStore

/// The destination store being built, as a policy queries and changes it: Core Data's
/// `manager.destinationContext`. Everything made so far in the migration (by earlier mappings,
/// hooks and passes) is there to fetch, read, change and delete.
///
/// ```swift
/// // Core Data:
/// //   let request = NSFetchRequest<NSManagedObject>(entityName: "User")
/// //   request.predicate = NSPredicate(format: "userId == %@", userId)
/// //   if let user = try manager.destinationContext.fetch(request).first { post.setValue(user, forKey: "author") }
/// var request = FetchRequest(entityName: "User")
/// request.predicate = ObjectPredicate(format: "userId == %@", userId)
/// if let user = try manager.destinationContext.fetch(request).first {
///     try manager.destinationContext.setValue(user, forKey: "author", of: post)
/// }
/// ```
///
/// Keys the engine wrote with new rows ahead of the relate pass (``RelatePlan/keysAtInsert``)
/// are taken back before a fetch, a count, a read, a relationship set or a delete, so a policy
/// sees what Core Data's copy pass leaves: objects without relationships.
public struct DestinationContext {
    /// The context's only way to the new store: every method reaches it through the checkpoint,
    /// which takes those keys back before anything that could show one (`passed()`).
    let checkpoint: DestinationCheckpoint

    // MARK: Fetching

    /// The objects the request selects, in its order.
    public func fetch(_ request: FetchRequest) throws -> [DestinationObject] {
        let state = try checkpoint.passed()
        let query = try state.query(for: request, on: .destination)
        return try query.objectIDs(
            in: state.destination, resolver: state.freshResolver(), side: .destination,
            cache: state.queryState.destinationStatements
        ).map { DestinationObject(id: $0) }
    }

    /// How many objects the request selects.
    public func count(for request: FetchRequest) throws -> Int {
        let state = try checkpoint.passed()
        return try state.query(for: request, on: .destination).count(
            in: state.destination, resolver: state.freshResolver(), side: .destination,
            cache: state.queryState.destinationStatements)
    }

    /// The object with `id` when it exists (it may have been deleted), else nil. Only whether
    /// it exists is read, which shows no relationship: keys written with new rows stay until
    /// the object's values are read.
    public func existingObject(with id: ObjectID) throws -> DestinationObject? {
        try checkpoint.exists(id) ? DestinationObject(id: id) : nil
    }

    // MARK: Inserting and deleting

    /// Inserts a new object (Core Data's `NSEntityDescription.insertNewObject(forEntityName:into:)`);
    /// see ``MigrationManager/createDestinationObject(entity:attributes:)``.
    @discardableResult
    public func insertNewObject(
        forEntityName entity: String, attributes: [String: any ExpressionValueConvertible] = [:]
    ) throws -> DestinationObject {
        try checkpoint.insert(entity: entity, attributes: attributes.mapValues(\.expressionValue))
    }

    /// Inserts a new object, as the call above does, with values that are already
    /// ``/MoltMapping/ExpressionValue``s (as a policy that builds its values in a dictionary has
    /// them): they are neither boxed nor copied.
    @discardableResult
    public func insertNewObject(
        forEntityName entity: String, attributes: [String: ExpressionValue]
    ) throws -> DestinationObject {
        try checkpoint.insert(entity: entity, attributes: attributes)
    }

    /// Deletes an object, applying the model's delete rules (Core Data's `delete(_:)`; see
    /// ``/MoltStore/ObjectWriter/delete(_:)``): Cascade deletes related objects, Nullify clears the other
    /// side, Deny refuses with 1600 while a related object stays. Deleted objects leave the
    /// association table, so later hooks and relationship values no longer find them.
    public func delete(_ object: DestinationObject) throws {
        try checkpoint.passed().deleteDestinationObjects([object])
    }

    /// Deletes several objects at once (a Deny relationship between two of them does not stop it).
    public func delete(_ objects: [DestinationObject]) throws {
        try checkpoint.passed().deleteDestinationObjects(objects)
    }

    // MARK: Reading

    /// The value of an attribute, the related object(s) of a relationship, or what a key path
    /// (`author.name`, `posts.@count`) reaches: Core Data's `value(forKey:)` / `value(forKeyPath:)`.
    /// A to-one gives ``/MoltMapping/ExpressionValue/object(_:)`` or `.null`, a to-many a collection.
    public func value(forKey key: String, of object: DestinationObject) throws -> ExpressionValue {
        try checkpoint.passed().destinationValue(key, of: object)
    }

    /// An attribute's value as text, or nil.
    public func text(forKey key: String, of object: DestinationObject) throws -> String? {
        switch try value(forKey: key, of: object) {
        case .string(let text), .uri(let text): return text
        case .null: return nil
        case let other: return try Conversion.describe(other)
        }
    }

    /// The related objects of a relationship (none or one for a to-one), in order for an
    /// ordered one.
    public func objects(forKey key: String, of object: DestinationObject) throws -> [DestinationObject] {
        PassState.references(try value(forKey: key, of: object)).map { DestinationObject(id: $0.id) }
    }

    // MARK: Changing

    /// Sets an attribute (nil clears it) or a relationship (a ``DestinationObject``, nil, or an
    /// array of them for a to-many): Core Data's `setValue(_:forKey:)`. Inverses follow.
    public func setValue(
        _ value: (any ExpressionValueConvertible)?, forKey key: String, of object: DestinationObject
    ) throws {
        let layout = try checkpoint.layout.requireEntity(object.entity)
        if layout.attribute(named: key) != nil {
            // An attribute: written, nothing read back.
            try checkpoint.setAttributes([key: value?.expressionValue ?? .null], of: object)
            return
        }
        guard layout.relationship(named: key) != nil else {
            throw MoltError(
                .migration, "the destination entity has no stored attribute or relationship \"\(key)\"",
                entity: object.entity)
        }
        let state = try checkpoint.passed()
        let references = PassState.references(value?.expressionValue ?? .null)
        if let wrong = references.first(where: { $0.store != .destination }) {
            throw MoltError(
                .migration, "\(wrong.id) is a source object; relationships hold destination objects",
                entity: object.entity, property: key)
        }
        try state.setRelationship(key, of: object, to: references.map { DestinationObject(id: $0.id) })
    }

    /// Adds objects to a to-many relationship, after those it holds (Core Data's
    /// `mutableSetValue(forKey:).add(_:)` / `mutableOrderedSetValue(forKey:)`); objects it
    /// already holds stay where they are.
    public func add(_ objects: [DestinationObject], toRelationship key: String, of object: DestinationObject) throws {
        let current = try self.objects(forKey: key, of: object)
        let held = Set(current)
        try checkpoint.passed().setRelationship(key, of: object, to: current + objects.filter { !held.contains($0) })
    }

    /// Removes objects from a to-many relationship (Core Data's `mutableSetValue(forKey:).remove(_:)`).
    public func remove(
        _ objects: [DestinationObject], fromRelationship key: String, of object: DestinationObject
    ) throws {
        let removed = Set(objects)
        try checkpoint.passed().setRelationship(
            key, of: object,
            to: try self.objects(forKey: key, of: object).filter {
                !removed.contains($0)
            })
    }
}

extension PassState {
    /// Deletes destination objects with their delete rules and forgets their associations.
    func deleteDestinationObjects(_ objects: [DestinationObject]) throws {
        let deleted = try writer.delete(objects.map(\.id))
        relating.batch = nil
        try associations.removeDestinations(
            try deleted.map { try key($0, in: destination) }, mappings: mappingModel.entityMappings.count)
        resolver.forget(.destination)
    }

    /// A key or key path's value on a destination object, read as the store is now.
    func destinationValue(_ keyPath: String, of object: DestinationObject) throws -> ExpressionValue {
        let resolver = freshResolver()
        let reference = ObjectReference(.destination, object.id)
        if !keyPath.contains(".") && !keyPath.contains("@") {
            return try resolver.value(of: keyPath, on: reference)
        }
        let compiled: CompiledExpression
        do {
            compiled = ExpressionCompiler.compile(try ExpressionParser().parse(keyPath))
        } catch {
            throw MoltError(.migration, "\"\(keyPath)\" is not a key path: \(error)", entity: object.entity)
        }
        let context = EvaluationContext(
            variables: EvaluationContext.variables(userInfo: [:]), object: .object(reference), resolver: resolver)
        context.now = { [startDate] in startDate }
        return try compiled.evaluate(context)
    }
}
