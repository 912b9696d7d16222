public import Foundation

/// Reads an `NSKeyedArchiver` archive of Foundation property-list objects (what Core Data's
/// `NSSecureUnarchiveFromData` transformer stores for a Transformable attribute) into a
/// ``TransformableValue``, starting at `$top.root`.
///
/// It reads the classes ``supportedClassNames`` lists and nothing else: an archive that holds
/// any other class (`UIColor`, an app's own class) is refused with an error naming the class,
/// as `NSSecureUnarchiveFromData` refuses a class it does not allow. Untrusted bytes never crash
/// it nor make it loop: every reference is checked, an object that contains itself is an error,
/// nesting is bounded by ``maximumDepth`` and the size of the value (shared objects counted
/// each time they are used) by ``maximumValueCount``. Every refusal is a ``MoltError`` with
/// Foundation's code for an archive that cannot be decoded,
/// ``MoltError/Code-swift.struct/coderReadCorrupt`` (4864), whose message says what is wrong
/// and where; a caller adds what the value belongs to with ``MoltError/about(entity:property:)``.
///
/// ```swift
/// do {
///     let tags = try TransformableValueDecoder().decode(bytes)
///     print(tags.stringArray ?? [])
/// } catch let error as MoltError {
///     print(error)   // the archived value cannot be decoded: it holds an object of class UIColor…
/// }
/// ```
public struct TransformableValueDecoder: Sendable {
    /// The Foundation classes read, each as the case of ``TransformableValue`` it becomes.
    public static let supportedClassNames: [String] = [
        "NSArray", "NSMutableArray", "NSData", "NSMutableData", "NSDate", "NSDecimalNumber", "NSDictionary",
        "NSMutableDictionary", "NSNull", "NSNumber", "NSSet", "NSMutableSet", "NSString", "NSMutableString", "NSURL",
        "NSUUID",
    ]

    /// The deepest nesting of objects accepted (an array in an array… counts one per level).
    public var maximumDepth: Int = 256
    /// The most values a decoded value may hold, counting every element of every container
    /// and an object shared by several containers once per use.
    public var maximumValueCount: Int = 1_000_000

    public init() {}

    /// Decodes an archive stored as a binary property list. `name` says what the bytes are in
    /// messages ("the archived value").
    public func decode(_ data: Data, name: String = "the archived value") throws -> TransformableValue {
        try Self.asCoderError {
            try decode(KeyedArchive(data: data, name: name))
        }
    }

    /// Decodes an archive already read as a property list (a binary or XML plist).
    public func decode(_ archive: KeyedArchive) throws -> TransformableValue {
        try Self.asCoderError {
            guard let root = archive.top["root"] else {
                throw ArchiveWalk.corrupt(archive.name, "its $top has no \"root\"")
            }
            var walk = ArchiveWalk(archive: archive, maximumDepth: maximumDepth, maximumValueCount: maximumValueCount)
            return try walk.value(of: root, what: { "$top.root" }, depth: 0)?.value ?? .null
        }
    }

    /// Gives the property-list reader's errors (3840) Foundation's code for an archive that
    /// cannot be decoded, as `NSKeyedUnarchiver` does.
    private static func asCoderError<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var error as MoltError where error.code == .propertyListReadCorrupt {
            error.code = .coderReadCorrupt
            throw error
        }
    }
}

/// One walk through an archive's objects from a root, remembering what it decoded.
private struct ArchiveWalk {
    /// A decoded value and how many values it holds (itself included).
    struct Decoded {
        var value: TransformableValue
        var count: Int
    }

    let archive: KeyedArchive
    let maximumDepth: Int
    let maximumValueCount: Int
    /// Objects decoded so far, by position in `$objects`: an object shared by several
    /// containers is decoded once.
    var decoded: [Int: Decoded] = [:]
    /// The objects being decoded, from the root down: meeting one again is a cycle.
    var onPath: Set<Int> = []

    init(archive: KeyedArchive, maximumDepth: Int, maximumValueCount: Int) {
        self.archive = archive
        self.maximumDepth = maximumDepth
        self.maximumValueCount = maximumValueCount
    }

    static func corrupt(_ name: String, _ reason: String) -> MoltError {
        MoltError(
            .coderReadCorrupt, "\(name) cannot be decoded: \(reason)",
            recovery: "The bytes are damaged, or were not written by NSKeyedArchiver.")
    }

    func corrupt(_ reason: String) -> MoltError { Self.corrupt(archive.name, reason) }

