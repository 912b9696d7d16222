/// Composite attributes as the store keeps them: one leaf per element that is not itself a
/// composite, nested composites flattened depth first in element order (as Core Data's SQL
/// layer flattens them).
///
/// A leaf is listed as an ordinary ``Attribute`` named by its path from the entity
/// (`home.city`, `home.geo.latitude`), so that everything that reads or writes values (the
/// store layout, mapping expressions, validation, JSON) handles it like any attribute:
/// - its type, bounds, default value and user info are the element's own;
/// - it is optional when the element or any composite on its path is optional (a composite
///   left empty has all its leaves empty; assumed, Core Data's rule for a present composite
///   with an empty required element is not established);
/// - it is transient when the entity's composite attribute is (only that flag counts, as in
///   Core Data's SQL layer);
/// - its renaming identifier is the path of the renaming identifiers (each part's
///   ``Attribute/canonicalName``), so that a renamed composite or element is matched as Core
///   Data's inferred mapping matches it, and nil when the path has no renamed part.
extension ObjectModel {
    /// The entity's own attributes as stored, in file order: each composite attribute replaced
    /// by its leaves.
    public func storedAttributes(declaredBy entity: Entity) -> [Attribute] {
        entity.attributes.flatMap { attribute in
            attribute.type == .composite ? leaves(of: attribute) : [attribute]
        }
    }

    /// The leaves of a composite attribute, each named by its path from the entity. Empty
    /// when the attribute is not a composite or names no composite of the model; a composite
    /// that contains itself is not followed again (``ModelChecker`` reports both).
    public func leaves(of attribute: Attribute) -> [Attribute] {
        guard attribute.type == .composite else { return [] }
        var result: [Attribute] = []
        collectLeaves(
            of: attribute, path: attribute.name, canonicalPath: attribute.canonicalName,
            isOptional: attribute.isOptional, isTransient: attribute.isTransient,
            renamed: attribute.renamingIdentifier != nil,
            visiting: [], into: &result)
        return result
    }

    private func collectLeaves(
        of attribute: Attribute, path: String, canonicalPath: String, isOptional: Bool, isTransient: Bool,
        renamed: Bool,
        visiting: Set<String>, into result: inout [Attribute]
    ) {
        guard let name = attribute.compositeName, !visiting.contains(name), let composite = composite(named: name)
        else {
            return
        }
        for element in composite.attributes {
            let elementPath = path + "." + element.name
            let elementCanonical = canonicalPath + "." + element.canonicalName
            let elementRenamed = renamed || element.renamingIdentifier != nil
            let elementOptional = isOptional || element.isOptional
            if element.type == .composite {
                collectLeaves(
                    of: element, path: elementPath, canonicalPath: elementCanonical, isOptional: elementOptional,
                    isTransient: isTransient, renamed: elementRenamed, visiting: visiting.union([name]), into: &result)
                continue
            }
            var leaf = element
            leaf.name = elementPath
            leaf.isOptional = elementOptional
            leaf.isTransient = isTransient
            leaf.renamingIdentifier = elementRenamed ? elementCanonical : nil
            result.append(leaf)
        }
    }

    /// The composite attribute called `name` that `entity` has (own or inherited).
    public func compositeAttribute(named name: String, in entity: Entity) -> Attribute? {
        (ancestors(of: entity).reversed() + [entity]).lazy.compactMap { $0.attribute(named: name) }
            .last.flatMap { $0.type == .composite ? $0 : nil }
    }

    /// The entity's attributes as declared, inherited ones first: composite attributes stand
    /// as one attribute (as version hashes and model files see them).
    public func declaredAttributes(of entity: Entity) -> [Attribute] {
        (ancestors(of: entity).reversed() + [entity]).flatMap(\.attributes)
    }
}

extension ObjectModel {
    /// The leaf that the first components of a key path name from `entity`: `["home", "city",
    /// …]` gives `home.city` and 2 (the components it takes). Nil when the first component is
    /// not a composite attribute or the path ends before a leaf.
    public func leafPath<Components: Collection<String>>(
        _ components: Components, in entity: Entity
    ) -> (path: String, count: Int)? {
        guard let first = components.first, var current = compositeAttribute(named: first, in: entity) else {
            return nil
        }
        var path = first
        var count = 1
        for component in components.dropFirst() {
            guard let composite = current.compositeName.flatMap(composite(named:)),
                let element = composite.attribute(named: component)
            else { return nil }
            path += "." + component
            count += 1
            guard element.type == .composite else { return (path, count) }
            current = element
        }
        return nil
    }
}
