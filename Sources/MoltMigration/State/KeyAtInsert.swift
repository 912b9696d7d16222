import MoltCore
import MoltMapping
import MoltModel
import MoltSQLite
import MoltStore

/// A to-one relationship whose foreign key the copy pass writes in each new row, so the relate
/// pass need not rewrite the row to set it: a row written once, not written and then updated.
///
/// The relate pass would set the relationship to Core Data's default value: the destination
/// object the target mapping made from the source object's related object. When the target
/// mapping keeps keys (each destination object has its source object's primary key, which is
/// what a mapping copying into a new store does), that object's key is the source's foreign
/// key, known as soon as the source row is read, before the target mapping has run. So the
/// copy pass writes that key, or NULL when the source object has no related object of the
/// target mapping's source entity, and records each key it wrote (``WrittenKeys``).
///
/// A policy's own `createDestinationInstances` gets the same: an object it makes with
/// `createDestinationObject` while the copy pass hands it a source, of the mapping's
/// destination entity, is written with the keys of that source.
///
/// Before relating the mapping, the relate pass checks the guess (``PassState/settleKeysAtInsert(_:)``):
/// every key written must be one the target mapping made from the source object of that key
/// (its kept-key bits, ``KeptKeyIndex``); when a policy made rows, they must be exactly the
/// objects the mapping associated, each with the source it was made for. Then each row holds
/// what the relate pass would write, and the relationship is not written again. When the check
/// fails (a key was not kept, a source link names no object, a row no source was associated
/// with), the keys are cleared from their rows and the relate pass writes the relationship as
/// it always does.
///
/// Nothing may see the row between the two passes, or see it differently. The engine's own
/// work cannot: the plan chooses this only when no value or filter of the pass can read the
/// destination store (no `FUNCTION`, no `$manager`, `$destination` or `$entityPolicy`), every
/// relationship value of the pass is Core Data's default form, the step has one pass, and no
/// mapping related before this one writes the inverse (a to-many held in the same column).
/// The relationship's inverse must not be a to-one (a one-to-one moves its partner), and its
/// storage keeps no order. A policy's hooks could: policies reach the destination store only
/// through ``DestinationCheckpoint``, which takes the keys written so far back before a policy
/// reads the store's objects or changes their relationships, so it sees what Core Data's copy
/// pass leaves.
struct KeyAtInsert: Sendable {
    /// The destination relationship (a to-one of the mapping's destination entity).
    let relationship: String
    /// The source relationship its value reads (a to-one of the mapping's source entity).
    let sourceRelationship: String
    /// The source entity the target mapping reads: a key is written only for related objects
    /// of exactly this entity (the target mapping makes nothing from others).
    let sourceTarget: String
    /// The target mapping's number, and the destination entity it makes (name, layout number).
    let targetMapping: Int
    let targetEntity: String
    let targetEntityNumber: Int
    /// The destination entity whose rows hold the key (the mapping's destination entity).
    let owner: String
    /// The foreign-key column, and the column of the related object's entity number when the
    /// relationship's destination has sub-entities.
    let column: String
    let entityColumn: String?

    /// The columns written, in order.
    var columns: [String] { [column] + (entityColumn.map { [$0] } ?? []) }
}

/// One mapping's ``KeyAtInsert``s in a run: the columns its new rows fill, the keys
/// written so far (one ``WrittenKeys`` per link), and the rows written with them.
final class KeysAtInsert {
    let links: [KeyAtInsert]
    /// The link columns, in order, as the insert names them.
    let columns: [String]
    var written: [WrittenKeys]
    /// The rows written with link values (``DestinationCheckpoint/passed()`` clears them).
    private(set) var rows = KeyBits()
    private(set) var rowCount = 0
    /// Rows past ``KeptKeyIndex/keyLimit``, which the bits do not hold.
    private(set) var farRows: [Int64] = []
    /// Whether a policy's own `createDestinationObject` made some of the rows: then the relate
    /// pass holds the keys only when the rows are exactly the objects the mapping associated,
    /// each with the source object it was made for.
    var madeByPolicy = false
    /// Whether new rows are written without link values from now on (the keys were withdrawn).
    private(set) var stopped = false
    /// The insert of the owner's rows with the link columns, made on first use.
    var plan: InsertPlan?

