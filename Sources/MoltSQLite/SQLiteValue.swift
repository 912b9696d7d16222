public import Foundation

/// A value as SQLite stores it: one of its five storage classes.
public enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

extension SQLiteValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
}

extension SQLiteValue {
    public var isNull: Bool { self == .null }

    public var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var realValue: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }

    public var textValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    public var blobValue: Data? {
        if case .blob(let value) = self { return value }
        return nil
    }

    /// The storage class's name as SQLite's `typeof()` gives it.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }
}
