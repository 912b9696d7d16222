public import Foundation
internal import MoltCore
internal import MoltModel

/// Reads a seed file in Molt's JSON (see ``ObjectsJSON``) and inserts its objects.
///
/// Everything is checked against the model, and every error names the file, the line, the
/// entity, the object and the property: unknown entities and properties, values of the wrong
/// type, a missing value for a non-optional attribute without a default, ids used twice or
/// referred to but never defined, relationships to the wrong entity, and the two sides of a
/// relationship disagreeing.
///
/// Objects are inserted in entity-name order, in file order within an entity; objects whose
/// `@id` fixes their primary key go first, so the others' keys never collide with them. Then
/// to-one relationships are set, then to-many ones (which also fix the order of ordered ones),
/// then every relationship the file gives is read back and compared. Last, the objects are
/// checked against the model's rules, as a migration's validate pass checks them (required
/// values and relationships, counts, ranges, lengths, patterns, uniqueness constraints): a
/// seed that breaks them is refused, naming the object, rather than making a store that
/// only a later migration would find fault with.
public struct ObjectsJSONImporter {
    /// Called with the import's progress, on the importing thread.
    public var progress: ((SeedProgress) -> Void)?
    /// Called every few hundred objects and between passes: throwing (a cancellation, say)
    /// stops the import with that error. The store being made is then not made.
    public var checkCancelled: (() throws -> Void)?

    public init() {}

    /// Inserts the objects of the seed `data` (named `file` in errors) with `writer`, and
    /// returns how many objects of each entity were inserted.
    @discardableResult
    public func importObjects(from data: Data, file: String, into writer: ObjectWriter) throws -> [String: Int] {
        var run = ImportRun(
            file: file, writer: writer, ticker: SeedTicker(progress: progress, checkCancelled: checkCancelled))
        try run.ticker.tick(.read, 0, 1)
        try run.readDocument(try JSONParser().parse(data, file: file))
        try run.ticker.tick(.read, 1, 1)
        try run.insertObjects()
        try run.setRelationships(toMany: false)
        try run.setRelationships(toMany: true)
        try run.verifyRelationships()
        try run.checkRules()
        return run.counts
    }
}

/// One seed being read and inserted (the rules it is checked against are in
/// `ObjectsJSONImporter+Rules.swift`).
struct ImportRun {
    struct SeedObject {
        let entity: EntityLayout
        let localID: String?
        let line: Int
        let members: [String: JSONNode]
        var id: ObjectID?
    }

    let file: String
    let writer: ObjectWriter
    var objects: [SeedObject] = []
    var idsByLocal: [String: Int] = [:]
    var counts: [String: Int] = [:]
    var ticker: SeedTicker

    init(file: String, writer: ObjectWriter, ticker: SeedTicker = SeedTicker(progress: nil, checkCancelled: nil)) {
        self.file = file
        self.writer = writer
        self.ticker = ticker
    }

    func error(_ message: String, line: Int, entity: String? = nil, property: String? = nil) -> MoltError {
        MoltError(
            .fileReadCorruptFile, message, location: SourceLocation(file: file, line: line), entity: entity,
            property: property)
    }

    /// `Author "a1"` or `Author #3` (the 3rd Author in the file) for messages.
    func name(of object: SeedObject, index: Int) -> String {
        object.localID.map { "object \"\($0)\"" } ?? "object at line \(object.line)"
    }

    // MARK: Reading

