internal import MoltCore
internal import MoltMapping
import MoltModel
internal import MoltStore

/// Core Data's default behaviour, which policies can call to keep it and add to it.
extension PassState {
    /// The work of the manager's `createDefaultDestinationInstance` (its documentation is there).
    @discardableResult
    func createDefaultDestinationInstance(for source: SourceObject) throws -> DestinationObject {
        let mapping = try requireCurrentMapping()
        guard let entity = mapping.destinationEntityName else {
            throw MoltError(.migration, "the entity mapping has no destination entity", entity: mapping.name)
        }
        let compiled = compiledMapping(mapping)
        let object = try createDestinationObject(from: source, entity: entity, compiled: compiled, mapping: mapping)
        try associate(source: source, destination: object)
        return object
    }

    /// ``createDefaultDestinationInstance(for:)``'s object, its row filled by column: values
    /// evaluated in the mapping's order, then converted in column order (as by name).
    private func createDestinationObject(
        from source: SourceObject, entity: String, compiled: CompiledMapping, mapping: EntityMapping
    ) throws -> DestinationObject {
        let columns: DestinationColumns
        do {
            columns = try destinationColumns(compiled, entity: entity)
        } catch var error as MoltError {
            error.message = "\(mapping.name): \(source.id): \(error.message)"
            throw error.about(entity: mapping.name)
        }
        var context: EvaluationContext?
        let row = try Self.defaultRow(of: source, compiled: compiled, columns: columns, mapping: mapping) {
            index, expression, propertyMapping in
            let made = context ?? evaluationContext(source: source.id)
            context = made
            return try evaluate(
                expression, made, mapping: mapping, object: source.id, property: compiled.attributes[index].name,
                at: propertyMapping)
        }
        do {
            // With the to-one keys the plan writes with the row (``KeyAtInsert``).
            return DestinationObject(
                id: try insertNewObject(entity, row: row, mapping: mapping.name, source: source, byPolicy: false))
        } catch var error as MoltError {
            error.message = "\(mapping.name): \(source.id): \(error.message)"
            throw error.about(entity: mapping.name)
        }
    }

    /// The default object's row of `source`: each attribute's value, its own (read with the
    /// object) or `evaluate`d, in the mapping's order, then converted in column order. A
    /// conversion's failure names the mapping and the object. Reads nothing but `source` and
    /// `columns` unless it calls `evaluate`, so a copy worker can make it (``CopyRecording``).
    static func defaultRow(
        of source: SourceObject, compiled: CompiledMapping, columns: DestinationColumns, mapping: EntityMapping,
        evaluate: (Int, CompiledExpression, PropertyMapping?) throws -> ExpressionValue
    ) throws -> [AttributeValue?] {
        var row = columns.defaults
        // The values to convert, by attribute index: none when every value is carried as read
        // (a copy), so most rows need no second array.
        var given: [ExpressionValue?] = []
        func give(_ value: ExpressionValue, at index: Int) {
            if given.isEmpty { given = [ExpressionValue?](repeating: nil, count: compiled.attributes.count) }
            given[index] = value
        }
        for index in compiled.attributes.indices {
            if let key = compiled.sourceAttributes[index] {
                // `$source.<attribute>`: the value read, as evaluating the key path gives it
                // (the mapping's value, not copied, is that expression).
                let read = source.read.attributes[key]
                if columns.direct[index], read.map({ columns.fits($0, index) }) ?? true {
                    row[columns.column[index]] = read
                } else {
                    give(ExpressionValue(read), at: index)
                }
                continue
            }
            switch compiled.attributes[index].value {
            case .expression(let expression, let propertyMapping):
                give(try evaluate(index, expression, propertyMapping), at: index)
            case .modelDefault:
                continue
            case .noValue:
                give(.null, at: index)
            }
        }
        guard !given.isEmpty else { return row }
        do {
            for index in columns.conversionOrder {
                guard let value = given[index] else { continue }
                row[columns.column[index]] = try AttributeAssignment.convert(value, to: columns.attribute[index])
            }
        } catch var error as MoltError {
            error.message = "\(mapping.name): \(source.id): \(error.message)"
            throw error.about(entity: mapping.name)
        }
        return row
    }

