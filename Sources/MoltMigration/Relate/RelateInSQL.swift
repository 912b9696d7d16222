import MoltCore
import MoltMapping
import MoltModel
import MoltSQLite
import MoltStore

/// The relate pass of one entity mapping as a few SQL statements instead of one policy call
/// per destination object, when that gives the very store the object-by-object pass would.
///
/// It applies when the mapping's policy keeps the default `createRelationships` and every
/// relationship value is Core Data's own form, the one Xcode and inference write:
/// `FUNCTION($state, "destinationInstancesForEntityMappingNamed:sourceInstances:", "M", $source.rel)`
/// (or `…ForSourceRelationshipNamed:…`). Each such value is the image of the source
/// relationship's links through the association table, so for each relationship one
/// `INSERT … SELECT` joins the source store's links (the source file attached read-only) with
/// the associations, and one or two statements write the pairs to the destination's foreign
/// key column or join table, clearing links of the mapping's objects that are not among them.
///
/// Left to the other strategies (``make(_:facts:)`` gives nil, or ``run(state:skipping:)`` false
/// before writing anything): any other expression; ordered relationships, one-to-ones,
/// relationships that are their own inverse, and a relationship the mapping writes together
/// with its inverse within one hierarchy, and a relationship whose inverse another mapping
/// writes with other links (``PassFacts/sidesAgree(_:value:in:)``: their writes depend on the
/// order objects and relationships are visited); destination objects made from several sources or of several entities; and a
/// to-one whose source objects map to several destination objects (the first found wins,
/// which depends on order). Every relationship stores both of its sides in one place (a column
/// or a join table), so the images of its two sides agree and the order in which the two
/// mappings write them does not matter.
struct RelateInSQL: RelateStrategy {
    /// One destination relationship to fill.
    struct Link {
        let relationship: Relationship
        let storage: RelationshipStorage
        /// The table of the relationship's destination objects.
        let targetTable: String
        /// `SELECT s, o FROM …`: each link of the source relationship (source object's key, related
        /// object's key), in the attached source.
        let sourceLinks: String
        /// The source relationship's join table, when it has one: its name, and the columns
        /// of the source object's key and of the related object's.
        let sourceJoin: JoinColumns?
        /// The hierarchy number of the source relationship's destination, and its layout.
        let relatedRoot: Int
        let related: EntityLayout
        /// The entity mapping that made the related objects' destinations; nil for any.
        let targetMapping: Int?
        /// The entity numbers the relationship accepts.
        let targetKinds: [Int]
        /// Where the destination links are stored, and the source links read.
        let storedIn: LinkStorage
        let readFrom: LinkStorage
        /// How many related objects a source object has at most, and how many source objects
        /// a related object: 1 or nil (many).
        let sourceFanOut: Int?
        let sourceFanIn: Int?
    }

    typealias LinkStorage = RelateState.LinkStorage
    typealias Written = RelateState.Written

    /// The schema name the source store is attached under.
    static let schema = RelateState.sourceSchema

    let mapping: EntityMapping
    let number: Int
    let sourceRoot: Int
    /// The mapping's source entity in the source store, and its destination entity.
    let source: EntityLayout
    let destination: EntityLayout
    let links: [Link]

    static let kind = RelatePlan.Strategy.inSQL
    static let declinesWhen: String? =
        "a policy deletes source objects from the run's context, or the associations the copy pass makes are not one to one"

    static func plan(_ facts: RelateFacts, after declined: [String]) throws -> RelateChoice {
        if let policyRelates = facts.policyRelates { return .decline(policyRelates) }
        guard facts.options.allowsRelateInSQL else { return .decline("relationships in SQL are switched off") }
        guard let plan = try make(facts.mapping, facts: facts.pass) else {
            return .decline("SQL cannot write them exactly (order, a one-to-one, or several sources)")
        }
        return .take(plan, reason: "default relationship values, which SQL writes exactly")
    }

    var relationshipsWrittenAsASet: Set<String> { Set(links.map(\.relationship.name)) }

    /// Runs the mapping's statements; declines, having written nothing, when the objects are
    /// needed after all: SQL reads the source store's links as stored, not once a policy
    /// deleted source objects from the run's context, and ``run(state:skipping:)`` gives up
    /// when the associations need the objects.
    func relate(_ job: RelateJob) throws -> RelateResult {
        let state = job.state
        guard state.isSourceAttached else {
            return .declined("the source store is not attached to the new store's connection")
        }
        guard !state.hasDeletedSources else {
            return .declined(
                "a policy deleted source objects from the run's context, and SQL reads the links as stored")
        }
        guard try state.runInterruptibly({ try run(state: state, skipping: job.keysAtInsert) }) else {
            return .declined(
                "the associations the copy pass made are not one to one, or a to-one would get several objects from the links"
            )
        }
        try job.transaction.step()
        job.advanceAll()
        return .done
    }