    mutating func readDocument(_ root: JSONNode) throws {
        guard case .object(let members) = root.kind else {
            throw error("the seed must be a JSON object with an \"entities\" key", line: root.line)
        }
        var entitiesNode: JSONNode?
        for member in members {
            switch member.key {
            case "format":
                guard member.value.stringValue == ObjectsJSON.formatName else {
                    throw error("\"format\" must be \"\(ObjectsJSON.formatName)\"", line: member.value.line)
                }
            case "version":
                guard member.value.kind == .number(String(ObjectsJSON.formatVersion)) else {
                    throw error(
                        "\"version\" must be \(ObjectsJSON.formatVersion); this Molt reads no other",
                        line: member.value.line)
                }
            case "entities":
                entitiesNode = member.value
            default:
                throw error(
                    "unknown key \"\(member.key)\" (expected \"entities\", \"format\" and \"version\")",
                    line: member.value.line)
            }
        }
        guard let entitiesNode else { throw error("the seed has no \"entities\" key", line: root.line) }
        guard case .object(let entityMembers) = entitiesNode.kind else {
            throw error("\"entities\" must be an object of entity name → array of objects", line: entitiesNode.line)
        }
        for member in entityMembers.sorted(by: { NameOrder.precedes($0.key, $1.key) }) {
            guard let entity = writer.layout.entity(named: member.key) else {
                let known = writer.layout.entities.map(\.name).sorted(by: NameOrder.precedes).joined(separator: ", ")
                throw error("the model has no entity \"\(member.key)\" (it has: \(known))", line: member.value.line)
            }
            guard case .array(let items) = member.value.kind else {
                throw error(
                    "the objects of \(member.key) must be an array", line: member.value.line, entity: member.key)
            }
            if entity.isAbstract, !items.isEmpty {
                throw error(
                    "the entity is abstract: list its objects under their sub-entities", line: member.value.line,
                    entity: member.key)
            }
            for item in items {
                try readObject(item, entity: entity)
            }
        }
    }

    mutating func readObject(_ node: JSONNode, entity: EntityLayout) throws {
        guard case .object(let members) = node.kind else {
            throw error("each object must be a JSON object, not \(node.kindName)", line: node.line, entity: entity.name)
        }
        var byKey: [String: JSONNode] = [:]
        var localID: String?
        for member in members {
            if member.key == "@id" {
                guard let text = member.value.stringValue, !text.isEmpty else {
                    throw error("\"@id\" must be a non-empty string", line: member.value.line, entity: entity.name)
                }
                localID = text
                continue
            }
            let leafPrefix = member.key + "."
            if entity.attribute(named: member.key) == nil,
                entity.attributes.contains(where: { $0.attribute.name.hasPrefix(leafPrefix) })
            {
                do {
                    try CompositeJSON.flatten(
                        member.value, at: member.key, leaves: entity.attributes.map(\.attribute.name), into: &byKey)
                } catch let failure as MoltError {
                    throw error(failure.message, line: member.value.line, entity: entity.name, property: member.key)
                }
                continue
            }
            guard entity.attribute(named: member.key) != nil || entity.relationship(named: member.key) != nil else {
                let known = (entity.attributes.map(\.attribute.name) + entity.relationships.map(\.relationship.name))
                    .sorted(by: NameOrder.precedes).joined(separator: ", ")
                throw error(
                    "the entity has no stored property \"\(member.key)\" (it has: \(known))", line: member.value.line,
                    entity: entity.name)
            }
            byKey[member.key] = member.value
        }
        if let localID {
            guard idsByLocal[localID] == nil else {
                throw error("the @id \"\(localID)\" is used by two objects", line: node.line, entity: entity.name)
            }
            idsByLocal[localID] = objects.count
        }
        objects.append(SeedObject(entity: entity, localID: localID, line: node.line, members: byKey))
    }

    // MARK: Inserting

    /// The primary key an `@id` of the form `Entity/N` fixes, when Entity is the object's own.
    func fixedKey(_ object: SeedObject) -> Int64? {
        guard let localID = object.localID, let id = ObjectID(localID), id.entity == object.entity.name else {
            return nil
        }
        return id.primaryKey
    }

    mutating func insertObjects() throws {
        let fixedFirst =
            objects.indices.filter { fixedKey(objects[$0]) != nil }
            + objects.indices.filter { fixedKey(objects[$0]) == nil }
        for (done, index) in fixedFirst.enumerated() {
            try ticker.tick(.insert, done, fixedFirst.count)
            let object = objects[index]
            var values: [String: AttributeValue] = [:]
            for column in object.entity.attributes {
                let attribute = column.attribute
                let value: AttributeValue?
                if let node = object.members[attribute.name] {
                    do {
                        value = try AttributeValue.read(json: node, as: attribute.type)
                    } catch let failure as MoltError {
                        throw error(
                            "\(name(of: object, index: index)): \(failure.message)", line: node.line,
                            entity: object.entity.name, property: attribute.name)
                    }
                } else {
                    value = AttributeValue(defaultOf: attribute)
                }
                if let value {
                    values[attribute.name] = value
                } else if !attribute.isOptional {
                    throw error(
                        "\(name(of: object, index: index)): the attribute is not optional and has no default value; give it a value",
                        line: object.members[attribute.name]?.line ?? object.line, entity: object.entity.name,
                        property: attribute.name)
                }
            }
            do {
                objects[index].id = try writer.insert(
                    object.entity.name, attributes: values, primaryKey: fixedKey(object), applyingDefaults: false)
            } catch let failure as MoltError {
                throw error(
                    "\(name(of: object, index: index)): \(failure.message)", line: object.line,
                    entity: object.entity.name)
            }
            counts[object.entity.name, default: 0] += 1
        }
        try ticker.tick(.insert, fixedFirst.count, fixedFirst.count)
    }

