internal import Foundation
internal import MoltCore

/// Reads one entity mapping object (`XDDEVENTITYMAPPING`) of an `xcmapping.xml` and its
/// property mappings; the rules are listed on ``XcodeMappingReader``.
struct XcodeEntityMappingReader {
    let document: XcodeMappingDocument
    let object: XcodeStoreObject

    func entityMapping() throws -> EntityMapping {
        let location = document.location(of: object)
        let source = document.string("sourcename", of: object)
        let destination = document.string("destinationname", of: object)
        guard let name = document.string("name", of: object) ?? Self.defaultName(source, destination) else {
            throw MoltError(
                .fileReadCorruptFile, "entity mapping \(object.id) has neither a source nor a destination entity",
                location: location)
        }
        let policyName = document.string("migrationpolicyclassname", of: object).flatMap { $0.isEmpty ? nil : $0 }
        let kind = try self.kind(source: source, destination: destination, policy: policyName, mapping: name)
        var mapping = EntityMapping(
            name: name, kind: kind, sourceEntityName: kind == .add ? nil : source,
            destinationEntityName: kind == .remove ? nil : destination,
            policyName: policyName, location: location)
        if let (data, attribute) = try binary("userinfodata", of: object, mapping: name) {
            mapping.userInfo = try ArchivedUserInfo.entries(
                from: data, place: place(attribute, "the user info", mapping: name))
        }
        // Core Data makes no objects for add and remove mappings: their fetch and property
        // mappings never run.
        if kind != .add, kind != .remove {
            if let (data, attribute) = try binary("sourceexpressiondata", of: object, mapping: name) {
                mapping.filter = try ArchivedSourceFetch.filter(
                    from: data, sourceEntity: source, place: place(attribute, "the source fetch", mapping: name))
            }
            var seen: Set<String> = []
            mapping.attributeMappings = try properties(
                "attributemappings", type: "XDDEVATTRIBUTEMAPPING", mapping: name, seen: &seen)
            mapping.relationshipMappings = try properties(
                "relationshipmappings", type: "XDDEVRELATIONSHIPMAPPING", mapping: name, seen: &seen)
            if kind == .copy, !mapping.attributeMappings.isEmpty || !mapping.relationshipMappings.isEmpty {
                mapping.kind = .transform
            }
        }
        if let problem = EntityMappingRules.problems(of: mapping).first(where: { $0.severity == .error }) {
            throw MoltError(.fileReadCorruptFile, problem.message, location: location, entity: name)
        }
        return mapping
    }

    /// The mapping's kind, from `mappingtypename`; `Undefined` (or none) is custom with a
    /// policy, otherwise it comes from the entities.
    func kind(source: String?, destination: String?, policy: String?, mapping: String) throws -> EntityMapping.Kind {
        let attribute = object.attributes["mappingtypename"]
        let typeName = document.string("mappingtypename", of: object)
        switch typeName?.lowercased() {
        case nil, "undefined":
            if policy != nil { return .custom }
            if source == nil { return .add }
            if destination == nil { return .remove }
            return .transform
        case "add": return .add
        case "remove": return .remove
        case "copy": return .copy
        case "transform": return .transform
        case "custom": return .custom
        case .some:
            throw MoltError(
                .fileReadCorruptFile,
                "mappingtypename is \"\(typeName ?? "")\"; Molt knows Undefined, Custom, Add, Remove, Copy and Transform",
                location: attribute.map { document.location(of: $0) } ?? document.location(of: object), entity: mapping)
        }
    }

    /// The property mappings the list `list` names: those with a value expression, in order.
    /// One without is Xcode's default, which Molt infers (see ``XcodeMappingReader``).
    func properties(
        _ list: String, type: String, mapping: String, seen: inout Set<String>
    ) throws -> [PropertyMapping] {
        var result: [PropertyMapping] = []
        for target in try document.targets(of: list, in: object, type: type) {
            let location = document.location(of: target)
            let kind = type == "XDDEVATTRIBUTEMAPPING" ? "attribute" : "relationship"
            guard let property = document.string("name", of: target) else {
                throw MoltError(
                    .fileReadCorruptFile, "\(kind) mapping \(target.id) has no name", location: location,
                    entity: mapping)
            }
            guard seen.insert(property).inserted else {
                throw MoltError(
                    .fileReadCorruptFile, "\"\(property)\" is mapped twice", location: location, entity: mapping,
                    property: property)
            }
            if let (data, attribute) = try binary("userinfodata", of: target, mapping: mapping, property: property),
                try !ArchivedUserInfo.entries(
                    from: data, place: place(attribute, "the user info", mapping: mapping, property: property)
                ).isEmpty
            {
                throw MoltError(
                    .fileReadCorruptFile,
                    "the \(kind) mapping has user info, which Molt's property mappings cannot hold",
                    location: document.location(of: attribute), entity: mapping, property: property,
                    recovery: "Move the entries to the entity mapping's user info.")
            }
            guard
                let (data, attribute) = try binary(
                    "valueexpressiondata", of: target, mapping: mapping, property: property)
            else { continue }
            var decoder = ArchivedExpressionDecoder(
                place: place(attribute, "the value expression", mapping: mapping, property: property))
            let expression = try decoder.expression(from: data)
            let value: PropertyMapping.Value =
                expression.kind == .constant(.null) ? .noValue : .expression(expression)
            result.append(PropertyMapping(name: property, value: value, location: location))
        }
        return result
    }

    /// The binary attribute `name` of `target`; an error names the mapping and property.
    func binary(
        _ name: String, of target: XcodeStoreObject, mapping: String, property: String? = nil
    ) throws -> (data: Data, attribute: XcodeStoreAttribute)? {
        do {
            return try document.binary(name, of: target)
        } catch let error as MoltError {
            throw error.about(entity: mapping, property: property)
        }
    }

    func place(
        _ attribute: XcodeStoreAttribute, _ subject: String, mapping: String, property: String? = nil
    ) -> ArchivePlace {
        ArchivePlace(
            location: document.location(of: attribute), mapping: mapping, property: property, subject: subject,
            field: attribute.name)
    }

    /// Core Data's name for a mapping between two entities (`NoteToNote`); with one entity,
    /// the name Molt's inference gives (`AddTag`, `RemoveTag`).
    static func defaultName(_ source: String?, _ destination: String?) -> String? {
        switch (source, destination) {
        case (let source?, let destination?): "\(source)To\(destination)"
        case (nil, let destination?): "Add\(destination)"
        case (let source?, nil): "Remove\(source)"
        case (nil, nil): nil
        }
    }
}
