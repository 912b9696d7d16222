import Foundation

/// `--json` results of the commands that write or fix one file: `create`, `recover`,
/// `stamp-mapping`, `convert-mapping` and `extract-model`. Keys are sorted; nil values are
/// left out.

/// `molt create --json`.
struct CreateJSON: Encodable {
    /// The store written.
    let store: String
    /// The model's name (its version name in a bundle).
    let model: String?
    /// Objects inserted, in all.
    let objects: Int
    /// Objects inserted, by entity.
    let counts: [String: Int]
}

/// `molt recover --json`.
struct RecoverJSON: Encodable {
    let store: String
    /// `nothingToDo`, `finishedSwap` (the migrated store is in place),
    /// `removedUnfinishedMigration` (the store is as it was) or `removedCreationLeftovers` (no
    /// store: only an interrupted create's files were there, now removed) or `creationRunning`
    /// (no store: a `molt create` of it is still running, its files left alone).
    let outcome: String
    /// Bytes of committed transactions left in the store's `-wal` that recovery could not
    /// move into the store file (not writable by this user); absent when there are none.
    let pendingLogBytes: Int64?
    /// The files an interrupted `molt create` left beside the store, removed (paths).
    let removedCreationFiles: [String]
    /// The temporary files of `molt create` runs still going on, left alone (paths).
    let runningCreations: [String]
}

/// `molt stamp-mapping --json`.
struct StampJSON: Encodable {
    /// The file written: the mapping itself, or `-o`'s.
    let file: String
    let entityMappings: Int
}

/// `molt convert-mapping --json`.
struct ConvertJSON: Encodable {
    /// The file written with `-o`; absent when the mapping is in `mapping`.
    let file: String?
    /// The Molt mapping file's text, when no `-o` was given.
    let mapping: String?
    let entityMappings: Int
    let from: String?
    let to: String?
}

/// `molt extract-model --json`.
struct ExtractJSON: Encodable {
    /// The version folder written.
    let folder: String
    let entities: Int
    /// Whether the embedded model's version hashes match the store's.
    let matchesStore: Bool
    /// What the model file cannot say exactly as the embedded model did.
    let notes: [String]
}
