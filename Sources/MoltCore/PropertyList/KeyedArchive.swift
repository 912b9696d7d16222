public import Foundation

/// A keyed archive (what `NSKeyedArchiver` writes): a property list whose `$objects` array holds
/// every archived object once, objects referring to each other by ``PropertyList/uid(_:)``,
/// and whose `$top` dictionary names the roots.
///
/// Core Data keeps expressions in Xcode mapping files and the compiled model in a store's
/// `Z_MODELCACHE` this way. Molt never instantiates archived classes: it reads the archive as
/// data, one reference at a time, and every reference is checked, so a hostile archive gives a
/// ``MoltError/Code-swift.struct/propertyListReadCorrupt`` naming the archive and the object,
/// never a crash. Callers that walk nested objects bound their own depth.
///
/// ```swift
/// let archive = try KeyedArchive(data: blob, name: "ZTITLE's valueexpressiondata")
/// let root = try archive.root()
/// print(root.className)            // "NSKeyPathExpression"
/// let operand = try root.object("NSOperand")
/// ```
public struct KeyedArchive: Sendable {
    /// Every archived value; index 0 is `$null`.
    public let objects: [PropertyList]
    /// The roots by name (`root` for an object archived with `archivedData(withRootObject:)`).
    public let top: [String: PropertyList]
    /// What the archive is, for messages ("valueexpressiondata of title in NoteToNote").
    public let name: String

    /// Reads a keyed archive from a binary (or any decoded) property list.
    public init(_ plist: PropertyList, name: String) throws {
        self.name = name
        guard let dictionary = plist.dictionaryValue else {
            throw Self.corrupt(name, "it is a \(plist.kindName), not a keyed archive")
        }
        guard let objects = dictionary["$objects"]?.arrayValue, !objects.isEmpty else {
            throw Self.corrupt(name, "it has no $objects array")
        }
        guard let top = dictionary["$top"]?.dictionaryValue else {
            throw Self.corrupt(name, "it has no $top dictionary")
        }
        if let archiver = dictionary["$archiver"], archiver.stringValue != "NSKeyedArchiver" {
            throw Self.corrupt(name, "its $archiver is \(archiver), not NSKeyedArchiver")
        }
        self.objects = objects
        self.top = top
    }

    /// Reads a keyed archive stored as a binary property list.
    public init(data: Data, name: String) throws {
        try self.init(BinaryPropertyListReader().read(data, name: name), name: name)
    }

    /// The root called `key` (an archive made by `archivedData(withRootObject:)` has `root`).
    public func root(_ key: String = "root") throws -> ArchivedObject {
        guard let reference = top[key] else { throw Self.corrupt(name, "$top has no \"\(key)\"") }
        guard let object = try object(for: reference, what: "$top.\(key)") else {
            throw Self.corrupt(name, "$top.\(key) is nil")
        }
        return object
    }

    /// What `reference` stands for: nil for `$null`, an ``ArchivedObject`` for a dictionary
    /// with a `$class`, otherwise the plain value (strings and numbers are archived inline).
    public func resolve(_ reference: PropertyList, what: String) throws -> ArchivedValue? {
        guard case .uid(let index) = reference else { return .plain(reference) }
        guard index < UInt64(objects.count) else {
            throw Self.corrupt(name, "\(what) refers to object \(index) of \(objects.count)")
        }
        let position = Int(index)
        let value = objects[position]
        if position == 0, value.stringValue == "$null" { return nil }
        guard let fields = value.dictionaryValue, let classReference = fields["$class"] else {
            return .plain(value)
        }
        return .object(
            try ArchivedObject(archive: self, index: position, fields: fields, classReference: classReference))
    }

    /// `reference` as an object: nil for `$null`, an error for a plain value.
    public func object(for reference: PropertyList, what: String) throws -> ArchivedObject? {
        switch try resolve(reference, what: what) {
        case nil: return nil
        case .object(let object): return object
        case .plain(let value): throw Self.corrupt(name, "\(what) is a \(value.kindName), not an archived object")
        }
    }

    static func corrupt(_ name: String, _ message: String) -> MoltError {
        MoltError(.propertyListReadCorrupt, "\(name) is not a readable keyed archive: \(message)")
    }
}

/// A value reached through a keyed archive's reference.
public enum ArchivedValue: Sendable {
    /// A string, number, data… archived inline.
    case plain(PropertyList)
    /// An archived object (a dictionary naming its class).
    case object(ArchivedObject)
}