    /// The plan for `mapping`'s relationships, or nil when they need the object-by-object pass.
    static func make(_ mapping: EntityMapping, facts: PassFacts) throws -> RelateInSQL? {
        let compiled = facts.compiled(mapping)
        guard let sourceName = mapping.sourceEntityName,
            let source = facts.sourceLayout.entity(named: sourceName),
            let mapped = compiled.resolved.destinationEntity,
            let destination = facts.destinationLayout.entity(named: mapped.name)
        else { return nil }
        // Two relationships of the mapping that are each other's inverse, between objects of
        // one hierarchy, write the same links from both sides: the object path's result then
        // depends on the order it sets them, which a set of links does not have.
        let names = Set(compiled.relationships.map(\.relationship.name))
        for (relationship, _, _) in compiled.relationships {
            if let inverse = facts.destinationModel.inverse(of: relationship), names.contains(inverse.name),
                PassFacts.sharesHierarchy(
                    relationship.destinationEntityName, mapped.name, in: facts.destinationModel)
            {
                return nil
            }
        }
        var links: [Link] = []
        for (relationship, expression, _) in compiled.relationships {
            guard let link = Self.link(relationship, expression, of: mapping, from: source, to: destination, facts)
            else { return nil }
            links.append(link)
        }
        return RelateInSQL(
            mapping: mapping, number: try facts.number(of: mapping.name),
            sourceRoot: facts.sourceLayout.entity(named: source.rootName)?.number ?? source.number,
            source: source, destination: destination, links: links)
    }

    /// How `relationship` of `mapping` (from `source` to `destination`), whose value is
    /// `expression`, would be written as a set, or nil when it cannot be: its value is not Core
    /// Data's default form, another mapping writes its inverse with other links, or its storage
    /// keeps an order.
    static func link(
        _ relationship: Relationship, _ expression: CompiledExpression, of mapping: EntityMapping,
        from source: EntityLayout, to destination: EntityLayout, _ facts: PassFacts
    ) -> Link? {
        guard let value = CanonicalRelationshipValue(expression.expression),
            facts.sidesAgree(relationship, value: value, in: mapping),
            let sourceLink = source.relationship(named: value.sourceRelationship),
            let destinationLink = destination.relationship(named: relationship.name),
            let sourceLinks = Self.sourceLinks(of: sourceLink, in: source),
            Self.isWritable(destinationLink, model: facts.destinationModel),
            let related = facts.sourceLayout.entity(named: sourceLink.relationship.destinationEntityName),
            let relatedRoot = facts.sourceLayout.entity(named: related.rootName)?.number,
            let targets = facts.destinationLayout.entity(named: relationship.destinationEntityName)
        else { return nil }
        var targetMapping: Int?
        if let name = value.entityMapping {
            guard let number = try? facts.number(of: name) else { return nil }
            targetMapping = number
        }
        let (fanOut, fanIn): (Int?, Int?)
        switch sourceLink.storage {
        case .foreignKey: (fanOut, fanIn) = (1, nil)
        case .inverseForeignKey: (fanOut, fanIn) = (nil, 1)
        case .joinTable: (fanOut, fanIn) = (nil, nil)
        }
        return Link(
            relationship: relationship, storage: destinationLink.storage,
            targetTable: destinationLink.destinationTable, sourceLinks: sourceLinks,
            sourceJoin: JoinColumns(sourceLink.storage), relatedRoot: relatedRoot,
            related: related, targetMapping: targetMapping, targetKinds: targets.kindNumbers,
            storedIn: LinkStorage(destinationLink, in: destination),
            readFrom: LinkStorage(sourceLink, in: source), sourceFanOut: fanOut, sourceFanIn: fanIn)
    }

    /// The links of a source relationship as `SELECT s, o`, or nil for a mirrored join table.
    static func sourceLinks(of link: RelationshipLayout, in entity: EntityLayout) -> String? {
        let schema = SQL.identifier(Self.schema)
        switch link.storage {
        case .foreignKey(let column, _, _):
            let key = SQL.identifier(column)
            return
                "SELECT \"Z_PK\" AS s, \(key) AS o FROM \(schema).\(SQL.identifier(entity.table)) WHERE \(key) IS NOT NULL"
        case .inverseForeignKey(let column, _, _):
            let key = SQL.identifier(column)
            return
                "SELECT \(key) AS s, \"Z_PK\" AS o FROM \(schema).\(SQL.identifier(link.destinationTable)) WHERE \(key) IS NOT NULL"
        case .joinTable(let table, let own, let other, _, _, let mirrored):
            guard !mirrored else { return nil }
            return
                "SELECT \(SQL.identifier(own)) AS s, \(SQL.identifier(other)) AS o FROM \(schema).\(SQL.identifier(table))"
        }
    }

    /// Whether the relationship's links can be written as a set (see the type's comment).
    static func isWritable(_ link: RelationshipLayout, model: ObjectModel) -> Bool {
        switch link.storage {
        case .foreignKey(_, _, let order):
            return order == nil && model.inverse(of: link.relationship).map(\.isToMany) != false
        case .inverseForeignKey(_, _, let order):
            return order == nil
        case .joinTable(_, _, _, let order, let inverseOrder, let mirrored):
            return order == nil && inverseOrder == nil && !mirrored
        }
    }
}
