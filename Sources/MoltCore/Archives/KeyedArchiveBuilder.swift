/// Builds a keyed archive (what `NSKeyedArchiver` writes) object by object: `$objects` with
/// `$null` first, one class description per class, equal strings and numbers stored once.
///
/// Objects take their place in `$objects` in the order they are reserved, and a class
/// description is added when the first object of that class is filled, after the object's
/// children: the order `NSKeyedArchiver` writes. To write an object that holds others the
/// same way, ``reserve()`` its place, add its children, then ``fill(_:_:_:)`` it.
///
/// ```swift
/// let builder = KeyedArchiveBuilder()
/// let root = builder.object("NSArray", ["NS.objects": .array([builder.string("a")])])
/// let archive = builder.archive(root: root)      // write it with BinaryPropertyListWriter
/// ```
public final class KeyedArchiveBuilder {
    /// The class chains (`$classes`, most specific first) of the Foundation classes whose
    /// superclass is not `NSObject`; any other class gets `[name, "NSObject"]`.
    public static let foundationClassChains: [String: [String]] = [
        "NSMutableArray": ["NSMutableArray", "NSArray", "NSObject"],
        "NSMutableDictionary": ["NSMutableDictionary", "NSDictionary", "NSObject"],
        "NSMutableSet": ["NSMutableSet", "NSSet", "NSObject"],
        "NSMutableString": ["NSMutableString", "NSString", "NSObject"],
        "NSMutableData": ["NSMutableData", "NSData", "NSObject"],
        "NSDecimalNumber": ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"],
        "NSNumber": ["NSNumber", "NSValue", "NSObject"],
    ]

    /// `$objects` so far.
    public private(set) var objects: [PropertyList] = [.string("$null")]
    private let classChains: [String: [String]]
    private var classes: [String: UInt64] = [:]
    private var plainValues: [PropertyList: UInt64] = [:]

    /// A builder that knows the Foundation class chains and `classChains` (which take
    /// precedence), such as Core Data's own model classes.
    public init(classChains: [String: [String]] = [:]) {
        self.classChains = Self.foundationClassChains.merging(classChains) { _, given in given }
    }

    /// The reference to `$null`.
    public var null: PropertyList { .uid(0) }

    /// A place for an object filled later (objects that refer to each other, or whose children
    /// must come after them).
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
        plain(.string(text))
    }

    /// A string, or `$null` for nil.
    public func string(_ text: String?) -> PropertyList {
        text.map { string($0) } ?? null
    }

    /// A value archived as itself (a string, number, boolean or data, as `NSKeyedArchiver`
    /// writes `NSString`, `NSNumber` and `NSData`), stored once.
    public func plain(_ value: PropertyList) -> PropertyList {
        if let index = plainValues[value] { return .uid(index) }
        objects.append(value)
        plainValues[value] = UInt64(objects.count - 1)
        return .uid(UInt64(objects.count - 1))
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
        let chain = classChains[name] ?? [name, "NSObject"]
        objects.append(.dictionary(["$classname": .string(name), "$classes": .array(chain.map { .string($0) })]))
        classes[name] = UInt64(objects.count - 1)
        return .uid(UInt64(objects.count - 1))
    }
}
