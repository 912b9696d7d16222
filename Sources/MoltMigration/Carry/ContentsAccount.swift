internal import MoltModel
internal import MoltStore

/// Says what a run did with a store's contents besides its objects (``CarriedContents``),
/// from the survey made before the run and what the run did.
struct ContentsAccount {
    let contents: StoreContents
    var history = HistoryOutcome()
    /// Tables, triggers and views neither the model nor Core Data explains: kept or dropped.
    var unknownKept = true
    /// `Z_PRIMARYKEY` rows naming no entity that the destination's own rows replaced.
    var replacedStrayRecords: [SQLiteStore.EntityRecord] = []
    /// What became of the store's model cache.
    var modelCache = ModelCacheFate.none

    /// What a run does with a store's model cache (`Z_MODELCACHE`).
    enum ModelCacheFate: Equatable {
        /// The store had none.
        case none
        /// It now holds the new version's model.
        case written
        /// It was emptied: the new version's model has what the compiled form does not hold.
        case emptied(String)

        /// The fate for a store that has a cache, migrated to `model`.
        static func forCache(of model: ObjectModel) -> ModelCacheFate {
            let omissions = ModelCache.omissions(of: model)
            guard let first = omissions.first else { return .written }
            return .emptied(first + (omissions.count > 1 ? " and \(omissions.count - 1) more" : ""))
        }
    }

    func carried() -> CarriedContents {
        var carried = CarriedContents()
        if contents.hasHistory {
            // What is kept: the changes the run deleted are listed as discarded, not here.
            let counts = PersistentHistory.tables.reversed().compactMap { contents.table($0) }.map { table in
                let removed = table.name == PersistentHistory.changeTable ? history.removedChanges : 0
                let rows = max(0, (table.rows ?? 0) - removed)
                return "\(rows) \(Self.noun(table.name, rows))"
            }.joined(separator: ", ")
            carried.kept.append(.init("persistent history", "\(counts); their key counters in Z_PRIMARYKEY"))
        }
        for record in contents.privateEntities
        where !PersistentHistory.tables.contains(PersistentHistory.table(ofPrivateEntity: record.name)) {
            carried.kept.append(.init("Core Data's entity \(record.name) (\(record.number))", "its key counter"))
        }
        let cloudKit = contents.tables(.cloudKit)
        if !cloudKit.isEmpty {
            carried.kept.append(
                .init(
                    "CloudKit mirroring", "\(cloudKit.count) tables, \(cloudKit.compactMap(\.rows).reduce(0, +)) rows"))
        }
        if history.renumberedChanges > 0 {
            carried.rewritten.append(
                .init("\(history.renumberedChanges) history changes", "now name their entities by the new numbers"))
        }
        if history.rekeyedChanges > 0 {
            carried.rewritten.append(
                .init("\(history.rekeyedChanges) history changes", "now name the migrated objects by their new keys"))
        }
        if history.rewrittenUpdateMasks > 0 {
            carried.rewritten.append(
                .init(
                    "the changed-property masks of \(history.rewrittenUpdateMasks) history updates",
                    "each changed property's bit moved to where the new version puts it; removed properties' bits dropped"
                ))
        }
        if history.tombstoneChanges > 0 {
            carried.rewritten.append(
                .init(
                    "\(history.tombstoneChanges) history changes of deleted objects",
                    "given keys no object of the new store has"))
        }
        if history.renumberedCloudKitRows > 0 {
            carried.rewritten.append(
                .init(
                    "\(history.renumberedCloudKitRows) CloudKit mirroring rows",
                    "renumbered; \(CloudKitMirroring.zoneFetchKey) set"))
        }
        for table in contents.tables(.unknown) {
            let item = CarriedContents.Item(
                "table \(table.name)", "\(table.rows ?? 0) rows; neither the model's nor Core Data's")
            if unknownKept { carried.kept.append(item) } else { carried.discarded.append(item) }
        }
        for name in contents.triggers + contents.views {
            let item = CarriedContents.Item("\(contents.triggers.contains(name) ? "trigger" : "view") \(name)", "")
            if unknownKept { carried.kept.append(item) } else { carried.discarded.append(item) }
        }
        for record in contents.strayEntityRecords {
            let item = CarriedContents.Item(
                "Z_PRIMARYKEY row \(record.number) \(record.name)", "names no entity of the model")
            if replacedStrayRecords.contains(record) {
                carried.discarded.append(.init(item.what, "the new version's entity of that number replaces it"))
            } else {
                carried.kept.append(item)
            }
        }
        if history.removedChanges > 0 {
            carried.discarded.append(
                .init(
                    "\(history.removedChanges) history changes",
                    "of objects the step does not carry (as Core Data's partial history migration deletes them)"))
        }
        switch modelCache {
        case .none:
            break
        case .written:
            carried.rewritten.append(
                .init("the model cache (Z_MODELCACHE)", "now the new version's model, compiled as Core Data keeps it"))
        case .emptied(let why):
            carried.discarded.append(
                .init(
                    "the model cache (Z_MODELCACHE)",
                    "it held the source model; the new version's has what Molt does not compile as Core Data does (\(why)), so the store has none"
                ))
        }
        return carried
    }

    static func noun(_ table: String, _ count: Int) -> String {
        let word =
            switch table {
            case PersistentHistory.changeTable: "change"
            case PersistentHistory.transactionTable: "transaction"
            default: "string"
            }
        return count == 1 ? word : word + "s"
    }
}