    /// Where the mapping's attribute values go in a row of `entity`, worked out on first use.
    func destinationColumns(_ compiled: CompiledMapping, entity: String) throws -> DestinationColumns {
        if let known = compiled.destinationColumns { return known }
        let made = try DestinationColumns(
            compiled, layout: try destination.layout.requireEntity(entity),
            defaults: try writer.defaultValues(of: entity), sourceModel: source.model)
        compiled.destinationColumns = made
        return made
    }

    /// The work of the manager's `createDefaultRelationships` (its documentation is there).
    func createDefaultRelationships(for destination: DestinationObject) throws {
        let mapping = try requireCurrentMapping()
        let compiled = compiledMapping(mapping)
        guard relatesByDefault(destination, compiled) else { return }
        let sources = try sourceIDs(for: destination, mapping: mapping)
        for (index, (relationship, expression, propertyMapping)) in compiled.relationships.enumerated() {
            let (collected, existing) = try relationshipValue(
                relationship, expression, propertyMapping, canonical: compiled.canonicalRelationships[index],
                of: destination, from: sources, mapping: mapping)
            try withRelationshipContext(mapping, destination, sources, relationship) {
                try setRelationship(relationship.name, of: destination, to: collected, existing: existing)
            }
        }
    }

    /// Whether `destination` is of the entity the mapping makes (its relationships are the
    /// mapping's to set).
    func relatesByDefault(_ destination: DestinationObject, _ compiled: CompiledMapping) -> Bool {
        guard let mappedEntity = compiled.resolved.destinationEntity,
            let entity = destinationModel.entity(named: destination.entity)
        else { return false }
        return destinationModel.entity(entity, isKindOf: mappedEntity.name)
    }

    /// The objects a relationship of `destination` takes from its value expression, evaluated
    /// for each source object it was made from (a to-many gets the objects of all of them, a
    /// to-one the first found), and the objects among them (`destination` included) known to
    /// exist.
    func relationshipValue(
        _ relationship: Relationship, _ expression: CompiledExpression, _ propertyMapping: PropertyMapping?,
        canonical: CanonicalRelationshipValue?, of destination: DestinationObject, from sources: [ObjectID],
        mapping: EntityMapping, canonicalMapping: Int? = nil
    ) throws -> (objects: [DestinationObject], existing: KnownObjects) {
        relating.associatedDestinations = []
        defer {
            relating.associatedDestinations = []
            relating.relationship = nil
        }
        var collected: [DestinationObject] = []
        // Whether every object came from the association table (so every one exists).
        var onlyAssociated = true
        for source in sources {
            if !evaluatesEveryValue, let canonical,
                let found = try canonicalValue(
                    canonical, of: source, relationship: relationship, mapping: canonicalMapping)
            {
                if collected.isEmpty { collected = found } else { collected += found }
                if !relationship.isToMany, !collected.isEmpty { break }
                continue
            }
            onlyAssociated = false
            let context = evaluationContext(source: source, destination: destination, relationship: relationship)
            let value = try evaluate(
                expression, context, mapping: mapping, object: source, property: relationship.name,
                at: propertyMapping)
            collected += try destinationObjects(
                in: value, mapping: mapping, object: source, property: relationship.name)
            if !relationship.isToMany, !collected.isEmpty { break }
        }
        // Objects the association table gave exist, and so does a destination the mapping
        // made (it has sources): their rows need no looking up.
        if sources.isEmpty { return (collected, .none) }
        if onlyAssociated { return (collected, .every) }
        return (collected, KnownObjects(ids: relating.associatedDestinations.union([destination.id])))
    }

    /// The objects Core Data's default relationship value gives for `source`, found as
    /// evaluating it would find them (the source relationship's objects, then the destination
    /// objects made from them, of the relationship's entity) but without evaluating; nil when
    /// the source relationship cannot be read, so evaluating reports the error as it should.
    /// `mapping`: the number of the mapping `canonical` names, when the caller knows it.
    private func canonicalValue(
        _ canonical: CanonicalRelationshipValue, of source: ObjectID, relationship: Relationship, mapping known: Int?
    ) throws -> [DestinationObject]? {
        let objects: [ObjectID]
        switch relating.batch?.sourceLinks[source]?[canonical.sourceRelationship] {
        case .toOne(let id)?: objects = id.map { [$0] } ?? []
        case .toMany(let ids)?: objects = ids
        case nil:
            guard
                let related = try? resolver.value(
                    of: canonical.sourceRelationship, on: ObjectReference(.source, source))
            else { return nil }
            objects = Self.references(related).map(\.id)
        }
        let mapping = try known ?? canonical.entityMapping.map { try number(of: $0) }
        if let mapping, let kept = try keptDestinations(of: objects, mapping: mapping, relationship: relationship) {
            return kept
        }
        // The association table's answer is kept to the relationship's entity, and its objects
        // counted as associated (``ofCurrentRelationshipEntity``).
        relating.relationship = relationship
        return try associatedObjects(of: objects, mapping: mapping)
    }

