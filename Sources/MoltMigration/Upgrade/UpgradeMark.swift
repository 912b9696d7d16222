internal import MoltCore

/// The record an upgrade keeps in the store's metadata (under ``StoreUpgrade/progressKey``)
/// of the last stage handler that completed, written in the same transaction as the handler's
/// changes:
///
/// ```
/// MoltUpgradeProgress = { from = "V2"; to = "V3"; completed = "willMigrate" }
/// ```
///
/// With the store's version (its hashes), it tells a new run where an interrupted one stopped:
///
/// | store at | record | then |
/// |---|---|---|
/// | `from` | willMigrate of the stage | the step runs without `willMigrate` again |
/// | `to` | willMigrate of the stage | the step is done; `didMigrate` runs first |
/// | `to` | didMigrate of the stage | the stage is done |
/// | anything else | any | nothing to resume (a stale record) |
///
/// Migrations keep the store's other metadata keys, so the record survives each step; the
/// upgrade checks it did and removes it when complete.
struct UpgradeMark: Equatable {
    var from: String
    var to: String
    var completed: UpgradeStage.Phase

    init(stage: UpgradeStage, completed: UpgradeStage.Phase) {
        from = stage.from
        to = stage.to
        self.completed = completed
    }

    /// Reads the record; nil when absent or not understood.
    init?(_ value: PropertyList?) {
        guard let entries = value?.dictionaryValue, let from = entries["from"]?.stringValue,
            let to = entries["to"]?.stringValue,
            let completed = entries["completed"]?.stringValue.flatMap(UpgradeStage.Phase.init(rawValue:))
        else { return nil }
        self.from = from
        self.to = to
        self.completed = completed
    }

    var propertyList: PropertyList {
        .dictionary(["from": .string(from), "to": .string(to), "completed": .string(completed.rawValue)])
    }

    func isAbout(_ stage: UpgradeStage) -> Bool {
        stage.from == from && stage.to == to
    }
}
