public import MoltModel

/// Why a mapping cannot be inferred between two model versions, and what to do about it.
public struct InferenceReason: Sendable, Hashable, CustomStringConvertible {
    /// The destination entity concerned.
    public var entity: String
    /// The destination property concerned, if the reason is about one.
    public var property: String?
    public var message: String
    /// What the developer can do: write a mapping file, add a renaming identifier, add a default…
    public var suggestion: String

    public init(entity: String, property: String? = nil, message: String, suggestion: String) {
        self.entity = entity
        self.property = property
        self.message = message
        self.suggestion = suggestion
    }

    /// `Entity.property: message — suggestion`.
    public var description: String {
        "\(entity)\(property.map { ".\($0)" } ?? ""): \(message) — \(suggestion)"
    }
}

/// An inferred mapping, or the reasons there is none.
public enum InferenceResult: Sendable {
    case inferred(MappingModel)
    case impossible([InferenceReason])

    public var mapping: MappingModel? {
        if case .inferred(let mapping) = self { return mapping }
        return nil
    }

    public var reasons: [InferenceReason] {
        if case .impossible(let reasons) = self { return reasons }
        return []
    }
}

/// Infers the mapping between two model versions, as Core Data's lightweight migration does,
/// or says exactly why it cannot.
///
/// Entities and properties correspond by renaming identifier (Xcode's `elementID`), then by
/// name, then by the same renaming identifier. A renaming identifier is kept across versions,
/// so a model can be inferred from any earlier version however many renames lie between.
///
/// Inferred:
/// - attributes and relationships added (a new non-optional attribute needs a default value; a
///   new relationship starts empty, which a non-optional to-many without a `minCount` may be)
///   or removed; a non-optional attribute becoming optional; an optional attribute becoming
///   non-optional when it has a default (`coalesce($source.x, default)`: empty values take it);
/// - entities, attributes and relationships renamed through renaming identifiers;
/// - entities added (an `add` mapping) and removed (a `remove` mapping);
/// - to-one → to-many, ordered ↔ unordered, and to-many → to-one. The last is a model change
///   inference accepts, but at migration time an object that holds more than one related
///   object stops the migration with an error naming that object: nothing says which one to
///   keep, so a mapping file must decide;
/// - new parent and child entities, attributes moving up or down a hierarchy, an entity
///   leaving a hierarchy, and a root entity (with its sub-entities) moving under an existing
///   root entity whose hierarchy holds no other existing entity;
/// - the type changes of ``TypeChanges``.
///
/// Refused, each with a reason naming the entity (and property) and what to do:
/// - a new non-optional attribute without a default, or an optional attribute becoming
///   non-optional without one; a new relationship that may not be empty (a non-optional
///   to-one, or a `minCount` above 0), or a relationship whose rule becomes stricter
///   (``/MoltModel/Relationship/isStricter(than:)``);
/// - any other type change;
/// - a relationship that now leads to an entity its old objects do not become;
/// - one source entity feeding two destination entities; a concrete entity becoming abstract;
/// - merging hierarchies, Core Data's rule: if two existing entities share no common parent in
///   the source, they cannot share one in the destination. Inference refuses two existing
///   entities that both descend from one entity in the destination when they were in
///   separate hierarchies in the source (a new parent over two former roots; a root moved
///   under an entity that already has another existing sub-entity).
///
/// ```swift
/// switch MappingInference.infer(from: v1, to: v2) {
/// case .inferred(let mapping): print(MappingWriter().text(of: mapping))
/// case .impossible(let reasons): reasons.forEach { print($0) }
/// }
/// ```
public enum MappingInference {
    public static func infer(from source: ObjectModel, to destination: ObjectModel) -> InferenceResult {
        var run = InferenceRun(source: source, destination: destination)
        let mapping = run.infer()
        return run.reasons.isEmpty ? .inferred(mapping) : .impossible(run.reasons)
    }

    /// The source entity a destination entity comes from: the one named by its renaming
    /// identifier, else the one with its name, else the one with the same renaming identifier.
    public static func sourceEntity(for entity: Entity, in source: ObjectModel) -> Entity? {
        if let identifier = entity.renamingIdentifier, let found = source.entity(named: identifier) { return found }
        if let found = source.entity(named: entity.name) { return found }
        return source.entities.first { $0.canonicalName == entity.canonicalName }
    }
}