/// One archived object: its class chain and its encoded fields.
public struct ArchivedObject: Sendable {
    public let archive: KeyedArchive
    /// The object's position in `$objects`.
    public let index: Int
    /// The fields as archived (references still unresolved).
    public let fields: [String: PropertyList]
    /// The class it was archived as (`$classname`), such as "NSFunctionExpression".
    public let className: String
    /// The class and its superclasses (`$classes`), most specific first.
    public let classes: [String]

    init(archive: KeyedArchive, index: Int, fields: [String: PropertyList], classReference: PropertyList) throws {
        self.archive = archive
        self.index = index
        self.fields = fields
        guard case .uid(let classIndex) = classReference, classIndex < UInt64(archive.objects.count),
            let description = archive.objects[Int(classIndex)].dictionaryValue,
            let className = description["$classname"]?.stringValue
        else {
            throw KeyedArchive.corrupt(archive.name, "object \(index) has no readable $class")
        }
        self.className = className
        classes = description["$classes"]?.arrayValue?.compactMap(\.stringValue) ?? [className]
    }

    /// Whether the object's class is `name` or inherits from it.
    public func isKind(of name: String) -> Bool { classes.contains(name) }

    /// The field `key` resolved: nil when absent or `$null`.
    public func value(_ key: String) throws -> ArchivedValue? {
        guard let raw = fields[key] else { return nil }
        return try archive.resolve(raw, what: describe(key))
    }

    /// The field `key` as an archived object (nil when absent or `$null`).
    public func object(_ key: String) throws -> ArchivedObject? {
        guard let raw = fields[key] else { return nil }
        return try archive.object(for: raw, what: describe(key))
    }

    /// The field `key` as a plain value (a number or data archived inline, or a string, also
    /// when archived as an `NSString` object).
    public func plain(_ key: String) throws -> PropertyList? {
        switch try value(key) {
        case nil: return nil
        case .plain(let value): return value
        case .object(let object):
            if object.isKind(of: "NSString"), let text = try object.plain("NS.string") { return text }
            throw KeyedArchive.corrupt(
                archive.name, "\(describe(key)) is an archived \(object.className), not a plain value")
        }
    }

    /// The field `key` as text (nil when absent).
    public func string(_ key: String) throws -> String? {
        guard let value = try plain(key) else { return nil }
        guard let text = value.stringValue else {
            throw KeyedArchive.corrupt(archive.name, "\(describe(key)) is a \(value.kindName), not a string")
        }
        return text
    }

    /// The field `key` as an integer (nil when absent).
    public func integer(_ key: String) throws -> Int64? {
        guard let value = try plain(key) else { return nil }
        switch value {
        case .integer(let number): return number
        case .bool(let flag): return flag ? 1 : 0
        default:
            throw KeyedArchive.corrupt(archive.name, "\(describe(key)) is a \(value.kindName), not an integer")
        }
    }

    /// The elements of this object when it is an `NSArray`/`NSSet` (`NS.objects`), resolved.
    public func elements() throws -> [ArchivedValue?] {
        guard let items = fields["NS.objects"]?.arrayValue else {
            throw KeyedArchive.corrupt(archive.name, "object \(index) (\(className)) has no NS.objects array")
        }
        return try items.enumerated().map { offset, item in
            try archive.resolve(item, what: "element \(offset) of object \(index) (\(className))")
        }
    }

    /// The entries of this object when it is an `NSDictionary` (`NS.keys`, `NS.objects`), in
    /// archive order, keys resolved to text.
    public func entries() throws -> [(key: String, value: ArchivedValue?)] {
        guard let keys = fields["NS.keys"]?.arrayValue, let values = fields["NS.objects"]?.arrayValue,
            keys.count == values.count
        else {
            throw KeyedArchive.corrupt(
                archive.name, "object \(index) (\(className)) has no matching NS.keys and NS.objects")
        }
        return try zip(keys, values).enumerated().map { offset, pair in
            let what = "key \(offset) of object \(index) (\(className))"
            let key: String
            switch try archive.resolve(pair.0, what: what) {
            case .plain(.string(let text))?: key = text
            case .object(let object)? where object.isKind(of: "NSString"):
                guard let text = try object.string("NS.string") else {
                    throw KeyedArchive.corrupt(archive.name, "\(what) is an empty NSString")
                }
                key = text
            default: throw KeyedArchive.corrupt(archive.name, "\(what) is not a string")
            }
            return (key, try archive.resolve(pair.1, what: "value \"\(key)\" of object \(index) (\(className))"))
        }
    }

    private func describe(_ key: String) -> String { "\(key) of object \(index) (\(className))" }
}