    init(_ links: [KeyAtInsert]) {
        self.links = links
        columns = links.flatMap(\.columns)
        written = Array(repeating: WrittenKeys(), count: links.count)
    }

    /// Forgets every guess: the relate pass writes every link itself.
    func giveUp() {
        for index in written.indices { written[index].giveUp() }
    }

    /// Records a row written with link values.
    func recordRow(_ key: Int64) {
        if key >= 0, key < KeptKeyIndex.keyLimit {
            if rows.insert(key) { rowCount += 1 }
        } else {
            farRows.append(key)
            giveUp()
        }
    }

    /// Every row written with link values.
    func forEachRow(_ body: (Int64) throws -> Void) rethrows {
        try rows.forEachKey { key in
            try body(key)
            return true
        }
        for key in farRows { try body(key) }
    }

    /// Whether the rows are exactly the destination objects of `kept` (a mapping's kept keys).
    func rowsAre(_ kept: KeptKeyIndex) -> Bool {
        guard farRows.isEmpty, rowCount == kept.count else { return false }
        var all = true
        rows.forEachKey { key in
            all = kept.contains(key)
            return all
        }
        return all
    }

    /// Stops writing link values and forgets every guess and row (the rows were cleared).
    func stop() {
        stopped = true
        giveUp()
        rows = KeyBits()
        rowCount = 0
        farRows = []
    }
}

extension PassState {
    /// Sets the pass's keys written at insert (the plan's choice for the pass).
    func planKeysAtInsert(_ links: [String: [KeyAtInsert]]) {
        keysAtInsert = links.mapValues(KeysAtInsert.init)
    }

    /// Inserts a new object of `entity` with its row of attribute values (with `plan`, the
    /// entity's insert, when the caller has it), and, when the mapping named `mapping` writes
    /// to-one keys with its new rows (``KeyAtInsert``), the keys worked out from
    /// `source`, each recorded for the relate pass to check (``settleKeysAtInsert(_:)``).
    ///
    /// `byPolicy`: a policy's own `createDestinationObject` made the object, so nothing says yet
    /// that it will be `source`'s: an object of another entity gets no key, and the relate pass
    /// checks that the rows are the objects the mapping associated, each with its own source.
    func insertNewObject(
        _ entity: String, row: [AttributeValue?], plan: InsertPlan? = nil, mapping: @autoclosure () -> String?,
        source: @autoclosure () -> SourceObject?, byPolicy: Bool
    ) throws -> ObjectID {
        let preferredKey = copying.source?.primaryKey
        guard !keysAtInsert.isEmpty, let mapping = mapping(), let inserted = keysAtInsert[mapping], !inserted.stopped,
            !byPolicy || inserted.links.first?.owner == entity, let source = source(),
            let values = linkValues(inserted, entity: entity, source: source)
        else {
            if let plan {
                return try writer.insert(plan, columnValues: row, preferredKey: preferredKey, linkValues: [])
            }
            return try writer.insert(entity, columnValues: row, preferredKey: preferredKey)
        }
        let withLinks = try inserted.plan ?? writer.insertPlan(for: entity, linkColumns: inserted.columns)
        inserted.plan = withLinks
        let id = try writer.insert(withLinks, columnValues: row, preferredKey: preferredKey, linkValues: values)
        inserted.recordRow(id.primaryKey)
        if byPolicy {
            inserted.madeByPolicy = true
            // Keys worked out from one source, in a row that may be another's.
            if id.primaryKey != source.id.primaryKey { inserted.giveUp() }
        }
        return id
    }

