/// A parsed JSON value with the line it starts on, so that errors about a seed file's
/// contents can point at the line. Numbers keep their text, so integers of any size and
/// decimals keep every digit; objects keep their keys in file order.
public struct JSONNode: Sendable, Hashable {
    public indirect enum Kind: Sendable, Hashable {
        case null
        case bool(Bool)
        /// The number exactly as written.
        case number(String)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    /// One `"key": value` of an object.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONNode
    }

    public var kind: Kind
    /// The 1-based line on which the value starts.
    public var line: Int

    public init(_ kind: Kind, line: Int) {
        self.kind = kind
        self.line = line
    }

    /// A short name of the value's kind, for messages.
    public var kindName: String {
        switch kind {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    public var stringValue: String? {
        if case .string(let text) = kind { return text }
        return nil
    }

    public var isNull: Bool { kind == .null }
}