    /// What `reference` stands for: nil for `$null`.
    mutating func value(of reference: PropertyList, what: () -> String, depth: Int) throws -> Decoded? {
        guard case .uid(let uid) = reference else {
            return Decoded(value: try plain(reference, what: what), count: 1)
        }
        guard uid < UInt64(archive.objects.count) else {
            throw corrupt("\(what()) refers to object \(uid), but $objects has \(archive.objects.count)")
        }
        let index = Int(uid)
        if let known = decoded[index] { return known }
        let entry = archive.objects[index]
        if index == 0, entry.stringValue == "$null" { return nil }
        guard let fields = entry.dictionaryValue, let classReference = fields["$class"] else {
            return Decoded(value: try plain(entry, what: { "object \(index)" }), count: 1)
        }
        let object = try ArchivedObject(
            archive: archive, index: index, fields: fields, classReference: classReference)
        guard !onPath.contains(index) else {
            throw corrupt("object \(index) (\(object.className)) contains itself")
        }
        guard depth < maximumDepth else {
            throw corrupt("its objects nest deeper than \(maximumDepth) levels")
        }
        onPath.insert(index)
        defer { onPath.remove(index) }
        let result = try decode(object, depth: depth)
        decoded[index] = result
        return result
    }

    /// A value archived inline: a string, number, boolean or data.
    func plain(_ value: PropertyList, what: () -> String) throws -> TransformableValue {
        switch value {
        case .string(let text): return .string(text)
        case .integer(let number): return .integer(number)
        case .real(let number): return .double(number)
        case .bool(let flag): return .bool(flag)
        case .data(let bytes): return .data(bytes)
        case .date(let date): return .date(date)
        case .array, .dictionary, .uid:
            throw corrupt("\(what()) is a \(value.kindName) without a $class, not an archived object")
        }
    }

    // MARK: Objects

    mutating func decode(_ object: ArchivedObject, depth: Int) throws -> Decoded {
        switch object.className {
        case "NSArray", "NSMutableArray":
            let items = try elements(of: object, depth: depth)
            return Decoded(value: .array(items.map(\.value)), count: try total(items))
        case "NSSet", "NSMutableSet":
            let items = try elements(of: object, depth: depth)
            var set = Set<TransformableValue>(minimumCapacity: items.count)
            for item in items { set.insert(item.value) }
            return Decoded(value: .set(set), count: try total(items))
        case "NSDictionary", "NSMutableDictionary":
            return try dictionary(object, depth: depth)
        case "NSString", "NSMutableString":
            return Decoded(value: .string(try field("NS.string", of: object, as: \.stringValue, "a string")), count: 1)
        case "NSData", "NSMutableData":
            return Decoded(value: .data(try field("NS.data", of: object, as: \.dataValue, "data")), count: 1)
        case "NSDate":
            let seconds = try field("NS.time", of: object, as: Self.number, "a number")
            return Decoded(value: .date(Date(timeIntervalSinceReferenceDate: seconds)), count: 1)
        case "NSURL":
            return Decoded(value: .url(try url(object, depth: depth)), count: 1)
        case "NSUUID":
            let bytes = try field("NS.uuidbytes", of: object, as: \.dataValue, "data")
            guard bytes.count == 16 else {
                throw corrupt("NS.uuidbytes of \(describe(object)) has \(bytes.count) bytes, not 16")
            }
            let uuid = bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
            return Decoded(value: .uuid(uuid), count: 1)
        case "NSNull":
            return Decoded(value: .null, count: 1)
        case "NSDecimalNumber":
            return Decoded(value: .decimal(try decimal(object)), count: 1)
        case "NSNumber":
            throw corrupt(
                "\(describe(object)) is an NSNumber archived as an object; NSKeyedArchiver writes numbers inline")
        default:
            throw MoltError(
                .coderReadCorrupt,
                "\(archive.name) cannot be decoded: it holds an object of class \(object.className) (object \(object.index)), "
                    + "which is not one of the Foundation property-list classes Molt reads "
                    + "(\(TransformableValueDecoder.supportedClassNames.joined(separator: ", ")))",
                recovery:
                    "Core Data's NSSecureUnarchiveFromData refuses such a class too. Read this attribute with a value transformer that understands \(object.className) (AttributeValueTransformer), or copy its bytes unchanged."
            )
        }
    }

    /// The elements of an array or set (`NS.objects`), none of them nil.
    mutating func elements(of object: ArchivedObject, depth: Int) throws -> [Decoded] {
        let references = try referenceList("NS.objects", of: object)
        let owner = describe(object)
        var items: [Decoded] = []
        items.reserveCapacity(references.count)
        for (offset, reference) in references.enumerated() {
            let what = { "element \(offset) of \(owner)" }
            guard let item = try value(of: reference, what: what, depth: depth + 1) else {
                throw corrupt("\(what()) is nil, which an \(object.className) cannot hold")
            }
            items.append(item)
        }
        return items
    }

    mutating func dictionary(_ object: ArchivedObject, depth: Int) throws -> Decoded {
        let keys = try referenceList("NS.keys", of: object)
        let values = try referenceList("NS.objects", of: object)
        guard keys.count == values.count else {
            throw corrupt("\(describe(object)) has \(keys.count) NS.keys but \(values.count) NS.objects")
        }
        var entries: [TransformableValue: TransformableValue] = [:]
        entries.reserveCapacity(keys.count)
        var parts: [Decoded] = []
        parts.reserveCapacity(keys.count * 2)
        let owner = describe(object)
        for offset in keys.indices {
            let keyWhat = { "key \(offset) of \(owner)" }
            let valueWhat = { "value \(offset) of \(owner)" }
            guard let key = try value(of: keys[offset], what: keyWhat, depth: depth + 1) else {
                throw corrupt("\(keyWhat()) is nil, which an \(object.className) cannot hold")
            }
            guard let entry = try value(of: values[offset], what: valueWhat, depth: depth + 1) else {
                throw corrupt("\(valueWhat()) is nil, which an \(object.className) cannot hold")
            }
            // A key archived twice keeps its last value, as NSDictionary does.
            entries[key.value] = entry.value
            parts.append(key)
            parts.append(entry)
        }
        return Decoded(value: .dictionary(entries), count: try total(parts))
    }

