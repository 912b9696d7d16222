internal import MoltCore
internal import MoltMapping
internal import MoltStore

/// What one source object's `createDestinationInstances` did to the new store while it ran on a
/// copy worker (off the thread that writes): the objects it made, their values and the
/// associations, in the order it asked for them. The writing thread later does exactly these
/// writes, in the source objects' order, through the same calls the hook would have made on
/// it (``PassState/replay(_:of:mapping:)``), so the store is the one a run on one thread makes.
///
/// The hook is handed IDs of objects not written yet (provisional: a negative key naming this
/// recording and the object's place in it). A call that would need the new store or the
/// association table as they are at that point in the order (a fetch, a relationship, a
/// lookup of what another object made) cannot be answered here: it throws
/// ``InOrderRequired``, and the writing thread runs the hook again for that object, in order,
/// the way a run on one thread does. Nothing recorded is written before then, so the first
/// run leaves no trace.
final class CopyRecording {
    /// A destination object the hook names: one it made in this recording, or one that exists.
    enum Made {
        case new(Int)
        case existing(ObjectID)
    }

    /// One write, as the hook asked for it.
    enum Effect {
        /// `createDestinationObject` / `insertNewObject` (`byPolicy`) or the default instance:
        /// a row of values by column. `defaultOf` is the source of a default instance, which
        /// its errors name with the mapping, as the object-by-object path does (the text is made
        /// only for an error).
        case insert(entity: String, row: [AttributeValue?], plan: InsertPlan, byPolicy: Bool, defaultOf: ObjectID?)
        case setAttributes([String: ExpressionValue], of: Made)
        /// The manager's `associate(source:destination:)` (mapping nil: the current one), or
        /// Core Data's spelling with a mapping name.
        case associate(source: ObjectID, destination: Made, mapping: String?)
    }

    /// The most objects one hook may make in a recording (the rest of the provisional key
    /// names the recording); a hook that makes more runs in order.
    static let objectsPerRecording: Int64 = 1 << 16

    /// The source object's place in the mapping's order, which provisional keys name.
    let sequence: Int64
    /// The mapping's insert plans by entity, made before the workers start (read only).
    let plans: [String: InsertPlan]
    /// The current mapping's default row of a source object, when a worker can make it (every
    /// value is the source's own attribute, a default or none); nil: only in order.
    let defaultRow: ((SourceObject) throws -> (entity: String, row: [AttributeValue?]))?
    private(set) var effects: [Effect] = []
    /// The provisional IDs handed out, in order.
    private(set) var made: [ObjectID] = []
    /// The worker's memo of attribute columns (``PassState/row(of:plan:entity:memo:)``).
    private let columns: ColumnsMemo
    /// What a non-throwing call kept (Core Data's `associate`), thrown when the hook returns.
    var deferredError: (any Error)?
    /// The first call the recording could not answer: the hook must run in order, even when
    /// it caught the error (a `try?` must not turn a fetch into nothing).
    private(set) var needsOrder: String?

    init(
        sequence: Int64, plans: [String: InsertPlan],
        defaultRow: ((SourceObject) throws -> (entity: String, row: [AttributeValue?]))?,
        columns: ColumnsMemo = ColumnsMemo()
    ) {
        self.sequence = sequence
        self.plans = plans
        self.defaultRow = defaultRow
        self.columns = columns
    }

    /// A worker's memo of the attribute columns its hooks name, kept from one object to the next.
    final class ColumnsMemo {
        var value: AttributeColumns = (nil, [])
    }

    /// The error for a call only the writing thread can answer, noted (``needsOrder``).
    func requireOrder(_ call: String) -> InOrderRequired {
        if needsOrder == nil { needsOrder = call }
        return InOrderRequired(call: call)
    }

    /// Records a new object of `entity` with its row; returns its provisional ID.
    func insert(
        entity: String, row: [AttributeValue?], plan: InsertPlan, byPolicy: Bool, defaultOf: ObjectID?
    ) throws -> DestinationObject {
        guard Int64(made.count) < Self.objectsPerRecording else {
            throw requireOrder("more than \(Self.objectsPerRecording) objects from one source object")
        }
        let id = ObjectID(entity: entity, primaryKey: -(sequence * Self.objectsPerRecording + Int64(made.count)) - 1)
        made.append(id)
        effects.append(.insert(entity: entity, row: row, plan: plan, byPolicy: byPolicy, defaultOf: defaultOf))
        return DestinationObject(id: id)
    }

    /// Records a policy's `insertNewObject`: its attributes converted as the writing thread
    /// converts them (the same first failure, in column order).
    func insert(entity: String, attributes: [String: ExpressionValue]) throws -> DestinationObject {
        guard let plan = plans[entity] else {
            throw requireOrder("insertNewObject of \(entity), which the new model has no table for")
        }
        let row = try PassState.row(of: attributes, plan: plan, entity: entity, memo: &columns.value)
        return try insert(entity: entity, row: row, plan: plan, byPolicy: true, defaultOf: nil)
    }

    /// Records the current mapping's default instance of `source` and its association.
    func createDefaultDestinationInstance(for source: SourceObject) throws -> DestinationObject {
        guard let defaultRow else {
            throw requireOrder("createDefaultDestinationInstance, whose values need the run's state")
        }
        let (entity, row) = try defaultRow(source)
        guard let plan = plans[entity] else {
            throw requireOrder("createDefaultDestinationInstance of \(entity)")
        }
        let object = try insert(entity: entity, row: row, plan: plan, byPolicy: false, defaultOf: source.id)
        try associate(source: source.id, destination: object, mapping: nil)
        return object
    }

    func setAttributes(_ attributes: [String: ExpressionValue], of object: DestinationObject) throws {
        effects.append(.setAttributes(attributes, of: try made(object)))
    }

    func associate(source: ObjectID, destination: DestinationObject, mapping: String?) throws {
        effects.append(.associate(source: source, destination: try made(destination), mapping: mapping))
    }

    /// Whether `id` is a provisional ID (of any recording).
    static func isProvisional(_ id: ObjectID) -> Bool { id.primaryKey < 0 }

    /// The object `object` names: one of this recording's, or an existing one.
    private func made(_ object: DestinationObject) throws -> Made {
        guard Self.isProvisional(object.id) else { return .existing(object.id) }
        let key = -(object.id.primaryKey + 1)
        let index = key % Self.objectsPerRecording
        guard key / Self.objectsPerRecording == sequence, index < made.count, made[Int(index)] == object.id else {
            throw requireOrder("an object made for another source object")
        }
        return .new(Int(index))
    }
}

/// A policy call that a copy worker cannot answer: it needs the new store, the association
/// table or the run's state as they are at that object's place in the order. The object's hook
/// then runs again on the writing thread, in order (``CopyRecording``).
struct InOrderRequired: Error, CustomStringConvertible {
    /// The call, in words.
    let call: String

    var description: String { "\(call) runs in order on the writing thread" }
}
