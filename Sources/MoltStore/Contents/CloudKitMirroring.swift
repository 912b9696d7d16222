/// What `NSPersistentCloudKitContainer` keeps in a store it mirrors: tables named like Core
/// Data's own entities (`ANSCK…`), some of whose rows name objects by entity number and key.
public enum CloudKitMirroring {
    /// Its tables begin so (`ANSCKRECORDMETADATA`, …).
    public static let tablePrefix = "ANSCK"

    /// The tables whose rows name objects by entity number and key, and those columns.
    public static let objectColumns: [(table: String, entity: String, key: String)] = [
        ("ANSCKRECORDMETADATA", "ZENTITYID", "ZENTITYPK"),
        ("ANSCKHISTORYANALYZERSTATE", "ZENTITYID", "ZENTITYPK"),
    ]

    /// The metadata key Core Data sets when a migration renumbered the entities of a store
    /// that CloudKit mirrors, so that the next sync fetches the record zones again.
    public static let zoneFetchKey = "PFCloudKitMetadataNeedsZoneFetchAfterClientMigrationKey"
}
