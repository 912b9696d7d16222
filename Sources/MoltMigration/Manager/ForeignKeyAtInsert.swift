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
/// Before relating the mapping, the relate pass checks the guess: every key written must be
/// one the target mapping made from the source object of that key (its kept-key bits,
/// ``KeptKeyIndex``). Then each row holds what the relate pass would write, and the
/// relationship is not written again. When the check fails (a key was not kept, a source link
/// names no object), the relate pass writes the relationship as it always does, which compares
/// each row with its value and corrects it.
///
/// Nothing may see the row between the two passes, or see it differently: so the plan chooses
/// this only when no policy of the pass overrides any hook, no value or filter of the pass can
/// read the destination store (no `FUNCTION`, no `$manager`, `$destination` or
/// `$entityPolicy`), every relationship value of the pass is Core Data's default form, the step
/// has one pass, and no mapping related before this one writes the inverse (a to-many held in
/// the same column). The relationship's inverse must not be a to-one (a one-to-one moves its
/// partner), and its storage keeps no order.
struct ForeignKeyAtInsert: Sendable {
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

/// One mapping's ``ForeignKeyAtInsert``s in a run: the columns its new rows fill, and the keys
/// written so far (one ``WrittenKeys`` per link).
final class LinksAtInsert {
    let links: [ForeignKeyAtInsert]
    /// The link columns, in order, as the insert names them.
    let columns: [String]
    var written: [WrittenKeys]

    init(_ links: [ForeignKeyAtInsert]) {
        self.links = links
        columns = links.flatMap(\.columns)
        written = Array(repeating: WrittenKeys(), count: links.count)
    }

    /// Forgets every guess: the relate pass writes every link itself.
    func giveUp() {
        for index in written.indices { written[index].giveUp() }
    }
}

extension PassState {
    /// Sets the pass's links written at insert (the plan's choice for the pass).
    func planLinksAtInsert(_ links: [String: [ForeignKeyAtInsert]]) {
        linksAtInsert = links.mapValues(LinksAtInsert.init)
    }

    /// The link columns and their values for a new object of `entity` that `mapping` makes
    /// from `source` by default; nil when the mapping writes none. Each key written is
    /// recorded, for the relate pass to check (``verifiedLinksAtInsert(_:)``).
    func linkValuesAtInsert(
        _ mapping: EntityMapping, entity: String, source: SourceObject
    ) -> (columns: [String], values: [SQLiteValue])? {
        guard let inserted = linksAtInsert[mapping.name] else { return nil }
        var values: [SQLiteValue] = []
        values.reserveCapacity(inserted.columns.count)
        for (index, link) in inserted.links.enumerated() {
            guard link.owner == entity else {
                // Not the object the plan foresaw: nothing is guessed for this mapping.
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
        return (inserted.columns, values)
    }

    /// The relationships of `mapping` whose keys the copy pass wrote as the relate pass would
    /// write them: every key written names a source object the target mapping made a
    /// destination object from, with that same key and of the entity written (its kept-key
    /// bits). The others (none when no guess holds) the relate pass writes itself.
    func verifiedLinksAtInsert(_ mapping: EntityMapping) -> Set<String> {
        guard let inserted = linksAtInsert[mapping.name] else { return [] }
        var verified: Set<String> = []
        for (index, link) in inserted.links.enumerated() {
            let written = inserted.written[index]
            guard written.usable else { continue }
            if written.count > 0 {
                guard let kept = associations.keptIndex(of: link.targetMapping),
                    kept.destinationEntity == link.targetEntityNumber,
                    let root = source.layout.numbers(ofEntity: link.sourceTarget)?.root, kept.sourceRoot == root,
                    written.allSatisfy({ kept.contains($0) })
                else {
                    logger.debug(
                        "relate: keys written at insert do not hold; writing them again",
                        metadata: ["molt.mapping": "\(mapping.name)", "molt.relationship": "\(link.relationship)"])
                    continue
                }
            }
            verified.insert(link.relationship)
        }
        return verified
    }
}
