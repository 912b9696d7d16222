public import Foundation

/// A property-list value: what Apple's plist files (binary `bplist00` or XML) hold.
///
/// Core Data keeps store metadata in one (`Z_METADATA.Z_PLIST`); keyed archives add the
/// ``uid(_:)`` case. Dictionaries are unordered; writers sort keys so output is repeatable.
public enum PropertyList: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case array([PropertyList])
    case dictionary([String: PropertyList])
    /// A keyed archive's object reference (`CF$UID`).
    case uid(UInt64)
}

extension PropertyList {
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var dataValue: Data? {
        if case .data(let value) = self { return value }
        return nil
    }

    public var arrayValue: [PropertyList]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var dictionaryValue: [String: PropertyList]? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// The value under `key` when this is a dictionary.
    public subscript(key: String) -> PropertyList? {
        dictionaryValue?[key]
    }

    /// A short name of the value's kind, for messages ("string", "dictionary"…).
    public var kindName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .bool: "boolean"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        case .uid: "uid"
        }
    }
}
