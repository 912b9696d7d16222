import MoltMapping
import MoltStore

/// A relationship whose inverse another mapping has already written with these very links
/// needs no writing: the object-by-object pass would set each object to what it already holds.
/// The relate pass in SQL skips such relationships (``RelateInSQL/LinkWrite/skip``); so does
/// the batched relate pass, under the same rules, for the to-many sides, and it records what it
/// wrote for the mappings after it.
///
/// Both sides of a relationship are stored in one place (a foreign key column or a join
/// table), so two mappings that each write the image of the same source links through the
/// association table write the same rows. That holds when each side's value is Core Data's
/// default form, each names the other's mapping (``PassFacts/sidesAgree(_:value:in:)``), the
/// storage keeps no order, every destination object of both mappings is of its mapping's
/// entity and made from one source object, and no policy deleted source objects from the run's
/// context (the objects' values would then differ from the stored links).
extension RelateInBatches {
    /// The batched to-many relationships of the mapping another mapping has already written
    /// from the other side with these very links.
    func alreadyWritten(_ state: PassState) throws -> Set<String> {
        guard !state.relating.written.isEmpty, try writesExactImages(state) else { return [] }
        var skipped: Set<String> = []
        for (name, link) in links where link.relationship.isToMany {
            guard let target = link.targetMapping,
                let inverse = state.relating.written.first(where: {
                    $0.storedIn == link.storedIn && $0.readFrom == link.readFrom && $0.mapping == target
                        && $0.targetMapping == number
                }),
                inverse.targetKinds.contains(entity), link.targetKinds.contains(inverse.entity)
            else { continue }
            skipped.insert(name)
        }
        return skipped
    }

    /// Records that the mapping wrote `names` (after the last batch), for the mappings after it.
    func recordWritten(_ names: Set<String>, _ state: PassState) throws {
        let described = names.compactMap { links[$0] }.filter { $0.targetMapping != nil }
        guard !described.isEmpty, try writesExactImages(state) else { return }
        for link in described {
            state.relating.written.insert(
                RelateState.Written(
                    storedIn: link.storedIn, readFrom: link.readFrom, mapping: number,
                    targetMapping: link.targetMapping!,
                    entity: entity, targetKinds: link.targetKinds))
        }
    }

    /// Whether the mapping's values are the images of the stored source links: no source
    /// object deleted from the run's context, and every destination object of the mapping of
    /// its entity and made from one source object.
    private func writesExactImages(_ state: PassState) throws -> Bool {
        guard !state.hasDeletedSources else { return false }
        // Asked before and after the mapping's batches: the relate pass forgets the facts
        // when a mapping starts, and nothing associates during a batched mapping, so the
        // table is scanned (when the bits cannot answer) once.
        return try RelateInSQL.isOneToOne(number, entity: entity, state)
    }
}
