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
        compositeLeaves(of: attribute).map { found in
            var leaf = found.element
            leaf.name = found.path
            leaf.isOptional = found.isOptional
            leaf.isTransient = attribute.isTransient
            leaf.renamingIdentifier = found.isRenamed ? found.canonicalPath : nil
            return leaf
        }
    }

    /// One leaf of a composite attribute, as its composite declares it, with where the walk
    /// found it.
    struct CompositeLeaf {
        /// The element as declared (its own name and flags).
        let element: Attribute
        /// `home.geo.latitude`.
        let path: String
        /// The path of canonical names (renaming identifiers where given).
        let canonicalPath: String
        /// Whether the element or a composite on its path is optional.
        let isOptional: Bool
        /// Whether a part of the path has a renaming identifier.
        let isRenamed: Bool
    }

    /// The one walk of a composite attribute's elements, nested composites flattened depth first
    /// in element order: for ``leaves(of:)`` and for version hashes (which hash the elements as
    /// declared).
    func compositeLeaves(of attribute: Attribute) -> [CompositeLeaf] {
        guard attribute.type == .composite else { return [] }
        var result: [CompositeLeaf] = []
        func walk(
            _ holder: Attribute, path: String, canonical: String, optional: Bool, renamed: Bool, visiting: Set<String>
        ) {
            guard let name = holder.compositeName, !visiting.contains(name), let composite = composite(named: name)
            else { return }
            for element in composite.attributes {
                let elementPath = path + "." + element.name
                let elementCanonical = canonical + "." + element.canonicalName
                let elementOptional = optional || element.isOptional
                let elementRenamed = renamed || element.renamingIdentifier != nil
                if element.type == .composite {
                    walk(
                        element, path: elementPath, canonical: elementCanonical, optional: elementOptional,
                        renamed: elementRenamed, visiting: visiting.union([name]))
                } else {
                    result.append(
                        CompositeLeaf(
                            element: element, path: elementPath, canonicalPath: elementCanonical,
                            isOptional: elementOptional, isRenamed: elementRenamed))
                }
            }
        }
        walk(
            attribute, path: attribute.name, canonical: attribute.canonicalName, optional: attribute.isOptional,
            renamed: attribute.renamingIdentifier != nil, visiting: [])
        return result
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