    /// The values of the link columns for a new object of `entity` made from `source`; nil when
    /// the object is not one the plan foresaw (nothing is guessed for the mapping any more).
    private func linkValues(_ inserted: KeysAtInsert, entity: String, source: SourceObject) -> [SQLiteValue]? {
        var values: [SQLiteValue] = []
        values.reserveCapacity(inserted.columns.count)
        for (index, link) in inserted.links.enumerated() {
            guard link.owner == entity else {
                inserted.giveUp()
                return nil
            }
            var key: Int64?
            switch source.read.relationships[link.sourceRelationship] {
            case .toOne(let related)?:
                if let related, related.entity == link.sourceTarget { key = related.primaryKey }
            default:
                // Not read with the row: the relate pass works the value out.
                inserted.written[index].giveUp()
            }
            if let key {
                inserted.written[index].insert(key)
                values.append(.integer(key))
                if link.entityColumn != nil { values.append(.integer(Int64(link.targetEntityNumber))) }
            } else {
                values.append(.null)
                if link.entityColumn != nil { values.append(.null) }
            }
        }
        return values
    }

    /// The relationships of `mapping` whose keys the copy pass wrote as the relate pass would
    /// write them: every key written names a source object the target mapping made a
    /// destination object from, with that same key and of the entity written (its kept-key
    /// bits); when a policy made rows itself, the rows are exactly the objects the mapping
    /// associated, each with the source its keys came from; and no policy deleted a source
    /// object from the source context (the relate pass would leave it out). The others the
    /// relate pass writes
    /// itself: their keys are first cleared from every row written with them, so a row the
    /// relate pass does not visit (an object no source was associated with) is left as Core
    /// Data leaves it, without the relationship.
    ///
    /// Called as the relate pass reaches the mapping: from then on the columns hold what the
    /// relate pass leaves there, so the rows are forgotten (nothing withdraws them any more).
    func settleKeysAtInsert(_ mapping: EntityMapping) throws -> Set<String> {
        guard let inserted = keysAtInsert.removeValue(forKey: mapping.name) else { return [] }
        // A source object a policy deleted from the source context is no longer related to
        // any: the keys read from the rows may name it.
        let verified = !hasDeletedSources && rowsHold(inserted, mapping) ? keysHold(inserted) : []
        let unverified = inserted.links.filter { !verified.contains($0.relationship) }
        if !unverified.isEmpty, let owner = inserted.links.first?.owner {
            logger.debug(
                "relate: keys written at insert do not hold; cleared, and written again",
                metadata: [
                    "molt.mapping": "\(mapping.name)", "molt.relationships": "\(unverified.map(\.relationship))",
                ])
            try writer.clearColumns(unverified.flatMap(\.columns), of: owner, rows: inserted.forEachRow)
        }
        return verified
    }

    /// Whether the rows written with keys are the objects the relate pass visits with the
    /// sources the keys came from: always so for rows the engine made by default (each is
    /// associated with its source at once); for rows a policy made, when they are exactly the
    /// mapping's kept-key objects.
    private func rowsHold(_ inserted: KeysAtInsert, _ mapping: EntityMapping) -> Bool {
        guard inserted.madeByPolicy else { return true }
        guard let own = try? number(of: mapping.name),
            let kept = associations.keptIndex(of: own), let owner = inserted.links.first?.owner
        else { return false }
        return kept.destinationEntity == destination.layout.entity(named: owner)?.number && inserted.rowsAre(kept)
    }

    /// The links whose every key written is one the target mapping kept.
    private func keysHold(_ inserted: KeysAtInsert) -> Set<String> {
        var verified: Set<String> = []
        for (index, link) in inserted.links.enumerated() {
            let written = inserted.written[index]
            guard written.usable else { continue }
            if written.count > 0 {
                guard let kept = associations.keptIndex(of: link.targetMapping),
                    kept.destinationEntity == link.targetEntityNumber,
                    let root = source.layout.numbers(ofEntity: link.sourceTarget)?.root, kept.sourceRoot == root,
                    written.allSatisfy({ kept.contains($0) })
                else { continue }
            }
            verified.insert(link.relationship)
        }
        return verified
    }
}
