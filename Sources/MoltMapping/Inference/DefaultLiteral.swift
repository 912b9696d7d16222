import MoltModel

/// An attribute's default value (from the model) as an expression literal, for the
/// `coalesce($source.x, default)` that inference writes when an optional attribute becomes
/// non-optional.
enum DefaultLiteral {
    /// The literal, or nil when the attribute has no default or its default does not read as
    /// its type.
    static func expression(for attribute: Attribute) -> MappingExpression? {
        guard let text = attribute.defaultValue, let scalar = DefaultValueReading.value(text, for: attribute.type)
        else {
            return nil
        }
        switch scalar {
        case .integer(let number): return MappingExpression(.constant(.integer(number)))
        case .double(let number): return MappingExpression(.constant(.double(number)))
        case .decimal(let number): return function(.decimal, .string(number.description))
        case .bool(let flag): return MappingExpression(.constant(.bool(flag)))
        case .string(let string): return MappingExpression(.constant(.string(string)))
        case .date(let seconds): return function(.date, .double(seconds))
        case .uuid(let uuid): return function(.uuid, .string(uuid.uuidString))
        case .uri(let text): return MappingExpression(.constant(.string(text)))
        }
    }

    private static func function(_ function: BuiltinFunction, _ argument: Constant) -> MappingExpression {
        MappingExpression(.function(name: function.rawValue, arguments: [MappingExpression(.constant(argument))]))
    }
}
