import MoltModel

/// Works out a ``StoreLayout`` step by step: numbers, tables and columns, join tables, then
/// each entity's view of where its properties live.
struct LayoutBuilder {
    let model: ObjectModel
    var numbers: [String: Int] = [:]
    var order: [Entity] = []
    var tableNames = NameUniquifier(reserved: ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"])
    var indexNames = NameUniquifier()
    /// Column of each (declaring entity, property) in its table.
    var columns: [PropertyKey: String] = [:]
    var entityColumns: [PropertyKey: String] = [:]
    /// Order column in the destination table, keyed by the to-one that holds the key.
    var orderColumns: [PropertyKey: String] = [:]
    var joins: [PropertyKey: RelationshipStorage] = [:]
    var tableOfRoot: [String: String] = [:]

    var entityLayouts: [EntityLayout] = []
    var tableLayouts: [TableLayout] = []
    var joinTableLayouts: [JoinTableLayout] = []

    struct PropertyKey: Hashable {
        let entity: String
        let property: String
    }

    init(model: ObjectModel) {
        self.model = model
    }

    mutating func build() {
        numberEntities()
        for root in model.rootEntities {
            tableOfRoot[root.name] = tableNames.claim(ColumnNaming.table(forRootEntity: root.name))
        }
        for root in model.rootEntities {
            buildTable(for: root)
        }
        buildJoinTables()
        for entity in order {
            entityLayouts.append(layout(of: entity))
        }
    }

    // MARK: Numbers

    mutating func numberEntities() {
        func visit(_ entity: Entity) {
            guard numbers[entity.name] == nil else { return }
            order.append(entity)
            numbers[entity.name] = order.count
            for child in model.subentities(of: entity) { visit(child) }
        }
        for root in model.rootEntities { visit(root) }
    }

    func number(_ name: String) -> Int { numbers[name] ?? 0 }

    func hasSubentities(_ name: String) -> Bool {
        guard let entity = model.entity(named: name) else { return false }
        return !model.subentities(of: entity).isEmpty
    }

    func tableOf(_ name: String) -> String {
        guard let entity = model.entity(named: name) else { return "" }
        return tableOfRoot[model.root(of: entity).name] ?? ""
    }

    /// The relationship's inverse, if it exists.
    func inverse(of relationship: Relationship) -> Relationship? {
        model.inverse(of: relationship)
    }

    func declaring(_ relationship: Relationship, inverseOf other: Relationship) -> String {
        guard let destination = model.entity(named: other.destinationEntityName) else {
            return other.destinationEntityName
        }
        return model.declaringEntity(ofRelationship: relationship.name, in: destination)?.name ?? destination.name
    }

    // MARK: Entity tables

    /// A column wanted in a table, before names are final.
    struct ColumnRequest {
        let group: Int
        let rank: Int  // 0 attribute, 1 key, 2 entity column, 3 order column
        /// The property's name (a composite's, for its leaves).
        let property: String
        /// A leaf's place in its composite; 0 for every other column.
        var leafOrder = 0
        let entityNumber: Int
        var name: String
        let type: String
    }

    mutating func buildTable(for root: Entity) {
        let table = tableOfRoot[root.name]!
        var names = NameUniquifier(reserved: ["Z_PK", "Z_ENT", "Z_OPT"])
        var requests: [ColumnRequest] = []
        var indexes: [IndexLayout] = []
        let hierarchy = [root] + model.descendants(of: root)

        for entity in hierarchy {
            let entityNumber = number(entity.name)
            // By name, a composite's leaves in its place (depth first, in element order), each
            // column named from the leaf's own name.
            let declared = entity.attributes.sorted(by: { NameOrder.precedes($0.name, $1.name) })
            for top in declared where !top.isTransient {
                let stored = top.type == .composite ? model.leaves(of: top) : [top]
                for (leafOrder, attribute) in stored.enumerated() {
                    guard let type = AttributeStorage.columnType(for: attribute.type) else { continue }
                    let name = names.claim(ColumnNaming.column(forProperty: String(attribute.ownName)))
                    columns[PropertyKey(entity: entity.name, property: attribute.name)] = name
                    requests.append(
                        ColumnRequest(
                            group: AttributeStorage.columnGroup(forColumnType: type), rank: 0, property: top.name,
                            leafOrder: leafOrder, entityNumber: entityNumber, name: name, type: type))
                    if attribute.isIndexed {
                        indexes.append(
                            IndexLayout(
                                name: indexNames.claim(ColumnNaming.index(table: table, column: name)), table: table,
                                columns: [name]))
                    }
                }
            }
            for relationship in entity.relationships.sorted(by: { NameOrder.precedes($0.name, $1.name) })
            where !relationship.isTransient && !relationship.isToMany {
                let key = PropertyKey(entity: entity.name, property: relationship.name)
                // A relationship's INTEGER columns: rank 1 the key, 2 the entity, 3 the order.
                func addColumn(_ base: String, rank: Int) -> String {
                    let name = names.claim(base)
                    requests.append(
                        ColumnRequest(
                            group: 0, rank: rank, property: relationship.name, entityNumber: entityNumber, name: name,
                            type: "INTEGER"))
                    return name
                }
                let name = addColumn(ColumnNaming.column(forProperty: relationship.name), rank: 1)
                columns[key] = name
                indexes.append(
                    IndexLayout(
                        name: indexNames.claim(ColumnNaming.index(table: table, column: name)), table: table,
                        columns: [name]))
                if hasSubentities(relationship.destinationEntityName) {
                    entityColumns[key] = addColumn(
                        ColumnNaming.entityColumn(
                            destinationNumber: number(relationship.destinationEntityName),
                            relationship: relationship.name), rank: 2)
                }
                if let inverse = inverse(of: relationship), inverse.isToMany, inverse.isOrdered {
                    orderColumns[key] = addColumn(ColumnNaming.orderColumn(orderingKeysIn: name), rank: 3)
                }
            }
        }

        // Fetch indexes, once the columns are named.
        for entity in hierarchy {
            for fetchIndex in entity.fetchIndexes where fetchIndex.elements.allSatisfy({ $0.kind == "Binary" }) {
                let indexColumns = fetchIndex.elements.compactMap { element -> String? in
                    let owner = (model.ancestors(of: entity).reversed() + [entity]).last {
                        $0.attribute(named: element.property) != nil || $0.relationship(named: element.property) != nil
                    }
                    return owner.flatMap { columns[PropertyKey(entity: $0.name, property: element.property)] }
                }
                guard indexColumns.count == fetchIndex.elements.count, !indexColumns.isEmpty else { continue }
                indexes.append(
                    IndexLayout(
                        name: indexNames.claim(ColumnNaming.fetchIndex(entity: entity.name, index: fetchIndex.name)),
                        table: table, columns: indexColumns, isDescending: fetchIndex.elements.map { !$0.isAscending }))
            }
        }

        requests.sort { a, b in
            if a.group != b.group { return a.group < b.group }
            if (a.rank == 0) != (b.rank == 0) { return a.rank == 0 }
            if a.rank == 3 || b.rank == 3, a.rank != b.rank { return b.rank == 3 }
            if a.property != b.property { return NameOrder.precedes(a.property, b.property) }
            if a.entityNumber != b.entityNumber { return a.entityNumber < b.entityNumber }
            if a.leafOrder != b.leafOrder { return a.leafOrder < b.leafOrder }
            return a.rank < b.rank
        }
        let fixed = [
            ColumnLayout(name: "Z_PK", type: "INTEGER"), ColumnLayout(name: "Z_ENT", type: "INTEGER"),
            ColumnLayout(name: "Z_OPT", type: "INTEGER"),
        ]
        tableLayouts.append(
            TableLayout(
                name: table, rootEntity: root.name,
                columns: fixed + requests.map { ColumnLayout(name: $0.name, type: $0.type) }, indexes: indexes))
    }

    // MARK: Join tables

    mutating func buildJoinTables() {
        var done: Set<PropertyKey> = []
        for entity in order {
            for relationship in entity.relationships.sorted(by: { NameOrder.precedes($0.name, $1.name) })
            where !relationship.isTransient && relationship.isToMany {
                let key = PropertyKey(entity: entity.name, property: relationship.name)
                guard !done.contains(key) else { continue }
                let inverse = inverse(of: relationship)
                if let inverse, !inverse.isToMany { continue }  // stored by the inverse's key column
                done.insert(key)
                guard let inverse else {
                    addJoinTable(naming: relationship, on: entity.name, other: nil, otherOn: nil)
                    continue
                }
                let inverseOwner = declaring(inverse, inverseOf: relationship)
                let inverseKey = PropertyKey(entity: inverseOwner, property: inverse.name)
                done.insert(inverseKey)
                let isSelf = inverseKey == key
                if isSelf || ColumnNaming.namesJoinTable(relationship.name, over: inverse.name) {
                    addJoinTable(
                        naming: relationship, on: entity.name, other: isSelf ? relationship : inverse,
                        otherOn: inverseOwner)
                } else {
                    addJoinTable(naming: inverse, on: inverseOwner, other: relationship, otherOn: entity.name)
                }
            }
        }
    }

    mutating func addJoinTable(
        naming: Relationship, on owner: String, other: Relationship?, otherOn otherOwner: String?
    ) {
        let table = tableNames.claim(ColumnNaming.joinTable(entityNumber: number(owner), relationship: naming.name))
        var names = NameUniquifier()
        let isSelf = other.map { $0.name == naming.name && otherOwner == owner } ?? false
        let first: String
        let second: String
        if let other, let otherOwner {
            first = names.claim(ColumnNaming.joinColumn(entityNumber: number(owner), relationship: other.name))
            second = names.claim(ColumnNaming.joinColumn(entityNumber: number(otherOwner), relationship: naming.name))
        } else {
            first = names.claim(ColumnNaming.joinColumn(entityNumber: number(owner), relationship: naming.name))
            second = names.claim(
                ColumnNaming.joinColumn(entityNumber: number(naming.destinationEntityName), relationship: naming.name))
        }
        // The naming side's links are ordered by a column named after the keys it orders.
        let namingOrder = naming.isOrdered ? names.claim(ColumnNaming.orderColumn(orderingKeysIn: second)) : nil
        let otherOrder =
            (!isSelf && other?.isOrdered == true)
            ? names.claim(ColumnNaming.orderColumn(orderingKeysIn: first)) : nil

        joins[PropertyKey(entity: owner, property: naming.name)] = .joinTable(
            table: table, ownColumn: first, otherColumn: second, orderColumn: namingOrder,
            inverseOrderColumn: isSelf ? nil : otherOrder, mirrored: isSelf)
        if let other, let otherOwner, !isSelf {
            joins[PropertyKey(entity: otherOwner, property: other.name)] = .joinTable(
                table: table, ownColumn: second, otherColumn: first, orderColumn: otherOrder,
                inverseOrderColumn: namingOrder, mirrored: false)
        }
        let index = IndexLayout(
            name: indexNames.claim(ColumnNaming.index(table: table, column: second)), table: table,
            columns: [second, first])
        joinTableLayouts.append(
            JoinTableLayout(
                name: table, namingRelationship: "\(owner).\(naming.name)",
                inverseRelationship: other.map { "\(otherOwner ?? owner).\($0.name)" }, firstColumn: first,
                secondColumn: second, orderColumns: [namingOrder, otherOrder].compactMap { $0 }, index: index))
    }

    // MARK: Per-entity view

    func layout(of entity: Entity) -> EntityLayout {
        let lineage = model.ancestors(of: entity).reversed() + [entity]
        var attributes: [AttributeColumn] = []
        var relationships: [RelationshipLayout] = []
        for owner in lineage {
            for attribute in model.storedAttributes(declaredBy: owner) where !attribute.isTransient {
                if let column = columns[PropertyKey(entity: owner.name, property: attribute.name)] {
                    attributes.append(AttributeColumn(attribute: attribute, column: column))
                }
            }
            for relationship in owner.relationships where !relationship.isTransient {
                relationships.append(relationshipLayout(relationship, declaredBy: owner.name))
            }
        }
        let descendants = model.descendants(of: entity)
        return EntityLayout(
            name: entity.name, number: number(entity.name),
            superNumber: entity.parentName.map { number($0) } ?? 0, isAbstract: entity.isAbstract,
            rootName: model.root(of: entity).name, table: tableOf(entity.name),
            kindNumbers: ([entity] + descendants).map { number($0.name) }, attributes: attributes,
            relationships: relationships)
    }

    func relationshipLayout(_ relationship: Relationship, declaredBy owner: String) -> RelationshipLayout {
        let key = PropertyKey(entity: owner, property: relationship.name)
        let storage: RelationshipStorage
        if !relationship.isToMany {
            storage = .foreignKey(
                column: columns[key]!, entityColumn: entityColumns[key], orderColumn: orderColumns[key])
        } else if let inverse = inverse(of: relationship), !inverse.isToMany {
            let inverseKey = PropertyKey(entity: declaring(inverse, inverseOf: relationship), property: inverse.name)
            storage = .inverseForeignKey(
                column: columns[inverseKey]!, entityColumn: entityColumns[inverseKey],
                orderColumn: relationship.isOrdered ? orderColumns[inverseKey] : nil)
        } else {
            storage = joins[key]!
        }
        let destination = relationship.destinationEntityName
        return RelationshipLayout(
            relationship: relationship, declaringEntity: owner, destinationNumber: number(destination),
            destinationTable: tableOf(destination), destinationHasSubentities: hasSubentities(destination),
            storage: storage)
    }
}
