public import Molt

/// What the generator needs to know about attribute types: which have defaults, how a
/// default is spelt, and which type changes Core Data's inference accepts.
public enum AttributeTypeRules {
    /// The types generated models use (every stored type Core Data has).
    public static let storedTypes: [AttributeType] = [
        .integer16, .integer32, .integer64, .double, .float, .decimal, .string, .boolean, .date, .binary, .uuid,
        .uri, .transformable,
    ]

    /// The integer types.
    public static let integers: [AttributeType] = [.integer16, .integer32, .integer64]

    /// Whether `type` holds numbers (integers, floating point, decimal).
    public static func isNumeric(_ type: AttributeType) -> Bool {
        integers.contains(type) || [.double, .float, .decimal].contains(type)
    }

    /// Whether a default value is generated for `type` (Binary, Transformable and Composite
    /// have none).
    public static func hasDefault(_ type: AttributeType) -> Bool {
        ![.binary, .transformable, .composite].contains(type)
    }

    /// A default value for `type`, as `defaultValueString` spells it.
    public static func defaultLiteral(_ type: AttributeType, random: inout SplitMix) -> String? {
        switch type {
        case .integer16, .integer32, .integer64: random.pick(["0", "7", "-3", "1"])
        case .double: random.pick(["0.0", "1.5", "-2.25"])
        case .float: random.pick(["0.0", "0.25", "3.5"])
        case .decimal: random.pick(["0", "2.5", "-1.75"])
        case .string: random.pick(["none", "", "n/a"])
        case .boolean: random.pick(["YES", "NO"])
        case .date: random.pick(["0", "700000000"])
        case .uuid: "6F9619FF-8B86-D011-B42D-00C04FC964FF"
        case .uri: "https://example.com/default"
        default: nil
        }
    }

    /// The type changes inference accepts (`MappingModels/README.md`), from each type.
    public static func inferableTargets(of type: AttributeType) -> [AttributeType] {
        switch type {
        case .integer16: [.integer32, .integer64, .double, .decimal, .string]
        case .integer32: [.integer64, .double, .decimal, .string]
        case .integer64: [.double, .decimal, .string]
        case .boolean: [.integer16, .integer32, .integer64]
        case .float: [.double]
        case .uri: [.string]
        case .transformable: [.binary]
        default: []
        }
    }

    /// Whether inference carries a `from` value into a `to` attribute.
    public static func isInferable(from: AttributeType, to: AttributeType) -> Bool {
        from == to || inferableTargets(of: from).contains(to)
    }

    /// Type changes a mapping file can write an explicit value for (``ValueExpressions``).
    public static func explicitTargets(of type: AttributeType) -> [AttributeType] {
        switch type {
        case .integer16, .integer32, .integer64:
            [.integer16, .integer32, .integer64, .double, .float, .decimal, .string, .boolean]
        case .double, .float, .decimal: [.integer16, .integer32, .integer64, .double, .float, .decimal, .string]
        case .string: [.integer32, .integer64, .boolean, .uri]
        case .boolean: [.integer16, .string]
        case .date: [.double, .string]
        case .uuid: [.string]
        case .uri: [.string]
        case .binary: [.transformable]
        case .transformable: [.binary]
        default: []
        }
    }
}
