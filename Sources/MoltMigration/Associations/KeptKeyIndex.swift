/// One entity mapping's associations held in memory while each of them kept its object's key
/// (the destination object has the source object's primary key, one destination per source,
/// all in one hierarchy each side): then "which object did the mapping make from this one?" is
/// a bit, not a query. A million associations take 125 KB.
///
/// The first association that breaks the form (another key, a second destination, a key past
/// ``keyLimit``) makes the index useless, and ``AssociationTable`` drops it; the table on disk
/// always holds every association.
struct KeptKeyIndex {
    /// Keys past this are left to the table (the bits would take more than 8 MB).
    static let keyLimit: Int64 = 1 << 26

    let sourceRoot: Int
    let destinationRoot: Int
    let destinationEntity: Int
    /// The entity of every source object, or nil once they are of several entities (the
    /// form holds either way).
    private(set) var sourceEntity: Int?
    /// How many associations the index holds (one per source object, one per destination).
    private(set) var count = 0
    private var bits = KeyBits()

    /// An index holding `source` → `destination`, or nil when the pair does not keep its key.
    init?(source: AssociationTable.Key, destination: AssociationTable.Key) {
        sourceRoot = source.root
        destinationRoot = destination.root
        destinationEntity = destination.entity
        sourceEntity = source.entity
        guard add(source: source, destination: destination) else { return nil }
    }

    /// Records a pair; false when it breaks the form.
    mutating func add(source: AssociationTable.Key, destination: AssociationTable.Key) -> Bool {
        let key = source.primaryKey
        guard key == destination.primaryKey, key >= 0, key < Self.keyLimit, source.root == sourceRoot,
            destination.root == destinationRoot, destination.entity == destinationEntity
        else { return false }
        if bits.insert(key) { count += 1 }
        if source.entity != sourceEntity { sourceEntity = nil }
        return true
    }

    /// The destinations made from `source`, or nil when the index cannot say (another hierarchy).
    func destinations(of source: AssociationTable.Key) -> [AssociationTable.Key]? {
        guard source.root == sourceRoot else { return nil }
        let key = source.primaryKey
        guard contains(key) else { return [] }
        return [AssociationTable.Key(root: destinationRoot, primaryKey: key, entity: destinationEntity)]
    }

    /// Whether the index holds exactly this pair (associating it again changes nothing).
    func holds(source: AssociationTable.Key, destination: AssociationTable.Key) -> Bool {
        source.root == sourceRoot && destination.root == destinationRoot && destination.entity == destinationEntity
            && source.primaryKey == destination.primaryKey && contains(source.primaryKey)
    }

    /// The sources the destination was made from, or nil when the index cannot say (the
    /// sources are of several entities).
    func sources(of destination: AssociationTable.Key) -> [AssociationTable.Key]? {
        guard let sourceEntity else { return nil }
        guard destination.root == destinationRoot, contains(destination.primaryKey) else { return [] }
        return [AssociationTable.Key(root: sourceRoot, primaryKey: destination.primaryKey, entity: sourceEntity)]
    }

    /// The destinations in key order after `after` (a hierarchy and key), at most `limit`.
    func destinations(after: (root: Int, primaryKey: Int64), limit: Int) -> [AssociationTable.Key] {
        guard limit > 0, after.root < destinationRoot || (after.root == destinationRoot && after.primaryKey < .max)
        else { return [] }
        var result: [AssociationTable.Key] = []
        let start = after.root < destinationRoot ? 0 : max(after.primaryKey + 1, 0)
        forEachKey(from: start) { key in
            result.append(AssociationTable.Key(root: destinationRoot, primaryKey: key, entity: destinationEntity))
            return result.count < limit
        }
        return result
    }

    /// Calls `body` with each key from `start` on, in order, while it returns true.
    func forEachKey(from start: Int64 = 0, _ body: (Int64) throws -> Bool) rethrows {
        try bits.forEachKey(from: start, body)
    }

    /// Whether the object with this key (of the index's source hierarchy) made a destination
    /// object, the one with the same key.
    func contains(_ key: Int64) -> Bool {
        key < Self.keyLimit && bits.contains(key)
    }

    /// Forgets a destination object (deleted).
    mutating func remove(destination: AssociationTable.Key) {
        guard destination.root == destinationRoot else { return }
        if bits.remove(destination.primaryKey) { count -= 1 }
    }
}