    /// Runs `body`, its errors naming the mapping, destination object, sources and relationship.
    func withRelationshipContext(
        _ mapping: EntityMapping, _ destination: DestinationObject, _ sources: [ObjectID],
        _ relationship: Relationship, _ body: () throws -> Void
    ) throws {
        do {
            try body()
        } catch var error as MoltError {
            error.message =
                "\(mapping.name): \(destination.id) (from \(sources.map(\.description).joined(separator: ", "))): \(error.message)"
            throw error.about(entity: mapping.name, property: relationship.name)
        }
    }

    /// The work of the manager's `sourceObjects` (its documentation is there).
    func sourceObjects(for destination: DestinationObject) throws -> [SourceObject] {
        try sourceIDs(for: destination, mapping: try requireCurrentMapping()).map {
            try sourceObject($0, includingDeleted: true)
        }
    }

    func sourceIDs(for destination: DestinationObject, mapping: EntityMapping) throws -> [ObjectID] {
        try sourceIDs(for: destination, mappingNumber: try number(of: mapping.name))
    }

    /// ``sourceIDs(for:mapping:)`` by the mapping's number.
    func sourceIDs(for destination: DestinationObject, mappingNumber: Int) throws -> [ObjectID] {
        let destinationKey = try key(destination.id, in: self.destination)
        if let batch = relating.batch, batch.mapping == mappingNumber, let known = batch.sources[destinationKey.slot] {
            return known
        }
        return try associations.sources(of: destinationKey, mapping: mappingNumber).map { try objectID($0, in: source) }
    }

    // MARK: Evaluating

    func evaluationContext(
        source: ObjectID, destination: DestinationObject? = nil, relationship: Relationship? = nil
    )
        -> EvaluationContext
    {
        var variables = self.variables()
        variables["source"] = .object(ObjectReference(.source, source))
        if let destination { variables["destination"] = .object(ObjectReference(.destination, destination.id)) }
        let context = EvaluationContext(variables: variables, resolver: resolver, functions: self)
        let start = startDate
        context.now = { start }
        relating.relationship = relationship
        return context
    }

    func evaluate(
        _ expression: CompiledExpression, _ context: EvaluationContext, mapping: EntityMapping, object: ObjectID,
        property: String, at propertyMapping: PropertyMapping?
    ) throws -> ExpressionValue {
        do {
            return try expression.evaluate(context)
        } catch let error as EvaluationError {
            let location =
                propertyMapping?.origin?.location(ofOffset: error.offset, element: nil) ?? propertyMapping?.location
            throw MoltError(
                .migration,
                "\(mapping.name): \(object): the value of \(property) (\(expression.expression)) failed: \(error.message)",
                location: location, entity: mapping.name, property: property)
        } catch let error as MoltError {
            throw error
        } catch {
            throw MoltError(
                .entityMigrationPolicy, "\(mapping.name): \(object): \(property): \(error)", entity: mapping.name,
                property: property, underlying: DescribedError(error))
        }
    }

    /// The destination objects a relationship value names.
    func destinationObjects(
        in value: ExpressionValue, mapping: EntityMapping, object: ObjectID, property: String
    ) throws
        -> [DestinationObject]
    {
        switch value {
        case .null: return []
        case .object(let reference):
            guard reference.store == .destination else {
                throw MoltError(
                    .migration,
                    "\(mapping.name): \(object): \(property) was given a source object (\(reference.id)); relationships need destination objects",
                    entity: mapping.name, property: property)
            }
            return [DestinationObject(id: reference.id)]
        case .collection(let items):
            return try items.flatMap {
                try destinationObjects(in: $0, mapping: mapping, object: object, property: property)
            }
        default:
            throw MoltError(
                .migration, "\(mapping.name): \(object): \(property) was given \(value.kindName), not objects",
                entity: mapping.name, property: property)
        }
    }
}
