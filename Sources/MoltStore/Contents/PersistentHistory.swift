/// Core Data's persistent history as it lies in a store: three tables named like Core Data's
/// own entities (`A` and the entity name), whose key counters are `Z_PRIMARYKEY` rows numbered
/// above 16000. Facts read from real SwiftData and Core Data stores (framework 1345).
///
/// `ACHANGE.ZENTITY` is the changed object's entity number (`Z_ENT`) and `ZENTITYPK` its
/// primary key; `ZCHANGETYPE` is 0 for an insert, 1 an update, 2 a delete; `ZCOLUMNS` is the
/// update's mask of changed properties (``HistoryColumnMask``). ``ObjectStore/historyChanges()``
/// reads the changes.
public enum PersistentHistory {
    public static let changeTable = "ACHANGE"
    public static let transactionTable = "ATRANSACTION"
    public static let stringTable = "ATRANSACTIONSTRING"
    /// The three history tables, in the order their rows depend on each other.
    public static let tables = [stringTable, transactionTable, changeTable]

    /// Entity numbers above this are Core Data's own entities (history's are 16001–16003).
    public static let privateEntityFloor = 16000

    /// The table of Core Data's own entity `name` (`CHANGE` → `ACHANGE`).
    public static func table(ofPrivateEntity name: String) -> String {
        "A" + name.uppercased()
    }
}
