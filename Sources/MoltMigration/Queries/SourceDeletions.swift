internal import MoltCore
internal import MoltModel
internal import MoltStore

/// Deleting source objects from a policy (`manager.sourceContext.delete(object)` in Core
/// Data): a port of a policy that drops duplicates in `begin`, ahead of a uniqueness
/// constraint, does this.
///
/// In a Core Data migration the source context is never saved, so the source store is never
/// written; the objects are gone from that context for the rest of the run. Molt does the
/// same: a deleted object is no longer read (fetches, the mappings' objects, `sourceObject`)
/// and is left out of every relationship that held it, as the delete rules leave the context:
/// - **Cascade**: the related objects are deleted too (their own rules apply);
/// - **Deny**: while the relationship holds an object that is not deleted with it, nothing is
///   deleted and the error is 1600, naming the object, relationship and related object;
/// - **Nullify** and **No Action**: the related objects stay and no longer hold it (a No
///   Action link would point at an object the migration never makes).
/// Objects a mapping already made from a deleted object stay, with their associations; the
/// relate pass reads the deleted object as their source as Core Data's context holds it:
/// its attributes as stored, no object by a relationship with an inverse (the other side no
/// longer holds it), and, by one without, the objects not deleted
/// (`StoreObjectResolver.links(_:of:hasInverse:without:)`).
extension PassState {
    /// Deletes `ids` and what their Cascade relationships hold; returns every object deleted.
    @discardableResult
    func deleteSourceObjects(_ ids: [ObjectID]) throws -> [ObjectID] {
        var doomed = resolver.deletedSources
        var found: [(id: ObjectID, object: StoredObject)] = []
        var pending = ids
        var next = 0
        while next < pending.count {
            let id = pending[next]
            next += 1
            guard doomed.insert(id).inserted else { continue }
            guard let stored = try source.object(id) else {
                throw MoltError(.sourceStore, "the source object \(id) does not exist", entity: id.entity)
            }
            found.append((id, stored))
            for link in try source.layout.requireEntity(id.entity).relationships
            where link.relationship.deleteRule == .cascade {
                pending += stored.relationships[link.relationship.name]?.objectIDs ?? []
            }
        }
        for (id, stored) in found {
            for link in try source.layout.requireEntity(id.entity).relationships
            where link.relationship.deleteRule == .deny {
                let staying = (stored.relationships[link.relationship.name]?.objectIDs ?? []).filter {
                    !doomed.contains($0)
                }
                guard !staying.isEmpty else { continue }
                throw ObjectWriter.deniedDelete(
                    "the source object \(id)", entity: id.entity, relationship: link.relationship.name,
                    staying: staying, recovery: "Delete the related source objects first, or delete them together.")
            }
        }
        resolver.deletedSources = doomed
        relating.batch = nil  // what was read ahead may hold them
        return found.map(\.id)
    }

    /// Whether a policy deleted source objects in this run.
    var hasDeletedSources: Bool { !resolver.deletedSources.isEmpty }

    /// Source objects deleted in this run, every pass counted.
    var deletedSourceCount: Int { deletedSourcesOfEarlierPasses + resolver.deletedSources.count }
}
