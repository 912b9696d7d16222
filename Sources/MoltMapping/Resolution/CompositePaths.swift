internal import MoltModel

/// Key paths into composite attributes, as the store keeps them: one attribute per leaf,
/// named by its path (`home.city`).
///
/// A mapping reads a leaf as `$source.home.city` and may map a composite whole
/// (`<attribute name="home" value="$source.home"/>`). Resolution turns both into leaf
/// reads that name the leaf as one key (`$source` then `home.city`), which every route (the
/// object path, `INSERT … SELECT`, in place) reads as an ordinary attribute. A path through a
/// relationship (`$source.owner.home.city`) is read element by element when it runs.
enum CompositePaths {
    /// `expression` with every key path read from the source object (`$source.…`, or a path
    /// without a base) that walks into a composite of `entity` naming the leaf as one key.
    static func joined(_ expression: MappingExpression, model: ObjectModel, entity: Entity?) -> MappingExpression {
        guard let entity, !model.composites.isEmpty else { return expression }
        return expression.rewritten { node in
            guard case .keyPath(let base, let components) = node.kind, components.count > 1,
                base == nil || base?.kind == .variable("source"),
                let leaf = model.leafPath(components, in: entity)
            else { return node }
            var copy = node
            copy.kind = .keyPath(base: base, components: [leaf.path] + components.dropFirst(leaf.count))
            return copy
        }
    }

    /// The value of one element (`path`, relative to the composite) of the composite that
    /// `expression` gives: its key path extended, or a key path on it.
    static func element(of expression: MappingExpression, path: [String]) -> MappingExpression {
        var copy = expression
        if case .keyPath(let base, let components) = expression.kind {
            copy.kind = .keyPath(base: base, components: components + path)
        } else {
            copy = MappingExpression(.keyPath(base: expression, components: path), offset: expression.offset)
        }
        return copy
    }
}
