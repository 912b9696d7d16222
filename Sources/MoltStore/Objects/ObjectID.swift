/// Identifies one object in a store: its entity and primary key (`Z_PK`).
///
/// Written `Entity/pk` (`Author/3`), which is also how `molt dump` names objects. Primary keys
/// are unique across an inheritance hierarchy (they share a table).
public struct ObjectID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var entity: String
    public var primaryKey: Int64

    public init(entity: String, primaryKey: Int64) {
        self.entity = entity
        self.primaryKey = primaryKey
    }

    /// Parses `Entity/pk`; nil when the text has another form.
    public init?(_ text: String) {
        guard let slash = text.lastIndex(of: "/") else { return nil }
        let entity = String(text[..<slash])
        guard !entity.isEmpty, let key = Int64(text[text.index(after: slash)...]), key > 0 else { return nil }
        self.init(entity: entity, primaryKey: key)
    }

    public var description: String { "\(entity)/\(primaryKey)" }

    /// Entity name (byte order), then primary key.
    public static func < (a: ObjectID, b: ObjectID) -> Bool {
        if a.entity != b.entity { return a.entity.utf8.lexicographicallyPrecedes(b.entity.utf8) }
        return a.primaryKey < b.primaryKey
    }
}
