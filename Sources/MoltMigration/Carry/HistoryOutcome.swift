/// What a run did to persistent history and CloudKit mirroring rows.
struct HistoryOutcome {
    /// Changes whose entity number moved.
    var renumberedChanges = 0
    /// Changes given the new key of the object they name (a migration into a new store).
    var rekeyedChanges = 0
    /// Changes of deleted objects given a fresh key no object will take.
    var tombstoneChanges = 0
    /// Changes deleted: of entities the step removes, or of objects it does not carry.
    var removedChanges = 0
    /// CloudKit rows whose entity number moved.
    var renumberedCloudKitRows = 0
    /// Update changes whose masks of changed properties (`ZCOLUMNS`) were rewritten for their
    /// entity's new columns (``UpdateMasks``).
    var rewrittenUpdateMasks = 0
}
