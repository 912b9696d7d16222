public import MoltCore

/// Builds a keyed archive (what `NSKeyedArchiver` writes) object by object: `$objects` with
/// `$null` first, one class description per class, strings stored once.
///
/// ```swift
/// let builder = KeyedArchiveBuilder()
/// let root = builder.object("NSArray", ["NS.objects": .array([builder.string("a")])])
/// let archive = builder.archive(root: root)      // write it with BinaryPropertyListWriter
/// ```
public final class KeyedArchiveBuilder {
    /// The class chains Core Data's model classes and the Foundation classes they hold are
    /// archived with (`$classes`); other classes get `[name, "NSObject"]`.
    public static let classChains: [String: [String]] = [
        "NSEntityDescription": ["NSEntityDescription", "NSObject"],
        "NSAttributeDescription": ["NSAttributeDescription", "NSPropertyDescription", "NSObject"],
        "NSDerivedAttributeDescription": [
            "NSDerivedAttributeDescription", "NSAttributeDescription", "NSPropertyDescription", "NSObject",
        ],
        "NSRelationshipDescription": ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"],
        "NSFetchedPropertyDescription": ["NSFetchedPropertyDescription", "NSPropertyDescription", "NSObject"],
        "NSKnownKeysDictionary1": [
            "NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject",
        ],
        "NSKnownKeysMappingStrategy1": ["NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy", "NSObject"],
        "NSMutableDictionary": ["NSMutableDictionary", "NSDictionary", "NSObject"],
        "NSMutableArray": ["NSMutableArray", "NSArray", "NSObject"],
        "NSMutableSet": ["NSMutableSet", "NSSet", "NSObject"],
        "NSMutableString": ["NSMutableString", "NSString", "NSObject"],
        "NSDecimalNumber": ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"],
        "NSKeyPathExpression": ["NSKeyPathExpression", "NSFunctionExpression", "NSExpression", "NSObject"],
        "NSFunctionExpression": ["NSFunctionExpression", "NSExpression", "NSObject"],
        "NSSelfExpression": ["NSSelfExpression", "NSExpression", "NSObject"],
        "NSKeyPathSpecifierExpression": ["NSKeyPathSpecifierExpression", "NSExpression", "NSObject"],
        "NSConstantValueExpression": ["NSConstantValueExpression", "NSExpression", "NSObject"],
        "NSVariableExpression": ["NSVariableExpression", "NSExpression", "NSObject"],
    ]

    /// `$objects` so far.
    public private(set) var objects: [PropertyList] = [.string("$null")]
    private var classes: [String: UInt64] = [:]
    private var strings: [String: UInt64] = [:]

    public init() {}

    /// The reference to `$null`.
    public var null: PropertyList { .uid(0) }

    /// A place for an object filled later (objects that refer to each other).
    public func reserve() -> PropertyList {
        objects.append(.string("$null"))
        return .uid(UInt64(objects.count - 1))
    }

    /// Fills a reserved place with an object of `className`.
    public func fill(_ reference: PropertyList, _ className: String, _ fields: [String: PropertyList]) {
        guard case .uid(let index) = reference else { return }
        var fields = fields
        fields["$class"] = classReference(className)
        objects[Int(index)] = .dictionary(fields)
    }

    /// A new object of `className` with `fields`.
    public func object(_ className: String, _ fields: [String: PropertyList]) -> PropertyList {
        let reference = reserve()
        fill(reference, className, fields)
        return reference
    }

    /// A string, stored once.
    public func string(_ text: String) -> PropertyList {
        if let index = strings[text] { return .uid(index) }
        objects.append(.string(text))
        strings[text] = UInt64(objects.count - 1)
        return .uid(UInt64(objects.count - 1))
    }

    /// A string, or `$null` for nil.
    public func string(_ text: String?) -> PropertyList {
        text.map { string($0) } ?? null
    }

    /// An array (or set, with `className` "NSMutableSet") of references.
    public func array(_ items: [PropertyList], className: String = "NSArray") -> PropertyList {
        object(className, ["NS.objects": .array(items)])
    }

    /// A dictionary with text keys.
    public func dictionary(
        _ entries: [(String, PropertyList)], className: String = "NSMutableDictionary"
    )
        -> PropertyList
    {
        object(className, ["NS.keys": .array(entries.map { string($0.0) }), "NS.objects": .array(entries.map(\.1))])
    }

    /// The complete archive with `root` as `$top.root`.
    public func archive(root: PropertyList) -> PropertyList {
        .dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
            "$top": .dictionary(["root": root]), "$objects": .array(objects),
        ])
    }

    private func classReference(_ name: String) -> PropertyList {
        if let index = classes[name] { return .uid(index) }
        let chain = Self.classChains[name] ?? [name, "NSObject"]
        objects.append(.dictionary(["$classname": .string(name), "$classes": .array(chain.map { .string($0) })]))
        classes[name] = UInt64(objects.count - 1)
        return .uid(UInt64(objects.count - 1))
    }
}