    // MARK: Relationships

    func resolve(_ node: JSONNode, from object: SeedObject, relationship: String) throws -> ObjectID {
        guard let text = node.stringValue else {
            throw error(
                "a related object must be given by its @id (a string), not \(node.kindName)", line: node.line,
                entity: object.entity.name, property: relationship)
        }
        guard let index = idsByLocal[text], let id = objects[index].id else {
            throw error(
                "no object in the seed has the @id \"\(text)\"", line: node.line, entity: object.entity.name,
                property: relationship)
        }
        return id
    }

    func relationshipValue(
        _ node: JSONNode, of object: SeedObject, link: RelationshipLayout
    ) throws -> RelationshipValue {
        let name = link.relationship.name
        if link.relationship.isToMany {
            guard case .array(let items) = node.kind else {
                throw error(
                    "a to-many relationship takes an array of @ids, not \(node.kindName)", line: node.line,
                    entity: object.entity.name, property: name)
            }
            return .toMany(try items.map { try resolve($0, from: object, relationship: name) })
        }
        if node.isNull { return .toOne(nil) }
        return .toOne(try resolve(node, from: object, relationship: name))
    }

    /// Sets the to-ones (`toMany` false) or the to-manys of every object: the relate pass's
    /// first and second half.
    mutating func setRelationships(toMany: Bool) throws {
        let total = objects.count * 2
        let start = toMany ? objects.count : 0
        for (index, object) in objects.enumerated() {
            try ticker.tick(.relate, start + index, total)
            for link in object.entity.relationships where link.relationship.isToMany == toMany {
                guard let node = object.members[link.relationship.name] else { continue }
                let value = try relationshipValue(node, of: object, link: link)
                do {
                    try writer.set(object.id!, link.relationship.name, to: value)
                } catch let failure as MoltError {
                    throw error(
                        "\(name(of: object, index: index)): \(failure.message)", line: node.line,
                        entity: object.entity.name, property: link.relationship.name)
                }
            }
        }
        try ticker.tick(.relate, start + objects.count, total)
    }

    /// The seed's own @ids for `ids`, for messages.
    func localNames(_ ids: [ObjectID]) -> String {
        let local = Dictionary(
            objects.compactMap { object in object.id.map { ($0, object.localID ?? $0.description) } },
            uniquingKeysWith: { a, _ in a })
        return ids.map { "\"\(local[$0] ?? $0.description)\"" }.joined(separator: ", ")
    }

    /// Reads back every relationship the seed gave and checks it holds what the seed said;
    /// a difference means the seed's two sides of a relationship disagree.
    mutating func verifyRelationships() throws {
        for (index, object) in objects.enumerated() {
            try ticker.tick(.verify, index, objects.count)
            let given = object.entity.relationships.filter { object.members[$0.relationship.name] != nil }
            guard !given.isEmpty, let stored = try writer.object(object.id!) else { continue }
            for link in given {
                let property = link.relationship.name
                let node = object.members[property]!
                let expected = try relationshipValue(node, of: object, link: link)
                let actual = stored.relationships[property] ?? (link.relationship.isToMany ? .toMany([]) : .toOne(nil))
                let same: Bool
                if link.relationship.isToMany && !link.relationship.isOrdered {
                    same = Set(expected.objectIDs) == Set(actual.objectIDs)
                } else {
                    same = expected.objectIDs == actual.objectIDs
                }
                guard same else {
                    let inverse =
                        link.relationship.inverseName.map {
                            "; check \(link.relationship.destinationEntityName).\($0) on the other side"
                        } ?? ""
                    throw error(
                        "\(name(of: object, index: index)): the seed gives [\(localNames(expected.objectIDs))] but the other side of the relationship leaves [\(localNames(actual.objectIDs))]\(inverse)",
                        line: node.line, entity: object.entity.name, property: property)
                }
            }
        }
        try ticker.tick(.verify, objects.count, objects.count)
    }
}
