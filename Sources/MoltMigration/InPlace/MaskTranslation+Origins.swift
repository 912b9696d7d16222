internal import MoltMapping

// Where a mapping says each destination property comes from, read as the in-place engine
// reads an attribute's expression (``RowExpressions``) and as the relate strategies read a
// relationship's (``CanonicalRelationshipValue``); both routes that carry history ask it.
extension MaskTranslation {
    /// Each destination property's source property, where an entity mapping says it: inferred
    /// (same name or renaming identifier), `$source.name` for an attribute, or a relationship's
    /// value in Core Data's default form over `$source.name`.
    static func origins(of mapping: ResolvedEntityMapping) -> [String: String] {
        var origins: [String: String] = [:]
        for property in mapping.attributes + mapping.relationships {
            switch (property.origin, property.value) {
            case (.inferred(let name), _):
                origins[property.name] = name
            case (.explicit, .expression(let expression)):
                if let name = RowExpressions.sourceAttribute(expression)
                    ?? CanonicalRelationshipValue(expression)?.sourceRelationship
                {
                    origins[property.name] = name
                }
            default:
                break
            }
        }
        return origins
    }
}
