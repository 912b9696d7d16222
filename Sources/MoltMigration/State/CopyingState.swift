import MoltStore

/// What the copy pass holds while it makes one source object's destination objects
/// (``PassState/copying``), and what it keeps from one object to the next.
final class CopyingState {
    /// The source object whose destination objects are being made, if any: new objects take
    /// its primary key when that key is free.
    var source: ObjectID?
    /// That source object, as read (its to-one keys are what ``KeyAtInsert`` writes).
    var sourceObject: SourceObject?
    /// The insert plan `createDestinationObject` used last, and its entity.
    var insertPlan: (entity: String, plan: InsertPlan)?
    /// The columns of the attribute names `createDestinationObject` was last given, in the
    /// order its dictionary gave them, for the insert plan named (by identity).
    var attributeColumns: AttributeColumns = (nil, [])

    /// Runs `body` while `source` is the object being copied.
    func visiting<T>(_ source: SourceObject, _ body: () throws -> T) rethrows -> T {
        self.source = source.id
        sourceObject = source
        defer {
            self.source = nil
            sourceObject = nil
        }
        return try body()
    }
}

/// The columns of the attribute names last given for an insert plan (by identity), in the
/// order the names came: what ``PassState/row(of:plan:entity:memo:)`` checks first.
typealias AttributeColumns = (plan: ObjectIdentifier?, columns: [(name: String, column: Int)])
