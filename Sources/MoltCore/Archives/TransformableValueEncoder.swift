public import Foundation

/// Writes a ``TransformableValue`` as `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)`
/// does: what Core Data's `NSSecureUnarchiveFromData` transformer stores for a Transformable
/// attribute, and what it reads back.
///
/// The archive is a binary property list: `$archiver` "NSKeyedArchiver", `$version` 100000,
/// `$top` with the root under `root`, and `$objects` starting with `$null`. As Apple's archiver
/// does, strings, numbers and data are `$objects` entries of their own (each stored once),
/// every other object is a dictionary with a `$class` reference to a class description
/// (`$classname`, `$classes` such as `["NSMutableArray", "NSArray", "NSObject"]`), objects are
/// numbered in the order they are reached, and a class description follows the first object of
/// its class and that object's contents. Set elements and dictionary keys are written in a
/// fixed order, so one value always gives the same bytes.
///
/// ```swift
/// let bytes = TransformableValueEncoder().encode(["swift", "core data"])
/// // NSKeyedUnarchiver reads it back as an NSArray of two NSStrings.
/// ```
public struct TransformableValueEncoder: Sendable {
    /// Whether containers are archived as their mutable classes (`NSMutableArray`,
    /// `NSMutableDictionary`, `NSMutableSet`), and a root string or data as `NSMutableString`
    /// or `NSMutableData`, rather than as the immutable classes a Swift value bridges to. An
    /// app that declares a Transformable attribute as `NSMutableArray` expects the first.
    /// Strings and data inside containers stay `NSString` and `NSData` (archived inline), and
    /// dictionary keys stay immutable, as `NSMutableDictionary` copies its keys.
    public var usesMutableClasses: Bool

    public init(usesMutableClasses: Bool = false) {
        self.usesMutableClasses = usesMutableClasses
    }

    /// The archive as binary property-list bytes.
    public func encode(_ value: TransformableValue) -> Data {
        BinaryPropertyListWriter().write(archive(value))
    }

    /// The archive as a property list (`$archiver`, `$version`, `$top`, `$objects`).
    public func archive(_ value: TransformableValue) -> PropertyList {
        let writer = ArchiveWriter()
        let root = writer.reference(to: value, mutable: usesMutableClasses, isRoot: true)
        return writer.builder.archive(root: root)
    }
}

/// Turns values into `$objects` entries in `NSKeyedArchiver`'s order.
private final class ArchiveWriter {
    let builder = KeyedArchiveBuilder()
    /// `NSNull` is a single object, archived once.
    var null: PropertyList?

    func reference(to value: TransformableValue, mutable: Bool, isRoot: Bool = false) -> PropertyList {
        switch value {
        case .string(let text):
            guard mutable, isRoot else { return builder.string(text) }
            return object("NSMutableString") { _ in ["NS.string": .string(text)] }
        case .data(let bytes):
            guard mutable, isRoot else { return builder.plain(.data(bytes)) }
            return object("NSMutableData") { _ in ["NS.data": .data(bytes)] }
        case .integer(let number):
            return builder.plain(.integer(number))
        case .double(let number):
            return builder.plain(.real(number))
        case .bool(let flag):
            return builder.plain(.bool(flag))
        case .null:
            if let null { return null }
            let made = object("NSNull") { _ in [:] }
            null = made
            return made
        case .date(let date):
            return object("NSDate") { _ in ["NS.time": .real(date.timeIntervalSinceReferenceDate)] }
        case .url(let text):
            return object("NSURL") { writer in
                ["NS.base": writer.builder.null, "NS.relative": writer.builder.string(text)]
            }
        case .uuid(let uuid):
            return object("NSUUID") { _ in ["NS.uuidbytes": .data(withUnsafeBytes(of: uuid.uuid) { Data($0) })] }
        case .decimal(let number):
            return object("NSDecimalNumber") { _ in DecimalNumberFields.fields(of: number) }
        case .array(let items):
            return object(mutable ? "NSMutableArray" : "NSArray") { writer in
                ["NS.objects": .array(items.map { writer.reference(to: $0, mutable: mutable) })]
            }
        case .set(let elements):
            return object(mutable ? "NSMutableSet" : "NSSet") { writer in
                [
                    "NS.objects": .array(
                        TransformableValue.sorted(elements).map { writer.reference(to: $0, mutable: mutable) })
                ]
            }
        case .dictionary(let entries):
            return object(mutable ? "NSMutableDictionary" : "NSDictionary") { writer in
                let sorted = TransformableValue.sortedEntries(entries)
                // All keys first, then all values, as NSDictionary's encodeWithCoder: does.
                let keys = sorted.map { writer.reference(to: $0.key, mutable: false) }
                let values = sorted.map { writer.reference(to: $0.value, mutable: mutable) }
                return ["NS.keys": .array(keys), "NS.objects": .array(values)]
            }
        }
    }

    /// An object of `className`: its place first, then what `fields` adds, then its class.
    private func object(
        _ className: String, _ fields: (ArchiveWriter) -> [String: PropertyList]
    ) -> PropertyList {
        let reference = builder.reserve()
        let values = fields(self)
        builder.fill(reference, className, values)
        return reference
    }
}