    /// An NSURL's absolute string: `NS.relative`, resolved against `NS.base` when there is one.
    mutating func url(_ object: ArchivedObject, depth: Int) throws -> String {
        let relative = try text("NS.relative", of: object, depth: depth)
        let owner = describe(object)
        guard let baseReference = object.fields["NS.base"],
            let base = try value(of: baseReference, what: { "NS.base of \(owner)" }, depth: depth + 1)
        else { return relative }
        guard case .url(let baseText) = base.value else {
            throw corrupt("NS.base of \(describe(object)) is an \(base.value.className), not an NSURL")
        }
        guard let baseURL = URL(string: baseText), let resolved = URL(string: relative, relativeTo: baseURL) else {
            throw corrupt("\(describe(object)) is \"\(relative)\" relative to \"\(baseText)\", which is not a URL")
        }
        return resolved.absoluteString
    }

    func decimal(_ object: ArchivedObject) throws -> Decimal {
        func integer(_ key: String) throws -> Int64? {
            try optionalField(key, of: object, as: Self.integer, "an integer")
        }
        func flag(_ key: String) throws -> Bool {
            try (optionalField(key, of: object, as: Self.integer, "a boolean") ?? 0) != 0
        }
        return try DecimalNumberFields.number(
            exponent: try integer("NS.exponent"), length: try integer("NS.length"), negative: try flag("NS.negative"),
            mantissa: try optionalField("NS.mantissa", of: object, as: \.dataValue, "data"),
            byteOrder: try integer("NS.mantissa.bo"),
            problem: { self.corrupt("\(self.describe(object)) cannot be read: \($0)") })
    }

    // MARK: Fields

    /// A field holding a string, inline or as a reference to a string or NSString object.
    mutating func text(_ key: String, of object: ArchivedObject, depth: Int) throws -> String {
        guard let reference = object.fields[key] else {
            throw corrupt("\(describe(object)) has no \(key)")
        }
        let owner = describe(object)
        let found = try value(of: reference, what: { "\(key) of \(owner)" }, depth: depth + 1)
        guard case .string(let text)? = found?.value else {
            throw corrupt(
                "\(key) of \(describe(object)) is \(found.map { "an \($0.value.className)" } ?? "nil"), not a string")
        }
        return text
    }

    /// A required field holding a plain value, inline or referenced.
    func field<T>(
        _ key: String, of object: ArchivedObject, as read: (PropertyList) -> T?, _ kind: String
    ) throws -> T {
        guard let value = try optionalField(key, of: object, as: read, kind) else {
            throw corrupt("\(describe(object)) has no \(key)")
        }
        return value
    }

    /// A field holding a plain value, inline or referenced; nil when absent.
    func optionalField<T>(
        _ key: String, of object: ArchivedObject, as read: (PropertyList) -> T?, _ kind: String
    ) throws -> T? {
        guard var value = object.fields[key] else { return nil }
        if case .uid(let uid) = value {
            guard uid < UInt64(archive.objects.count) else {
                throw corrupt(
                    "\(key) of \(describe(object)) refers to object \(uid), but $objects has \(archive.objects.count)")
            }
            value = archive.objects[Int(uid)]
        }
        guard let result = read(value) else {
            throw corrupt("\(key) of \(describe(object)) is a \(value.kindName), not \(kind)")
        }
        return result
    }

    /// A field holding an array of references.
    func referenceList(_ key: String, of object: ArchivedObject) throws -> [PropertyList] {
        guard let field = object.fields[key] else { throw corrupt("\(describe(object)) has no \(key)") }
        guard let references = field.arrayValue else {
            throw corrupt("\(key) of \(describe(object)) is a \(field.kindName), not an array")
        }
        return references
    }

    /// How many values a container of `parts` holds; an error past the limit.
    func total(_ parts: [Decoded]) throws -> Int {
        var count = 1
        for part in parts {
            count += part.count
            guard count <= maximumValueCount else {
                throw corrupt(
                    "it holds more than \(maximumValueCount) values (objects shared by several containers count once per use)"
                )
            }
        }
        return count
    }

    func describe(_ object: ArchivedObject) -> String { "object \(object.index) (\(object.className))" }

    static func number(_ value: PropertyList) -> Double? {
        switch value {
        case .real(let number): number
        case .integer(let number): Double(number)
        default: nil
        }
    }

    static func integer(_ value: PropertyList) -> Int64? {
        switch value {
        case .integer(let number): number
        case .bool(let flag): flag ? 1 : 0
        default: nil
        }
    }
}
