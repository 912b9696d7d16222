import MoltStore

/// Keys written with new rows (``ForeignKeyAtInsert``) are invisible to policies: Core Data's
/// copy pass makes objects without relationships, and a policy may look at the new store (a
/// fetch, a value, the store itself) or change it before the relate pass. So before anything a
/// policy does with the destination store, through the manager or its destination context,
/// the keys written so far are cleared from their rows, and the mappings that wrote them write
/// no more: the relate pass then writes those relationships itself, as it would have without
/// the guess. A policy that never looks (the common case) keeps the rows written once.
extension PassState {
    /// Clears every key written with a new row so far, and stops writing them for the
    /// mappings that wrote some. Called before a policy reads or changes the destination store;
    /// nothing to do when no row holds a key.
    func withdrawLinksAtInsert() throws {
        for (name, inserted) in linksAtInsert where inserted.rowCount > 0 || !inserted.farRows.isEmpty {
            guard let owner = inserted.links.first?.owner else { continue }
            logger.debug(
                "copy: a policy looks at the new store; keys written with new rows are taken back",
                metadata: ["molt.mapping": "\(name)"])
            try writer.clearColumns(inserted.columns, of: owner, rows: inserted.forEachRow)
            inserted.stop()
        }
    }

    /// Before the destination store itself is handed to a policy, which may keep it and read it
    /// at any time: the keys written so far are withdrawn and no mapping of the pass writes any
    /// more. A failure is thrown when the policy's hook returns (as Core Data's `associate`'s).
    func withdrawLinksAtInsertForGood() {
        do {
            try withdrawLinksAtInsert()
            for inserted in linksAtInsert.values { inserted.stop() }
        } catch {
            if deferredError == nil { deferredError = error }
        }
    }
}
